/**
 * The search scope a host fixes on the command line, shared by `recall search` and `recall mcp` so
 * the two can never read `--session`, `--project` or `--cwd` differently: exactly one of them;
 * `--session` is the conversation the caller runs in (an imported transcript's own id works too,
 * continuing into its latest compression segment; its stored project is re-read on every call),
 * `--project` a whole project by id, slug or name, `--cwd DIR` the project whose folder covers DIR
 * (the deepest one), resolved once. A mistyped id or an unmapped folder fails here with the fix.
 */
import { resolve } from 'node:path';
import type { Project } from '@recall/rpc-contract';
import { hostSession } from '@recall/importers';
import { projectCoveringFolder } from '@recall/store';
import type { Storage } from '@recall/storage-ports';
import type { CliContext } from './context.js';
import { resolveProjectRef, resolveProjectRefOnStorage } from './project-ref.js';
import { FolderNotInProjectError, UsageError } from '../errors.js';

/** The trusted scope handed to the tool: a current session, or a whole project. */
export type ToolScope = { currentSessionId: string } | { projectId: string };

export interface ScopeFlags {
  session?: string | undefined;
  project?: string | undefined;
  cwd?: string | undefined;
}

/** The scope flags given, checked: exactly one (a usage error otherwise). */
export function checkScopeFlags(command: string, values: ScopeFlags): void {
  const given = (['session', 'project', 'cwd'] as const).filter((flag) => values[flag] !== undefined);
  if (given.length === 0) throw new UsageError('One of --session, --project or --cwd is required: it says which project to search.', command);
  if (given.length > 1) throw new UsageError(`Use only one of --${given.join(', --')}.`, command);
}

/**
 * Resolves the scope flags against the profile. Returns the scope and, for `--project`/`--cwd`, the
 * project; `note` is a line for stderr (how a transcript id or a folder was resolved), or null.
 */
export function resolveScope(ctx: CliContext, values: ScopeFlags): { scope: ToolScope; project: Project | null; note: string | null } {
  const db = ctx.db();
  if (values.session !== undefined) {
    const session = hostSession(db, values.session);
    const note = session.id === values.session ? null : `${values.session} continues as ${session.id} (its latest compression continuation)`;
    return { scope: { currentSessionId: session.id }, project: null, note };
  }
  if (values.project !== undefined) {
    const project = resolveProjectRef(db, values.project);
    return { scope: { projectId: project.id }, project, note: null };
  }
  const dir = resolve(values.cwd!);
  const project = projectCoveringFolder(db, dir);
  if (!project) throw new FolderNotInProjectError(dir, ctx.config.profile);
  return { scope: { projectId: project.id }, project, note: `${dir} → project ${project.slug} (${project.id})` };
}

/**
 * resolveScope on the storage ports (a PostgreSQL team database, `recall mcp --database …`). The
 * same flags and errors, except that `--session` takes a Recall session id only: following an
 * imported transcript's own id into its latest continuation needs the importers, not on the ports yet.
 */
export async function resolveScopeOnStorage(storage: Storage, values: ScopeFlags, profile: string): Promise<{ scope: ToolScope; project: Project | null; note: string | null }> {
  if (values.session !== undefined) {
    const session = await storage.sessions.getRecord(values.session);
    return { scope: { currentSessionId: session.id }, project: null, note: null };
  }
  if (values.project !== undefined) {
    const project = await resolveProjectRefOnStorage(storage, values.project);
    return { scope: { projectId: project.id }, project, note: null };
  }
  const dir = resolve(values.cwd!);
  const project = await storage.projects.coveringFolder(dir);
  if (!project) throw new FolderNotInProjectError(dir, profile);
  return { scope: { projectId: project.id }, project, note: `${dir} → project ${project.slug} (${project.id})` };
}
