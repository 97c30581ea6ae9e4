/**
 * The planner: turns work discovery (semantic_dirty_sessions, filled by triggers for edits, moves,
 * visibility and consent, and by discovery.ts for new messages above the message mark) into chunk rows
 * for the active fingerprint. Pure SQLite + CPU, no network, in short BEGIN IMMEDIATE transactions
 * of at most `maxMessages` messages each, so concurrent message appends wait at most a few ms.
 *
 * Per dirty session whose project is switched on for the fingerprint's endpoint (and that is not
 * hidden): chunk rows of messages that are no longer eligible (rewound/deleted, role no longer
 * indexed) are removed; every eligible message without chunk rows for this fingerprint gets them —
 * copied as `ready` from its branch origin (messages.origin_message_id) when the origin's chunks for
 * the same content hash are all ready (a branch costs no embedding calls), else `pending`. Because
 * an edit deletes a message's chunks (trigger), "has chunk rows" means "is planned for its current
 * content". Sessions of other projects are dropped from the queue untouched: nothing is planned,
 * so nothing can be sent. A dirty row is deleted only if its `seq` is unchanged, so a write that
 * lands while planning is never lost.
 *
 * A fingerprint switch (or rebuild) re-queues every session of each enabled project once, recorded
 * in semantic_projects.planned_fingerprint_id; coverage is `unknown` until that queue is drained.
 */
import type { MessageRole } from '@recall/rpc-contract';
import { VISIBLE_VISIBILITIES, type RecallDatabase } from '@recall/schema';
import { chunkText, contentHash, type ChunkerOptions } from '../chunker.js';
import { discoverNewMessages } from './discovery.js';
import type { Fingerprint } from '../fingerprint.js';

/**
 * What `planDirtySessions()` plans for: fingerprint, chunker limits, indexed roles and transaction bounds.
 */
export interface PlanOptions {
  fingerprint: Fingerprint;
  chunker: ChunkerOptions;
  roles: readonly MessageRole[];
  /** Cuts a message into chunks instead of `chunkText(content, chunker)` (the ports' planWork passes the worker's chunker). */
  split?: (content: string) => readonly { start: number; end: number }[];
  /** The content hash instead of `contentHash` (the same sha256, passed through the ports). */
  hash?: (content: string) => string;
  /** Only plan sessions of this project (backfill on request); others stay queued. */
  projectId?: string;
  /** Messages chunked per transaction (default 64: keeps each write transaction to a few ms). */
  maxMessages?: number;
  /** Transactions per call (default 50): the call returns and the caller decides whether to go on. */
  maxTransactions?: number;
  now?: number;
}

/**
 * What one planning pass did: sessions planned, chunk rows created, reused from a branch origin and removed.
 */
export interface PlanResult {
  sessionsPlanned: number;
  chunksCreated: number;
  /** Chunks copied ready from a branch origin (no embedding call). */
  chunksReused: number;
  chunksRemoved: number;
  /** True when queued work is left (call again). */
  more: boolean;
}

const VISIBLE_SQL = VISIBLE_VISIBILITIES.map((v) => `'${v}'`).join(', ');

function rolesSql(roles: readonly MessageRole[]): string {
  // Roles come from a closed zod enum; quoting is still applied so this can never inject.
  return roles.map((r) => `'${r.replace(/'/g, "''")}'`).join(', ');
}

/** Queues every session of each enabled project not yet planned for this fingerprint. */
export function queueUnplannedProjects(db: RecallDatabase, fingerprint: Fingerprint, projectId?: string): number {
  return db.raw
    .transaction(() => {
      const projects = db.raw
        .prepare(
          `select project_id from semantic_projects where enabled = 1 and endpoint = ? and (planned_fingerprint_id is null or planned_fingerprint_id <> ?)${projectId ? ' and project_id = ?' : ''}`,
        )
        .pluck()
        .all(...(projectId ? [fingerprint.endpoint, fingerprint.id, projectId] : [fingerprint.endpoint, fingerprint.id])) as string[];
      for (const p of projects) {
        db.raw
          .prepare(
            `insert into semantic_dirty_sessions (session_id, seq) select id, 1 from sessions where project_id = ? and true
             on conflict (session_id) do update set seq = seq + 1`,
          )
          .run(p);
        db.raw.prepare('update semantic_projects set planned_fingerprint_id = ? where project_id = ?').run(fingerprint.id, p);
      }
      return projects.length;
    })
    .immediate();
}

interface DirtyRow {
  session_id: string;
  seq: number;
}

interface SessionRow {
  project_id: string | null;
  hidden: number;
}

interface MessageRow {
  id: number;
  content: string;
  origin_message_id: number | null;
}

/** Plans queued sessions (bounded; see PlanOptions). */
export function planDirtySessions(db: RecallDatabase, options: PlanOptions): PlanResult {
  const fp = options.fingerprint;
  const maxMessages = options.maxMessages ?? 64;
  const maxTx = options.maxTransactions ?? 50;
  const roles = rolesSql(options.roles);
  const result: PlanResult = { sessionsPlanned: 0, chunksCreated: 0, chunksReused: 0, chunksRemoved: 0, more: false };
  // New messages are found here, not by an insert trigger (discovery.ts): one bounded step per call.
  const discovery = discoverNewMessages(db);
  queueUnplannedProjects(db, fp, options.projectId);

  const pickDirty = options.projectId
    ? db.raw.prepare('select d.session_id, d.seq from semantic_dirty_sessions d join sessions s on s.id = d.session_id where s.project_id = ? limit 1')
    : db.raw.prepare('select session_id, seq from semantic_dirty_sessions limit 1');
  const sessionRow = db.raw.prepare('select project_id, hidden from sessions where id = ?');
  const consent = db.raw.prepare('select 1 from semantic_projects where project_id = ? and enabled = 1 and endpoint = ?');
  const dropDirty = db.raw.prepare('delete from semantic_dirty_sessions where session_id = ? and seq = ?');
  const removeStale = db.raw.prepare(
    `delete from semantic_chunks where session_id = ? and fingerprint_id = ? and message_id in
       (select id from messages where session_id = ? and (visibility not in (${VISIBLE_SQL}) or role not in (${roles})))`,
  );
  const needing = db.raw.prepare(
    `select m.id, m.content, m.origin_message_id from messages m
     where m.session_id = ? and m.id > ? and m.visibility in (${VISIBLE_SQL}) and m.role in (${roles})
       and not exists (select 1 from semantic_chunks c where c.message_id = m.id and c.fingerprint_id = ?)
     order by m.id limit ?`,
  );
  const originChunks = db.raw.prepare(
    "select chunk_index, start, \"end\", vector from semantic_chunks where message_id = ? and fingerprint_id = ? and content_hash = ? and status = 'ready' order by chunk_index",
  );
  const insert = db.raw.prepare(
    `insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, "end", content_hash, chunker_version, vector, status, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing`,
  );

  // Messages producing no chunk (empty, payload-only) have no rows and would be picked again: the
  // cursor (`m.id > after`) moves past them within one planning pass of a session.
  // The seq read when the session was first picked is kept: if a write bumps it meanwhile (e.g. an
  // edit of a message before the cursor), the dirty row survives and the session is planned again.
  let cursor: { sessionId: string; after: number; seq: number } | null = null;
  for (let tx = 0; tx < maxTx; tx++) {
    const done = db.raw
      .transaction((): boolean => {
        const dirty = (cursor ? { session_id: cursor.sessionId, seq: cursor.seq } : pickDirty.get(...(options.projectId ? [options.projectId] : []))) as DirtyRow | undefined;
        if (!dirty) return true;
        const seq = dirty.seq;
        const session = sessionRow.get(dirty.session_id) as SessionRow | undefined;
        const eligible = session !== undefined && session.hidden === 0 && session.project_id !== null && consent.get(session.project_id, fp.endpoint) !== undefined;
        if (!eligible) {
          dropDirty.run(dirty.session_id, seq);
          cursor = null;
          return false;
        }
        if (!cursor) result.chunksRemoved += removeStale.run(dirty.session_id, fp.id, dirty.session_id).changes;
        const now = options.now ?? Date.now();
        const rows = needing.all(dirty.session_id, cursor?.after ?? 0, fp.id, maxMessages) as MessageRow[];
        for (const m of rows) {
          const hash = (options.hash ?? contentHash)(m.content);
          const chunks = options.split ? options.split(m.content).map((c, index) => ({ index, start: c.start, end: c.end })) : chunkText(m.content, options.chunker);
          if (chunks.length === 0) continue;
          let reused = false;
          if (m.origin_message_id !== null) {
            const origin = originChunks.all(m.origin_message_id, fp.id, hash) as { chunk_index: number; start: number; end: number; vector: Buffer }[];
            if (origin.length === chunks.length && origin.every((o, i) => o.chunk_index === i && o.start === chunks[i]!.start && o.end === chunks[i]!.end)) {
              for (const o of origin) insert.run(fp.id, m.id, dirty.session_id, o.chunk_index, o.start, o.end, hash, fp.chunkerVersion, o.vector, 'ready', now, now);
              result.chunksReused += origin.length;
              reused = true;
            }
          }
          if (!reused) {
            for (const c of chunks) insert.run(fp.id, m.id, dirty.session_id, c.index, c.start, c.end, hash, fp.chunkerVersion, null, 'pending', now, now);
            result.chunksCreated += chunks.length;
          }
        }
        if (rows.length === maxMessages) {
          cursor = { sessionId: dirty.session_id, after: rows[rows.length - 1]!.id, seq };
          return false;
        }
        dropDirty.run(dirty.session_id, seq);
        cursor = null;
        result.sessionsPlanned++;
        return false;
      })
      .immediate();
    if (done) {
      result.more = discovery.more;
      return result;
    }
  }
  result.more = true;
  return result;
}
