/**
 * How the CLI names a project: by id (`p_…`), by slug or by name (exact, then case-insensitive),
 * archived ones included. A reference that matches two projects is refused with the candidates
 * listed rather than guessed, since moving a conversation to the wrong project changes what it can
 * recall; an unknown one is refused with the nearest slugs suggested, never silently corrected.
 */
import type { Project } from '@recall/rpc-contract';
import type { RecallDatabase } from '@recall/schema';
import type { Storage } from '@recall/storage-ports';
import { findProject, listProjects } from '@recall/store';
import { GatewayError } from '@recall/gateway-rpc';
import { didYouMean } from './style.js';

export function resolveProjectRef(db: RecallDatabase, ref: string): Project {
  return pickProjectRef(ref, findProject(db, ref), () => listProjects(db, { includeArchived: true }));
}

/** The rules of resolveProjectRef over any way of reading projects: `byId` first, then slug, name, either case-insensitively. */
export function pickProjectRef(ref: string, byId: Project | undefined, list: () => Project[]): Project;
export function pickProjectRef(ref: string, byId: Project | undefined, list: () => Promise<Project[]>): Promise<Project>;
export function pickProjectRef(ref: string, byId: Project | undefined, list: () => Project[] | Promise<Project[]>): Project | Promise<Project> {
  if (byId) return byId;
  const all = list();
  return Array.isArray(all) ? pickAmong(ref, all) : all.then((projects) => pickAmong(ref, projects));
}

/** resolveProjectRef on the storage ports (a PostgreSQL team database): the same tiers and errors. */
export async function resolveProjectRefOnStorage(storage: Storage, ref: string): Promise<Project> {
  return pickProjectRef(ref, await storage.projects.find(ref), () => storage.projects.list({ includeArchived: true }));
}

function pickAmong(ref: string, all: readonly Project[]): Project {
  const tiers: ((p: Project) => boolean)[] = [(p) => p.slug === ref, (p) => p.name === ref, (p) => p.name.toLowerCase() === ref.toLowerCase() || p.slug === ref.toLowerCase()];
  for (const matches of tiers) {
    const found = all.filter(matches);
    if (found.length === 1) return found[0]!;
    if (found.length > 1) {
      throw new GatewayError('ambiguous_project', `"${ref}" matches ${found.length} projects: ${found.map((p) => `${p.id} (${p.name})`).join(', ')}. Use the id.`, { data: { ref } });
    }
  }
  // A near miss (`alpah`, `Alpha-API`) names what was probably meant.
  const near = didYouMean(ref, all.map((p) => p.slug));
  throw new GatewayError('project_not_found', `No project with id, slug or name "${ref}" (see "recall projects --all").${near}`, { data: { ref } });
}
