/**
 * The caller's recall scope, resolved through the storage ports on every call (never cached, so a
 * move between two calls changes the second one's scope). A session in a project may recall any visible
 * conversation of that project; a session without a project may only recall its own logical
 * conversation's compression history — NULL is not a shared project. `readableSession` is the one
 * gate read/scroll/windows pass through. A host may instead name only a project (no current
 * session): the scope is then that whole project. `readScopeOf` is the same scope as the storage's
 * read scope (on PostgreSQL row-level security enforces it under every read of the call).
 */
import type { ReadScope, SessionRecord, Storage } from '@recall/storage-ports';
import { ToolError } from './errors.js';

/**
 * The resolved scope of a call: a project (`kind: 'project'`) or, for a conversation without a
 * project, its own compression history (`kind: 'own'`, `sessionIds`). A SemanticSource receives it.
 * `currentSessionId` is null only for a project-wide caller (an external agent started with
 * `recall mcp --project/--cwd`, whose own transcript Recall does not know): it then has no live
 * messages to exclude.
 */
export type ToolScope =
  | { kind: 'project'; projectId: string; currentSessionId: string | null }
  | { kind: 'own'; projectId: null; currentSessionId: string; sessionIds: readonly string[] };

/** A project-wide caller: the project must exist (archived projects stay searchable). */
export async function resolveProjectScope(storage: Storage, projectId: string): Promise<ToolScope> {
  if (!(await storage.projects.exists(projectId))) throw new ToolError('caller_project_not_found', `The calling project ${JSON.stringify(projectId)} does not exist in this profile.`);
  return { kind: 'project', projectId, currentSessionId: null };
}

export async function resolveScope(storage: Storage, currentSessionId: string): Promise<ToolScope> {
  const current = await storage.sessions.findRecord(currentSessionId);
  if (!current) throw new ToolError('caller_session_not_found', `The calling session ${JSON.stringify(currentSessionId)} does not exist in this profile.`);
  if (current.projectId !== null) return { kind: 'project', projectId: current.projectId, currentSessionId };
  return { kind: 'own', projectId: null, currentSessionId, sessionIds: await storage.sessions.ownHistory(currentSessionId) };
}

/** The storage read scope of a tool scope: the project, or exactly the own-history sessions. */
export function readScopeOf(scope: ToolScope): ReadScope {
  return scope.kind === 'project' ? { kind: 'project', projectId: scope.projectId } : { kind: 'sessions', sessionIds: scope.sessionIds };
}

/** Whether the caller may read this session row (undefined for an unknown one). */
function gate(scope: ToolScope, session: SessionRecord | undefined): SessionRecord | undefined {
  if (!session || session.hidden) return undefined;
  if (scope.kind === 'project') return session.projectId === scope.projectId ? session : undefined;
  return session.projectId === null && scope.sessionIds.includes(session.id) ? session : undefined;
}

/** The session if the caller may read it, else undefined (unknown and out-of-scope look the same). */
export async function readableSession(storage: Storage, scope: ToolScope, sessionId: string): Promise<SessionRecord | undefined> {
  return gate(scope, await storage.sessions.findRecord(sessionId));
}

/**
 * readableSession with a per-call cache (every shape asks for the same sessions many times);
 * `prime(ids)` reads the rows of every id not cached yet in one batch read (one round trip on
 * PostgreSQL), so the gate calls that follow answer from the cache.
 */
export interface ReadableSessions {
  (sessionId: string): Promise<SessionRecord | undefined>;
  prime(sessionIds: Iterable<string>): Promise<void>;
}

/** A per-call cache of readableSession, primed in batches (see ReadableSessions). */
export function readableSessions(storage: Storage, scope: ToolScope, seed: readonly SessionRecord[] = []): ReadableSessions {
  const cache = new Map<string, Promise<SessionRecord | undefined>>(seed.map((s) => [s.id, Promise.resolve(s)]));
  const readable = (sessionId: string): Promise<SessionRecord | undefined> => {
    let hit = cache.get(sessionId);
    if (!hit) {
      hit = readableSession(storage, scope, sessionId);
      cache.set(sessionId, hit);
    }
    return hit;
  };
  readable.prime = async (sessionIds: Iterable<string>): Promise<void> => {
    const missing = [...new Set(sessionIds)].filter((id) => !cache.has(id));
    if (missing.length === 0) return;
    const rows = await storage.sessions.findRecords(missing);
    for (const id of missing) if (!cache.has(id)) cache.set(id, Promise.resolve(gate(scope, rows.get(id))));
  };
  return readable;
}

export function notFound(what: string): ToolError {
  return new ToolError('not_found', `${what} was not found in this conversation's project.`);
}
