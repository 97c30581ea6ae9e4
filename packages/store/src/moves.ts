/**
 * Moving conversations between projects. `setSessionProject` is the only write that changes
 * ownership: it updates every session of the logical conversation in one BEGIN IMMEDIATE
 * transaction (so a continuation being created concurrently is either already included or reads
 * the new project), validates the target in this profile's database, and never touches messages,
 * cwd (the keyword index's derived scope token is refreshed in the same transaction).
 */
import type { MoveResult } from '@recall/rpc-contract';
import type { RecallDatabase } from '@recall/schema';
import { nowMs } from './clock.js';
import { logicalConversationIds } from './conversation.js';
import { SessionNotFoundError } from './errors.js';
import { reindexSessionsScope } from './fts-index.js';
import { assertProjectAcceptsSessions } from './projects.js';
import { prepared, writeTransaction } from './transaction.js';
import { idSchema, parseInput } from './validation.js';

/**
 * Moves the whole logical conversation of `sessionId` to `projectId` (null = "No project") in one
 * transaction — the only write that changes ownership. Messages and cwd are untouched; the keyword
 * index follows in the same transaction. Returns what was written. Throws ValidationError,
 * SessionNotFoundError, ProjectNotFoundError and ProjectArchivedError.
 */
export function setSessionProject(db: RecallDatabase, sessionId: string, projectId: string | null): MoveResult {
  parseInput(idSchema, sessionId, 'session id');
  if (projectId !== null) parseInput(idSchema, projectId, 'project id');
  return writeTransaction(db, () => {
    const row = prepared(db, 'select project_id from sessions where id = ?').get(sessionId) as { project_id: string | null } | undefined;
    if (!row) throw new SessionNotFoundError(sessionId);
    if (projectId !== null) assertProjectAcceptsSessions(db, projectId);
    const sessionIds = logicalConversationIds(db, sessionId);
    const update = prepared(db, 'update sessions set project_id = ?, updated_at = ? where id = ?');
    const now = nowMs();
    for (const id of sessionIds) update.run(projectId, now, id);
    // The keyword index carries a derived project token as a pre-filter (the JOIN on project_id
    // still decides every hit); refreshing it here keeps the very next search on the fast path.
    reindexSessionsScope(db.raw, sessionIds);
    return { sessionIds, projectId, previousProjectId: row.project_id };
  });
}
