/**
 * Reading around an anchor: a window of visible messages before/after a message id, and a
 * session's head + tail with a truncation flag. Only live and compacted messages are ever returned;
 * scoping (which sessions a caller may read) is the search tool's job and happens before these run.
 */
import type { MessageRole, RecallDatabase } from '@recall/schema';
import { MessageNotFoundError } from './errors.js';
import { toMessage, type Message, type MessageRow } from './rows.js';
import { prepared } from './transaction.js';

const VISIBLE = "visibility in ('live','compacted')";

export interface MessageWindow {
  messages: Message[];
  anchorId: number;
  /** More visible messages exist before / after the window. */
  moreBefore: boolean;
  moreAfter: boolean;
}

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

export interface HeadTail {
  head: Message[];
  tail: Message[];
  total: number;
  truncated: boolean;
}

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
