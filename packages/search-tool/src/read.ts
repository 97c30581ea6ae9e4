/**
 * The read shape (session_id) and the scroll shape (around_message_id): direct reads of original
 * text, gated by the caller's scope. A session or message outside the scope is reported exactly
 * like an unknown one (`not_found`), with no fallback to other projects or profiles.
 */
import type { RecallDatabase } from '@recall/schema';
import { findMessage, messageWindow, sessionHeadTail, type Message, type Session } from '@recall/store';
import type { SessionSearchArgs } from './arguments.js';
import { clip, isoDate, messageLink, sessionFacts, type SearchResultItem } from './result.js';
import { notFound, readableSession, type ToolScope } from './scope.js';

/** Read/scroll return whole messages up to this many characters each. */
export const READ_TEXT_CHARS = 2_000;

function asItem(session: Session, m: Message, anchorId: number | null): SearchResultItem {
  return {
    session_id: session.id,
    message_id: m.id,
    link: messageLink(session.id, m.id),
    role: m.role,
    snippet: clip(m.content, READ_TEXT_CHARS),
    match_source: 'direct',
    ...sessionFacts(session),
    date: isoDate(m.createdAt),
    window: [],
    ...(anchorId === m.id ? { is_anchor: true } : {}),
  };
}

export function readSession(db: RecallDatabase, scope: ToolScope, args: SessionSearchArgs & { session_id: string }): { results: SearchResultItem[]; truncated: boolean } {
  const session = readableSession(db, scope, args.session_id);
  if (!session) throw notFound(`Session ${JSON.stringify(args.session_id)}`);
  const head = Math.ceil(args.limit / 2);
  const { head: first, tail, truncated } = sessionHeadTail(db, session.id, head, args.limit - head);
  const messages = args.sort === 'newest' ? [...first, ...tail].reverse() : [...first, ...tail];
  return { results: messages.map((m) => asItem(session, m, null)), truncated };
}

export function scrollAround(db: RecallDatabase, scope: ToolScope, args: SessionSearchArgs & { around_message_id: number }): { results: SearchResultItem[]; truncated: boolean } {
  const anchor = findMessage(db, args.around_message_id);
  const missing = notFound(`Message ${args.around_message_id}`);
  if (!anchor || (anchor.visibility !== 'live' && anchor.visibility !== 'compacted')) throw missing;
  if (args.session_id !== undefined && args.session_id !== anchor.sessionId) throw missing;
  const session = readableSession(db, scope, anchor.sessionId);
  if (!session) throw missing;
  const window = messageWindow(db, session.id, anchor.id, args.window, args.window);
  return { results: window.messages.map((m) => asItem(session, m, anchor.id)), truncated: window.moreBefore || window.moreAfter };
}
