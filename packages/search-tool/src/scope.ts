/**
 * The caller's recall scope, resolved from the database on every call (never cached, so a move
 * between two calls changes the second one's scope). A session in a project may recall any visible
 * conversation of that project; a session without a project may only recall its own logical
 * conversation's compression history — NULL is not a shared project. `readableSession` is the one
 * gate read/scroll/windows pass through. A host may instead name only a project (no current
 * session): the scope is then that whole project.
 */
import type { RecallDatabase } from '@recall/schema';
import { findSessionHeader, ownHistorySessionIds, projectExists, type SessionHeader } from '@recall/store';
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
export function resolveProjectScope(db: RecallDatabase, projectId: string): ToolScope {
  if (!projectExists(db, projectId)) throw new ToolError('caller_project_not_found', `The calling project ${JSON.stringify(projectId)} does not exist in this profile.`);
  return { kind: 'project', projectId, currentSessionId: null };
}

export function resolveScope(db: RecallDatabase, currentSessionId: string): ToolScope {
  const current = findSessionHeader(db, currentSessionId);
  if (!current) throw new ToolError('caller_session_not_found', `The calling session ${JSON.stringify(currentSessionId)} does not exist in this profile.`);
  if (current.projectId !== null) return { kind: 'project', projectId: current.projectId, currentSessionId };
  return { kind: 'own', projectId: null, currentSessionId, sessionIds: ownHistorySessionIds(db, currentSessionId) };
}

/** The session if the caller may read it, else undefined (unknown and out-of-scope look the same). */
export function readableSession(db: RecallDatabase, scope: ToolScope, sessionId: string): SessionHeader | undefined {
  const session = findSessionHeader(db, sessionId);
  if (!session || session.hidden) return undefined;
  if (scope.kind === 'project') return session.projectId === scope.projectId ? session : undefined;
  return session.projectId === null && scope.sessionIds.includes(session.id) ? session : undefined;
}

export function notFound(what: string): ToolError {
  return new ToolError('not_found', `${what} was not found in this conversation's project.`);
}
