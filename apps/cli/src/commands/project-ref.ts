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
  const byId = findProject(db, ref);
  if (byId) return byId;
  return pickProject(listProjects(db, { includeArchived: true }), ref);
}

/** resolveProjectRef on the storage ports (a PostgreSQL team database): the same tiers and errors. */
export async function resolveProjectRefOnStorage(storage: Storage, ref: string): Promise<Project> {
  const byId = await storage.projects.find(ref);
  if (byId) return byId;
  return pickProject(await storage.projects.list({ includeArchived: true }), ref);
}

function pickProject(all: Project[], ref: string): Project {
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
