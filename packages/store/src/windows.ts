/**
 * Reading around an anchor: a window of visible messages before/after a message id, and a
 * session's head + tail with a truncation flag — within one session, or across the ordered
 * compression segments of a logical conversation (optionally only some roles). Only live and
 * compacted messages are ever returned; scoping (which sessions a caller may read) is the search
 * tool's job and happens before these run.
 */
import type { MessageRole } from '@recall/rpc-contract';
import type { RecallDatabase } from '@recall/schema';
import { MessageNotFoundError } from './errors.js';
import { toMessage, type Message, type MessageRow } from './rows.js';
import { prepared } from './transaction.js';

const VISIBLE = "visibility in ('live','compacted')";

/**
 * Visible messages around an anchor, in id order (the anchor included), and whether more exist beyond
 * either end.
 */
export interface MessageWindow {
  messages: Message[];
  anchorId: number;
  /** More visible messages exist before / after the window. */
  moreBefore: boolean;
  moreAfter: boolean;
}

/**
 * Up to `before` visible messages before and `after` after the visible message `anchorId` of
 * `sessionId`. Throws MessageNotFoundError when the anchor is not a visible message of that session.
 */
export function messageWindow(db: RecallDatabase, sessionId: string, anchorId: number, before: number, after: number): MessageWindow {
  const anchor = prepared(db, `select * from messages where id = ? and session_id = ? and ${VISIBLE}`).get(anchorId, sessionId) as MessageRow | undefined;
  if (!anchor) throw new MessageNotFoundError(anchorId);
  const earlier = prepared(db, `select * from messages where session_id = ? and id < ? and ${VISIBLE} order by id desc limit ?`).all(sessionId, anchorId, before + 1) as MessageRow[];
  const later = prepared(db, `select * from messages where session_id = ? and id > ? and ${VISIBLE} order by id limit ?`).all(sessionId, anchorId, after + 1) as MessageRow[];
  return {
    messages: [...earlier.slice(0, before).reverse(), anchor, ...later.slice(0, after)].map(toMessage),
    anchorId,
    moreBefore: earlier.length > before,
    moreAfter: later.length > after,
  };
}

/**
 * The first and last visible messages of a session: `total` visible messages, `truncated` when some lie
 * between `head` and `tail` (then `tail` is non-empty; otherwise every message is in `head`).
 */
export interface HeadTail {
  head: Message[];
  tail: Message[];
  total: number;
  truncated: boolean;
}

/**
 * The first `head` and last `tail` visible messages of a session (all of them in `head` when they fit).
 * An unknown session has no messages (total 0).
 */
export function sessionHeadTail(db: RecallDatabase, sessionId: string, head: number, tail: number): HeadTail {
  const total = prepared(db, `select count(*) from messages where session_id = ? and ${VISIBLE}`).pluck().get(sessionId) as number;
  const first = prepared(db, `select * from messages where session_id = ? and ${VISIBLE} order by id limit ?`).all(sessionId, head) as MessageRow[];
  if (total <= head + tail) {
    const all = prepared(db, `select * from messages where session_id = ? and ${VISIBLE} order by id`).all(sessionId) as MessageRow[];
    return { head: all.map(toMessage), tail: [], total, truncated: false };
  }
  const last = prepared(db, `select * from messages where session_id = ? and ${VISIBLE} order by id desc limit ?`).all(sessionId, tail) as MessageRow[];
  return { head: first.map(toMessage), tail: last.reverse().map(toMessage), total, truncated: true };
}

/** The session's first visible message (optionally of one role), without reading the rest. */
export function firstVisibleMessage(db: RecallDatabase, sessionId: string, role?: MessageRole): Message | undefined {
  const row = (
    role === undefined
      ? prepared(db, `select * from messages where session_id = ? and ${VISIBLE} order by id limit 1`).get(sessionId)
      : prepared(db, `select * from messages where session_id = ? and role = ? and ${VISIBLE} order by id limit 1`).get(sessionId, role)
  ) as MessageRow | undefined;
  return row ? toMessage(row) : undefined;
}

/** The session's latest visible message. */
export function lastVisibleMessage(db: RecallDatabase, sessionId: string): Message | undefined {
  const row = prepared(db, `select * from messages where session_id = ? and ${VISIBLE} order by id desc limit 1`).get(sessionId) as MessageRow | undefined;
  return row ? toMessage(row) : undefined;
}

// --------------------------------------------------------------------------------------------
// Reading across the segments of a logical conversation (root + compression continuations, in
// order), optionally only some roles. Each step is one indexed query per segment
// (messages_session_idx), so the cost follows the window asked for, not the conversation's size.

/** Options of the segment readers (segmentWindow, segmentsHeadTail). */
export interface SegmentReadOptions {
  /** Only messages of these roles (undefined or empty = every role). */
  roles?: readonly MessageRole[];
  /** Only messages created at or after this time (epoch ms). */
  since?: number;
  /** Only messages created before this time (epoch ms, exclusive). */
  until?: number;
}

function roleClause(roles: readonly MessageRole[] | undefined, since?: number, until?: number): { sql: string; params: unknown[] } {
  let sql = '';
  const params: unknown[] = [];
  if (roles && roles.length > 0) {
    sql += ' and role in (select value from json_each(?))';
    params.push(JSON.stringify(roles));
  }
  if (since !== undefined && Number.isFinite(since)) {
    sql += ' and created_at >= ?';
    params.push(Math.floor(since));
  }
  if (until !== undefined && Number.isFinite(until)) {
    sql += ' and created_at < ?';
    params.push(Math.floor(until));
  }
  return { sql, params };
}

/** Up to `count` visible messages walking backward (or forward) from a position in the segments. */
function walk(db: RecallDatabase, segments: readonly string[], from: { segment: number; id: number | null }, count: number, direction: 'back' | 'forward', filter: SegmentReadOptions): Message[] {
  const out: MessageRow[] = [];
  const role = roleClause(filter.roles, filter.since, filter.until);
  const step = direction === 'back' ? -1 : 1;
  for (let i = from.segment; i >= 0 && i < segments.length && out.length < count; i += step) {
    const bound = i === from.segment && from.id !== null ? (direction === 'back' ? ' and id < ?' : ' and id > ?') : '';
    const sql = `select * from messages where session_id = ? and ${VISIBLE}${bound}${role.sql} order by id ${direction === 'back' ? 'desc' : 'asc'} limit ?`;
    const params: unknown[] = [segments[i], ...(bound ? [from.id] : []), ...role.params, count - out.length];
    out.push(...(prepared(db, sql).all(...params) as MessageRow[]));
  }
  return (direction === 'back' ? out.reverse() : out).map(toMessage);
}

/**
 * The window around `anchorId` over a conversation's `segments` (ordered session ids, e.g. from
 * conversationSegments, containing the anchor's session): neighbours may come from the previous or next
 * segment, so a reader of a continuation's start sees the end of the segment before it. The anchor is
 * always included, whatever `roles` says. Throws MessageNotFoundError when the anchor is not visible or
 * not in `segments`.
 */
export function segmentWindow(db: RecallDatabase, segments: readonly string[], anchorId: number, before: number, after: number, options: SegmentReadOptions = {}): MessageWindow {
  const anchor = prepared(db, `select * from messages where id = ? and ${VISIBLE}`).get(anchorId) as MessageRow | undefined;
  const at = anchor ? segments.indexOf(anchor.session_id) : -1;
  if (!anchor || at < 0) throw new MessageNotFoundError(anchorId);
  const earlier = walk(db, segments, { segment: at, id: anchorId }, before + 1, 'back', options);
  const later = walk(db, segments, { segment: at, id: anchorId }, after + 1, 'forward', options);
  return {
    messages: [...earlier.slice(earlier.length > before ? 1 : 0), toMessage(anchor), ...later.slice(0, after)],
    anchorId,
    moreBefore: earlier.length > before,
    moreAfter: later.length > after,
  };
}

/**
 * Head and tail of the conversation's `segments` read as one sequence, without counting its messages:
 * `truncated` means messages exist between head and tail.
 */
export function segmentsHeadTail(db: RecallDatabase, segments: readonly string[], head: number, tail: number, options: SegmentReadOptions = {}): Omit<HeadTail, 'total'> {
  const first = walk(db, segments, { segment: 0, id: null }, head + tail + 1, 'forward', options);
  if (first.length <= head + tail) return { head: first, tail: [], truncated: false };
  const last = walk(db, segments, { segment: segments.length - 1, id: null }, tail, 'back', options);
  return { head: first.slice(0, head), tail: last, truncated: true };
}
