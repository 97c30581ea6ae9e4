/**
 * Deleting for real: a whole logical conversation, a project together with its conversations, and
 * the hidden (rewound and soft-deleted) messages of a conversation. Unlike `deleteMessage` (a soft
 * delete that only changes visibility) these remove the rows: messages, their keyword index rows
 * (removed here, in the same transaction, because the FTS5 table is maintained by the store's write
 * path, not by triggers) and — by the foreign keys' ON DELETE CASCADE — their semantic chunks and
 * vectors. After the transaction, `scrubDeletedText` makes the removed text unreadable in the file
 * too: the connection runs with `secure_delete` (openDatabase switches it on for every writer, so
 * freed pages are zeroed), FTS5 is optimised (a contentless index keeps a deleted row's terms in
 * its segments until they are merged) and the WAL is checkpointed and truncated (it holds earlier
 * page images).
 */
import type { RecallDatabase } from '@recall/schema';
import { ProjectHasSessionsError } from './errors.js';
import { logicalConversationIds } from './conversation.js';
import { FTS_TABLE, unindexMessages } from './fts-index.js';
import { getProject } from './projects.js';
import { prepared, writeTransaction } from './transaction.js';
import { idSchema, parseInput } from './validation.js';

/** What a hard delete removed (ids and counts), and whether the text is also gone from the file. */
export interface PurgeResult {
  /** The sessions removed (every segment of every conversation), root first. */
  sessionIds: string[];
  /** Messages removed. */
  messages: number;
  /** The projects whose conversations changed (the deleted project itself for a project delete). */
  projectIds: string[];
  /**
   * True when the WAL was checkpointed and truncated afterwards (false: a reader held an old
   * snapshot, so earlier page images may still be in the `-wal` file until the next checkpoint).
   */
  scrubbed: boolean;
}

/** Messages handled per statement batch (bounded memory for a conversation of any size). */
const PAGE = 2000;

/** Removes the messages (and their index rows) of these sessions; returns how many. Inside a transaction. */
function removeMessagesOf(db: RecallDatabase, sessionIds: readonly string[], where = ''): number {
  const page = prepared(db, `select id from messages where session_id = ? and id > ?${where} order by id limit ${PAGE}`).pluck();
  const remove = prepared(db, 'delete from messages where id in (select value from json_each(?))');
  let count = 0;
  for (const sessionId of sessionIds) {
    let last = 0;
    for (;;) {
      const ids = page.all(sessionId, last) as number[];
      if (ids.length === 0) break;
      unindexMessages(db.raw, ids);
      remove.run(JSON.stringify(ids));
      count += ids.length;
      last = ids[ids.length - 1]!;
    }
  }
  return count;
}

/**
 * The distinct projects of `ids`, in their order. The statement is the one sessionProjectId caches:
 * read its row (never `.pluck()` a shared cached statement — that would switch it for every caller).
 */
function projectsOf(db: RecallDatabase, ids: readonly string[]): string[] {
  const projectOf = prepared(db, 'select project_id from sessions where id = ?');
  return [...new Set(ids.map((id) => (projectOf.get(id) as { project_id: string | null } | undefined)?.project_id ?? null).filter((p): p is string => p !== null))];
}

function removeSessions(db: RecallDatabase, sessionIds: readonly string[]): void {
  const remove = prepared(db, 'delete from sessions where id = ?');
  const dirty = prepared(db, 'delete from keyword_scope_dirty where session_id = ?');
  const semanticDirty = prepared(db, 'delete from semantic_dirty_sessions where session_id = ?');
  // Children first: nothing refers to a parent by foreign key, but the order keeps the rows consistent at every step.
  for (const id of [...sessionIds].reverse()) {
    dirty.run(id);
    semanticDirty.run(id);
    remove.run(id);
  }
}

/**
 * Hard-deletes the whole logical conversation `sessionId` belongs to (root, compression
 * continuations and delegation children; branches and resets are conversations of their own and
 * stay): every message, keyword index row and semantic chunk, then the sessions. Then scrubs the
 * file (see `scrubDeletedText`). Throws SessionNotFoundError.
 */
export function deleteConversation(db: RecallDatabase, sessionId: string): PurgeResult {
  parseInput(idSchema, sessionId, 'session id');
  const result = writeTransaction(db, () => {
    const ids = logicalConversationIds(db, sessionId);
    const projectIds = projectsOf(db, ids);
    const messages = removeMessagesOf(db, ids);
    removeSessions(db, ids);
    return { sessionIds: ids, messages, projectIds };
  });
  return { ...result, scrubbed: scrubDeletedText(db) };
}

/**
 * Deletes a project. Without `withConversations` it is refused with ProjectHasSessionsError while any
 * session (hidden ones included) belongs to it — the same rule as `deleteProject`; with it, every
 * conversation of the project is hard-deleted first (as `deleteConversation`), then the project, its
 * folders and its semantic consent, and the file is scrubbed. Throws ProjectNotFoundError.
 */
export function purgeProject(db: RecallDatabase, projectId: string, options: { withConversations?: boolean } = {}): PurgeResult {
  parseInput(idSchema, projectId, 'project id');
  const result = writeTransaction(db, () => {
    getProject(db, projectId);
    const owned = prepared(db, 'select id from sessions where project_id = ? order by started_at, id').pluck().all(projectId) as string[];
    if (owned.length > 0 && options.withConversations !== true) throw new ProjectHasSessionsError(projectId, owned.length);
    const sessionIds: string[] = [];
    const seen = new Set<string>();
    for (const id of owned) {
      if (seen.has(id)) continue;
      for (const member of logicalConversationIds(db, id)) {
        if (!seen.has(member)) {
          seen.add(member);
          sessionIds.push(member);
        }
      }
    }
    const messages = removeMessagesOf(db, sessionIds);
    removeSessions(db, sessionIds);
    prepared(db, 'delete from semantic_generation where project_id = ?').run(projectId);
    prepared(db, 'delete from projects where id = ?').run(projectId);
    return { sessionIds, messages, projectIds: [projectId] };
  });
  if (result.sessionIds.length === 0) return { ...result, scrubbed: checkpointTruncate(db) };
  return { ...result, scrubbed: scrubDeletedText(db) };
}

/**
 * Removes the hidden messages — rewound and soft-deleted ones, which stay stored and recoverable
 * until then — of the logical conversation `sessionId` belongs to, and scrubs the file. Live and
 * compacted messages are kept. Throws SessionNotFoundError.
 */
export function purgeHiddenMessages(db: RecallDatabase, sessionId: string): PurgeResult {
  parseInput(idSchema, sessionId, 'session id');
  const result = writeTransaction(db, () => {
    const ids = logicalConversationIds(db, sessionId);
    const messages = removeMessagesOf(db, ids, " and visibility in ('rewound', 'deleted')");
    const projectIds = projectsOf(db, ids);
    return { sessionIds: ids, messages, projectIds };
  });
  return { ...result, scrubbed: result.messages > 0 ? scrubDeletedText(db) : checkpointTruncate(db) };
}

/**
 * Makes deleted text unreadable in the database file and its WAL: merges the FTS5 index into one
 * segment (`optimize`: a contentless index keeps a deleted row's terms in older segments until a
 * merge drops them; the old segments' pages are freed, and zeroed under `secure_delete`), then
 * checkpoints the WAL and truncates it to zero bytes. Run outside any transaction. The optimize
 * rewrites the whole keyword index (seconds at a million messages); deletes are rare. Returns
 * whether the checkpoint completed (false while another connection reads an older snapshot).
 */
export function scrubDeletedText(db: RecallDatabase): boolean {
  db.raw.pragma('secure_delete = ON');
  writeTransaction(db, () => {
    db.raw.prepare(`insert into ${FTS_TABLE} (${FTS_TABLE}) values ('optimize')`).run();
  });
  return checkpointTruncate(db);
}

/** `PRAGMA wal_checkpoint(TRUNCATE)`, a few tries while readers finish; true when it completed. */
function checkpointTruncate(db: RecallDatabase): boolean {
  if (db.raw.inTransaction) return false;
  for (let attempt = 0; attempt < 5; attempt++) {
    const [row] = db.raw.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number; checkpointed: number }[];
    if (row === undefined || row.busy === 0) return true;
    // A short synchronous pause (the store is synchronous): readers hold their snapshots for milliseconds.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50 * (attempt + 1));
  }
  return false;
}
