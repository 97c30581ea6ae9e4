/**
 * `projects.*` methods: the explicit, per-profile projects that own conversations, and their folders.
 * Folders are metadata (default cwd, repo discovery), never the membership rule; a discovered folder
 * becomes a project only through `projects.for_folder`, which returns a stable project id (creating
 * the project once, deduplicated by normalised path) so a path is never written into project_id.
 * Every mutation emits `projects.changed` after its store transaction has committed.
 */
import {
  addProjectFolder,
  archiveProject,
  createProject,
  deleteProject,
  discoveredFolders,
  listProjects,
  projectForFolder,
  removeProjectFolder,
  updateProject,
} from '@recall/store';
import { z } from 'zod';
import { definedOnly, method, pathField, projectIdField, type GatewayMethod } from './common.js';

const nameField = z.string().min(1).max(120).describe('Project name (1-120 characters, trimmed)');
const descriptionField = z.string().max(2000).describe('Free-text description (at most 2000 characters)');
const colorField = z.string().max(32).describe('Colour: #rgb/#rrggbb[aa] hex or a colour name');
const iconField = z.string().max(64).describe('Icon name or emoji (at most 64 characters)');

export const projectMethods: GatewayMethod[] = [
  method(
    'projects.list',
    'List the projects of this profile, with folders and visible session counts.',
    z
      .strictObject({ includeArchived: z.boolean().default(false).describe('Include archived projects (default false)') })
      .describe('projects.list params'),
    (p, ctx) => ({ projects: listProjects(ctx.db, { includeArchived: p.includeArchived }) }),
  ),

  method(
    'projects.create',
    'Create a project; the first folder (if any) becomes its primary folder.',
    z.strictObject({
      name: nameField,
      description: descriptionField.optional(),
      color: colorField.optional(),
      icon: iconField.optional(),
      folders: z.array(pathField).max(50).optional().describe('Folders of the project (at most 50); the first is primary'),
    }),
    (p, ctx) => {
      const project = createProject(ctx.db, definedOnly(p));
      ctx.events.emit({ type: 'projects.changed', projectIds: [project.id] });
      return project;
    },
  ),

  method(
    'projects.update',
    'Rename or re-describe a project. Never changes which conversations belong to it.',
    z.strictObject({
      projectId: projectIdField,
      name: nameField.optional(),
      description: descriptionField.nullable().optional().describe('New description; null clears it'),
      color: colorField.nullable().optional().describe('New colour; null clears it'),
      icon: iconField.nullable().optional().describe('New icon; null clears it'),
    }),
    (p, ctx) => {
      const { projectId, ...fields } = p;
      const project = updateProject(ctx.db, projectId, definedOnly(fields));
      ctx.events.emit({ type: 'projects.changed', projectIds: [project.id] });
      return project;
    },
  ),

  method(
    'projects.archive',
    'Archive (or unarchive) a project. Its conversations keep their project.',
    z.strictObject({
      projectId: projectIdField,
      archived: z.boolean().default(true).describe('true archives, false unarchives (default true)'),
    }),
    (p, ctx) => {
      const project = archiveProject(ctx.db, p.projectId, p.archived);
      ctx.events.emit({ type: 'projects.changed', projectIds: [project.id] });
      return project;
    },
  ),

  method(
    'projects.delete',
    'Hard-delete a project; refused with project_has_sessions while any conversation still belongs to it.',
    z.strictObject({ projectId: projectIdField }),
    (p, ctx) => {
      deleteProject(ctx.db, p.projectId);
      ctx.events.emit({ type: 'projects.changed', projectIds: [p.projectId] });
      return { deleted: true as const };
    },
  ),

  method(
    'projects.folders.add',
    'Attach a folder to a project (folders are metadata, never membership). A folder belongs to at most one project.',
    z.strictObject({
      projectId: projectIdField,
      path: pathField,
      primary: z.boolean().optional().describe('Make it the primary folder (default: only if the project has none)'),
    }),
    (p, ctx) => {
      const project = addProjectFolder(ctx.db, p.projectId, p.path, definedOnly({ primary: p.primary }));
      ctx.events.emit({ type: 'projects.changed', projectIds: [project.id] });
      return project;
    },
  ),

  method(
    'projects.folders.remove',
    'Detach a folder from a project. Conversations are not affected.',
    z.strictObject({ projectId: projectIdField, path: pathField }),
    (p, ctx) => {
      const project = removeProjectFolder(ctx.db, p.projectId, p.path);
      ctx.events.emit({ type: 'projects.changed', projectIds: [project.id] });
      return project;
    },
  ),

  method(
    'projects.for_folder',
    'The explicit project that owns this folder, creating it once if none does (deduplicated by normalised path).',
    z.strictObject({
      path: pathField,
      name: nameField.optional().describe('Name for a newly created project (default: the folder name)'),
    }),
    (p, ctx) => {
      const result = projectForFolder(ctx.db, p.path, definedOnly({ name: p.name }));
      if (result.created) ctx.events.emit({ type: 'projects.changed', projectIds: [result.project.id] });
      return result;
    },
  ),

  method(
    'projects.discovered',
    'Folders conversations ran in (git root, else cwd) that no project folder covers: suggestions, not projects.',
    z.strictObject({ limit: z.number().int().min(1).max(500).default(50).describe('Maximum folders (1-500, default 50)') }),
    (p, ctx) => ({ folders: discoveredFolders(ctx.db, { limit: p.limit }) }),
  ),
];
