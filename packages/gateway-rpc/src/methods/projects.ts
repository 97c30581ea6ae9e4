/**
 * `projects.*` methods: the explicit, per-profile projects that own conversations, and their folders.
 * Folders are metadata (default cwd, repo discovery), never the membership rule; a discovered folder
 * becomes a project only through `projects.for_folder`, which returns a stable project id (creating
 * the project once, deduplicated by normalised path) so a path is never written into project_id.
 * Every mutation emits `projects.changed` after its store transaction has committed. They run on
 * the storage ports (SQLite or PostgreSQL), deleting a project with its conversations too (PurgeStore).
 * The methods' names, summaries and params schemas are the contract's
 * (@recall/rpc-contract, src/methods/projects.ts); this module holds their handlers.
 */
import { definedOnly, method, purgesOf, type GatewayMethod } from './common.js';

export const projectMethods: GatewayMethod[] = [
  method('projects.list', async (p, ctx) => ({ projects: await ctx.storage.projects.list({ includeArchived: p.includeArchived }) })),

  method('projects.create', async (p, ctx) => {
    const project = await ctx.storage.projects.create(definedOnly(p));
    ctx.events.emit({ type: 'projects.changed', projectIds: [project.id] });
    return project;
  }),

  method('projects.update', async (p, ctx) => {
    const { projectId, ...fields } = p;
    const project = await ctx.storage.projects.update(projectId, definedOnly(fields));
    ctx.events.emit({ type: 'projects.changed', projectIds: [project.id] });
    return project;
  }),

  method('projects.archive', async (p, ctx) => {
    const project = await ctx.storage.projects.archive(p.projectId, p.archived);
    ctx.events.emit({ type: 'projects.changed', projectIds: [project.id] });
    return project;
  }),

  method('projects.delete', async (p, ctx) => {
    if (!p.withConversations && ctx.storage.purges === undefined) {
      // The ports' delete refuses a project that still owns a session (project_has_sessions).
      await ctx.storage.projects.delete(p.projectId);
      ctx.events.emit({ type: 'projects.changed', projectIds: [p.projectId] });
      return { deleted: true as const };
    }
    // One purge: refused while the project owns a session unless its conversations go too (rows,
    // keyword index rows, chunks; scrubbed from a SQLite file).
    const result = await purgesOf(ctx, 'Deleting a project together with its conversations').deleteProject(p.projectId, { withConversations: p.withConversations });
    if (result.sessionIds.length > 0) ctx.events.emit({ type: 'sessions.changed', sessionIds: result.sessionIds, projectIds: [p.projectId] });
    ctx.events.emit({ type: 'projects.changed', projectIds: [p.projectId] });
    return { deleted: true as const };
  }),

  method('projects.folders.add', async (p, ctx) => {
    const project = await ctx.storage.projects.addFolder(p.projectId, p.path, definedOnly({ primary: p.primary, confirmHome: p.confirmHome }));
    ctx.events.emit({ type: 'projects.changed', projectIds: [project.id] });
    return project;
  }),

  method('projects.folders.remove', async (p, ctx) => {
    const project = await ctx.storage.projects.removeFolder(p.projectId, p.path);
    ctx.events.emit({ type: 'projects.changed', projectIds: [project.id] });
    return project;
  }),

  method('projects.for_folder', async (p, ctx) => {
    const result = await ctx.storage.projects.forFolder(p.path, definedOnly({ name: p.name, confirmHome: p.confirmHome }));
    if (result.created) ctx.events.emit({ type: 'projects.changed', projectIds: [result.project.id] });
    return result;
  }),

  method('projects.discovered', async (p, ctx) => ({ folders: await ctx.storage.projects.discoveredFolders({ limit: p.limit }) })),
];
