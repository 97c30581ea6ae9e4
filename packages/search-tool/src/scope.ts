/**
 * The caller's recall scope, resolved from the database on every call (never cached, so a move
 * between two calls changes the second one's scope). A session in a project may recall any visible
 * conversation of that project; a session without a project may only recall its own logical
 * conversation's compression history — NULL is not a shared project. `readableSession` is the one
 * gate read/scroll/windows pass through.
 */
import type { RecallDatabase } from '@recall/schema';
import { findSession, ownHistorySessionIds, type Session } from '@recall/store';
import { ToolError } from './errors.js';

export type ToolScope =
  | { kind: 'project'; projectId: string; currentSessionId: string }
  | { kind: 'own'; projectId: null; currentSessionId: string; sessionIds: readonly string[] };

export function resolveScope(db: RecallDatabase, currentSessionId: string): ToolScope {
  const current = findSession(db, currentSessionId);
  if (!current) throw new ToolError('caller_session_not_found', `The calling session ${JSON.stringify(currentSessionId)} does not exist in this profile.`);
  if (current.projectId !== null) return { kind: 'project', projectId: current.projectId, currentSessionId };
  return { kind: 'own', projectId: null, currentSessionId, sessionIds: ownHistorySessionIds(db, currentSessionId) };
}

/** The session if the caller may read it, else undefined (unknown and out-of-scope look the same). */
export function readableSession(db: RecallDatabase, scope: ToolScope, sessionId: string): Session | undefined {
  const session = findSession(db, sessionId);
  if (!session || session.hidden) return undefined;
  if (scope.kind === 'project') return session.projectId === scope.projectId ? session : undefined;
  return session.projectId === null && scope.sessionIds.includes(session.id) ? session : undefined;
}

export function notFound(what: string): ToolError {
  return new ToolError('not_found', `${what} was not found in this conversation's project.`);
}
