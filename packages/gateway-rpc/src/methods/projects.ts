/**
 * `projects.*` methods: the explicit, per-profile projects that own conversations, and their folders.
 * Folders are metadata (default cwd, repo discovery), never the membership rule; a discovered folder
 * becomes a project only through `projects.for_folder`, which returns a stable project id (creating
 * the project once, deduplicated by normalised path) so a path is never written into project_id.
 * Every mutation emits `projects.changed` after its store transaction has committed.
 * The methods' names, summaries and params schemas are the contract's
 * (@recall/rpc-contract, src/methods/projects.ts); this module holds their handlers.
 */
import {
  addProjectFolder,
  archiveProject,
  createProject,
  discoveredFolders,
  listProjects,
  projectForFolder,
  purgeProject,
  removeProjectFolder,
  updateProject,
} from '@recall/store';
import { definedOnly, method, type GatewayMethod } from './common.js';

export const projectMethods: GatewayMethod[] = [
  method('projects.list', (p, ctx) => ({ projects: listProjects(ctx.db, { includeArchived: p.includeArchived }) })),

  method('projects.create', (p, ctx) => {
    const project = createProject(ctx.db, definedOnly(p));
    ctx.events.emit({ type: 'projects.changed', projectIds: [project.id] });
    return project;
  }),

  method('projects.update', (p, ctx) => {
    const { projectId, ...fields } = p;
    const project = updateProject(ctx.db, projectId, definedOnly(fields));
    ctx.events.emit({ type: 'projects.changed', projectIds: [project.id] });
    return project;
  }),

  method('projects.archive', (p, ctx) => {
    const project = archiveProject(ctx.db, p.projectId, p.archived);
    ctx.events.emit({ type: 'projects.changed', projectIds: [project.id] });
    return project;
  }),

  method('projects.delete', (p, ctx) => {
    // Without withConversations the store refuses a project that still owns a session (project_has_sessions).
    const result = purgeProject(ctx.db, p.projectId, { withConversations: p.withConversations });
    if (result.sessionIds.length > 0) ctx.events.emit({ type: 'sessions.changed', sessionIds: result.sessionIds, projectIds: [p.projectId] });
    ctx.events.emit({ type: 'projects.changed', projectIds: [p.projectId] });
    return { deleted: true as const };
  }),

  method('projects.folders.add', (p, ctx) => {
    const project = addProjectFolder(ctx.db, p.projectId, p.path, definedOnly({ primary: p.primary, confirmHome: p.confirmHome }));
    ctx.events.emit({ type: 'projects.changed', projectIds: [project.id] });
    return project;
  }),

  method('projects.folders.remove', (p, ctx) => {
    const project = removeProjectFolder(ctx.db, p.projectId, p.path);
    ctx.events.emit({ type: 'projects.changed', projectIds: [project.id] });
    return project;
  }),

  method('projects.for_folder', (p, ctx) => {
    const result = projectForFolder(ctx.db, p.path, definedOnly({ name: p.name, confirmHome: p.confirmHome }));
    if (result.created) ctx.events.emit({ type: 'projects.changed', projectIds: [result.project.id] });
    return result;
  }),

  method('projects.discovered', (p, ctx) => ({ folders: discoveredFolders(ctx.db, { limit: p.limit }) })),
];
