/**
 * Work discovery for NEW messages: the message high-water mark (`semantic_message_mark`, migration
 * 0004). A message write does no semantic work at all — no trigger, no queue row — because any
 * AFTER INSERT trigger on `messages` turns each INSERT into a statement transaction, at which FTS5
 * flushes its pending keyword index (measured −30 % ingest, docs/benchmarks.md). Instead, before
 * planning, this step looks at the messages whose id is above the mark, queues their sessions in
 * `semantic_dirty_sessions` when the session's project is switched on, and moves the mark — in one
 * BEGIN IMMEDIATE transaction, so a crash leaves either both or neither.
 *
 * Why nothing can be missed: messages.id is AUTOINCREMENT, so ids are never reused (not even after
 * a session and its messages are deleted) and every message committed after the mark moved has a
 * larger id (SQLite has one writer at a time; this transaction sees every committed write; the store
 * never writes an explicit id — branch copies and imports get fresh ones). A
 * message whose project is switched on only later, or whose session moves into a switched-on
 * project later, is queued by the triggers that already cover those writes (enable queues all of
 * the project's sessions; a move queues the moved session). Messages of projects not switched on
 * pass the mark without any queue row, so nothing about them is ever planned or sent.
 */
import type { RecallDatabase } from '@recall/schema';

export interface DiscoveryOptions {
  /** Message ids looked at per transaction (default 10,000: a few ms of write lock). */
  maxMessages?: number;
}

export interface DiscoveryResult {
  /** Sessions queued (or re-queued) for planning. */
  sessionsQueued: number;
  /** The mark after this step. */
  mark: number;
  /** True when messages above the mark are left (call again). */
  more: boolean;
}

/** The highest message id already looked at (0 before the first message). */
export function messageMark(db: RecallDatabase): number {
  return (db.raw.prepare('select last_message_id from semantic_message_mark where id = 1').pluck().get() as number | undefined) ?? 0;
}

function highestMessageId(db: RecallDatabase): number {
  return (db.raw.prepare('select max(id) from messages').pluck().get() as number | null) ?? 0;
}

/**
 * One bounded discovery step. Costs two index lookups and no write when nothing was written since
 * the last step (the worker's idle poll), and O(1) when no project is switched on (the mark jumps to
 * the newest message).
 */
export function discoverNewMessages(db: RecallDatabase, options: DiscoveryOptions = {}): DiscoveryResult {
  const step = Math.max(1, Math.floor(options.maxMessages ?? 10_000));
  // Read first without the write lock: an idle poll must not queue behind (or block) writers.
  const seen = messageMark(db);
  if (highestMessageId(db) <= seen) return { sessionsQueued: 0, mark: seen, more: false };
  return db.raw
    .transaction((): DiscoveryResult => {
      const mark = messageMark(db);
      const top = highestMessageId(db);
      if (top <= mark) return { sessionsQueued: 0, mark, more: false };
      const anyEnabled = db.raw.prepare('select 1 from semantic_projects where enabled = 1 limit 1').get() !== undefined;
      const upTo = anyEnabled
        ? (db.raw.prepare('select max(id) from (select id from messages where id > ? order by id limit ?)').pluck().get(mark, step) as number)
        : top;
      let sessionsQueued = 0;
      if (anyEnabled) {
        sessionsQueued = db.raw
          .prepare(
            `insert into semantic_dirty_sessions (session_id, seq)
             select distinct m.session_id, 1 from messages m
             join sessions s on s.id = m.session_id
             join semantic_projects sp on sp.project_id = s.project_id and sp.enabled = 1
             where m.id > ? and m.id <= ?
             on conflict (session_id) do update set seq = seq + 1`,
          )
          .run(mark, upTo).changes;
      }
      db.raw
        .prepare('insert into semantic_message_mark (id, last_message_id) values (1, ?) on conflict (id) do update set last_message_id = excluded.last_message_id')
        .run(upTo);
      return { sessionsQueued, mark: upTo, more: upTo < top };
    })
    .immediate();
}

/**
 * Sessions of `projectId` with messages above the mark that are not queued yet: work the next
 * discovery step will queue. Counted only for a switched-on project (others are never queued), so
 * status can say "planning" from the moment a message is written, as it could with a trigger.
 */
export function undiscoveredSessions(db: RecallDatabase, projectId: string): number {
  if (db.raw.prepare('select 1 from semantic_projects where project_id = ? and enabled = 1').get(projectId) === undefined) return 0;
  return db.raw
    .prepare(
      `select count(distinct m.session_id) from messages m join sessions s on s.id = m.session_id
       where m.id > coalesce((select last_message_id from semantic_message_mark where id = 1), 0) and s.project_id = ?
         and not exists (select 1 from semantic_dirty_sessions d where d.session_id = m.session_id)`,
    )
    .pluck()
    .get(projectId) as number;
}
