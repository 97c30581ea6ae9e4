/**
 * `projects.*` params: the explicit, per-profile projects that own conversations, and their
 * folders. Folders are metadata (default cwd, repo discovery), never the membership rule; a
 * discovered folder becomes a project only through `projects.for_folder`.
 */
import { z } from 'zod';
import { pathField, projectIdField } from '../fields.js';
import { methodGroup } from '../method-spec.js';

const nameField = z.string().min(1).max(120).describe('Project name (1-120 characters, trimmed)');
const descriptionField = z.string().max(2000).describe('Free-text description (at most 2000 characters)');
const colorField = z.string().max(32).describe('Colour: #rgb/#rrggbb[aa] hex or a colour name');
const iconField = z.string().max(64).describe('Icon name or emoji (at most 64 characters)');
const confirmHomeField = z.boolean().optional().describe('Accept the home folder as a project folder (refused with invalid_folder otherwise)');

export const PROJECT_METHODS = methodGroup({
  'projects.list': {
    summary: 'List the projects of this profile, with folders and visible session counts.',
    params: z.strictObject({ includeArchived: z.boolean().default(false).describe('Include archived projects (default false)') }).describe('projects.list params'),
  },
  'projects.create': {
    summary: 'Create a project; the first folder (if any) becomes its primary folder.',
    params: z.strictObject({
      name: nameField,
      description: descriptionField.optional(),
      color: colorField.optional(),
      icon: iconField.optional(),
      folders: z.array(pathField).max(50).optional().describe('Folders of the project (at most 50 absolute paths, no filesystem root); the first is primary'),
      confirmHome: confirmHomeField,
    }),
  },
  'projects.update': {
    summary: 'Rename or re-describe a project. Never changes which conversations belong to it.',
    params: z.strictObject({
      projectId: projectIdField,
      name: nameField.optional(),
      description: descriptionField.nullable().optional().describe('New description; null clears it'),
      color: colorField.nullable().optional().describe('New colour; null clears it'),
      icon: iconField.nullable().optional().describe('New icon; null clears it'),
    }),
  },
  'projects.archive': {
    summary: 'Archive (or unarchive) a project. Its conversations keep their project.',
    params: z.strictObject({
      projectId: projectIdField,
      archived: z.boolean().default(true).describe('true archives, false unarchives (default true)'),
    }),
  },
  'projects.delete': {
    summary: 'Hard-delete a project; refused with project_has_sessions while any conversation still belongs to it, unless withConversations deletes them too (for real, scrubbed from the file).',
    params: z.strictObject({
      projectId: projectIdField,
      withConversations: z.boolean().default(false).describe('Also delete every conversation of the project, for real (default false: refused while it has any)'),
    }),
  },
  'projects.folders.add': {
    summary: 'Attach a folder to a project (folders are metadata, never membership). A folder belongs to at most one project.',
    params: z.strictObject({
      projectId: projectIdField,
      path: pathField,
      primary: z.boolean().optional().describe('Make it the primary folder (default: only if the project has none)'),
      confirmHome: confirmHomeField,
    }),
  },
  'projects.folders.remove': {
    summary: 'Detach a folder from a project. Conversations are not affected.',
    params: z.strictObject({ projectId: projectIdField, path: pathField }),
  },
  'projects.for_folder': {
    summary: 'The explicit project that owns this folder, creating it once if none does (deduplicated by normalised path).',
    params: z.strictObject({
      path: pathField,
      name: nameField.optional().describe('Name for a newly created project (default: the folder name)'),
      confirmHome: confirmHomeField,
    }),
  },
  'projects.discovered': {
    summary: 'Folders conversations ran in (git root, else cwd) that no project folder covers: suggestions, not projects.',
    params: z.strictObject({ limit: z.number().int().min(1).max(500).default(50).describe('Maximum folders (1-500, default 50)') }),
  },
});
