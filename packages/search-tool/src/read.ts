/**
 * The read shape (session_id) and the scroll shape (around_message_id): direct reads of original
 * text, gated by the caller's scope. A session or message outside the scope is reported exactly
 * like an unknown one (`not_found`), with no fallback to other projects or profiles.
 *
 * Both read the logical conversation as one sequence when asked: read with `conversation: true`
 * covers every compression segment in order, and scroll windows always continue into the previous
 * or next segment, so a model can step from a continuation back into the segment before it.
 * `role_filter` limits the messages returned (a scroll anchor is always shown). Long messages are
 * shown READ_TEXT_CHARS at a time: `next_offset` + scroll's `offset` page through the rest.
 */
import type { Message } from '@recall/rpc-contract';
import type { SessionRecord, Storage } from '@recall/storage-ports';
import type { SessionSearchArgs } from './arguments.js';
import { ToolError } from './errors.js';
import { lineageCache } from './conversation-lineage.js';
import { isoDate, messageLink, sessionFacts, textPage, type Lineage, type SearchResultItem } from './result.js';
import { notFound, readableSessions, type ToolScope } from './scope.js';

/** Read/scroll return at most this many characters of one message per result (page with offset). */
export const READ_TEXT_CHARS = 2_000;

export interface ReadOutput {
  results: SearchResultItem[];
  truncated: boolean;
  notes: string[];
}

function asItem(session: SessionRecord, lineage: Lineage, m: Message, anchorId: number | null, offset = 0): SearchResultItem {
  return {
    session_id: session.id,
    message_id: m.id,
    link: messageLink(session.id, m.id),
    role: m.role,
    ...textPage(m.content, offset, READ_TEXT_CHARS),
    match_source: 'direct',
    ...sessionFacts(session, lineage),
    date: isoDate(m.createdAt),
    window: [],
    ...(anchorId === m.id ? { is_anchor: true } : {}),
  };
}

/** A note per message whose text continues, saying exactly how to read on. */
export function continuationNotes(results: readonly SearchResultItem[]): string[] {
  const cut = results.filter((r) => r.next_offset !== undefined);
  if (cut.length === 0) return [];
  const first = cut[0]!;
  const more = cut.length > 1 ? ` (${cut.length - 1} more message(s) are cut too; each has next_offset)` : '';
  return [
    `Message ${first.message_id} is ${first.total_chars} characters; this shows characters ${first.text_offset ?? 0}–${first.next_offset}. Continue with around_message_id ${first.message_id} and offset ${first.next_offset}${more}.`,
  ];
}

export async function readSession(storage: Storage, scope: ToolScope, args: SessionSearchArgs & { session_id: string }): Promise<ReadOutput> {
  const readable = readableSessions(storage, scope);
  const session = await readable(args.session_id);
  if (!session) throw notFound(`Session ${JSON.stringify(args.session_id)}`);
  const lineageOf = lineageCache(storage, readable);
  const lineage = await lineageOf(session.id);
  const segments = args.conversation ? [...lineage.segments] : [session.id];
  const head = Math.ceil(args.limit / 2);
  const roles = args.role_filter ? { roles: args.role_filter } : {};
  const { head: first, tail, truncated } = await storage.messages.segmentsHeadTail(segments, head, args.limit - head, roles);
  const ordered = args.sort === 'newest' ? [...first, ...tail].reverse() : [...first, ...tail];
  const results: SearchResultItem[] = [];
  for (const m of ordered) {
    const s = await readable(m.sessionId);
    if (s) results.push(asItem(s, await lineageOf(s.id), m, null));
  }
  const notes: string[] = [];
  if (truncated) notes.push('Only the head and tail are shown; use around_message_id to scroll through the middle.');
  const at = lineage.segments.indexOf(session.id);
  if (!args.conversation && lineage.segments.length > 1) {
    const previous = at > 0 ? ` The segment before it is session_id ${lineage.segments[at - 1]}.` : '';
    notes.push(
      `This session is segment ${at + 1} of ${lineage.segments.length} of conversation ${lineage.conversation_id} (compression continuations).${previous} Pass conversation: true to read all segments in order.`,
    );
  }
  return { results, truncated: truncated || results.some((r) => r.next_offset !== undefined), notes: [...notes, ...continuationNotes(results)] };
}

export async function scrollAround(storage: Storage, scope: ToolScope, args: SessionSearchArgs & { around_message_id: number }): Promise<ReadOutput> {
  const anchor = await storage.messages.find(args.around_message_id);
  const missing = notFound(`Message ${args.around_message_id}`);
  if (!anchor || (anchor.visibility !== 'live' && anchor.visibility !== 'compacted')) throw missing;
  if (args.session_id !== undefined && args.session_id !== anchor.sessionId) throw missing;
  const readable = readableSessions(storage, scope);
  const session = await readable(anchor.sessionId);
  if (!session) throw missing;
  const lineageOf = lineageCache(storage, readable);
  if (args.offset !== undefined) {
    // Paging inside one long message: only that message, from the offset.
    if (args.offset > anchor.content.length) throw new ToolError('invalid_arguments', `offset ${args.offset} is past the end of message ${anchor.id} (${anchor.content.length} characters).`);
    const item = asItem(session, await lineageOf(session.id), anchor, anchor.id, args.offset);
    return { results: [item], truncated: item.next_offset !== undefined, notes: continuationNotes([item]) };
  }
  const segments = (await lineageOf(session.id)).segments;
  const window = await storage.messages.segmentWindow(segments.includes(session.id) ? segments : [session.id], anchor.id, args.window, args.window, args.role_filter ? { roles: args.role_filter } : {});
  const results: SearchResultItem[] = [];
  for (const m of window.messages) {
    const s = await readable(m.sessionId);
    if (s) results.push(asItem(s, await lineageOf(s.id), m, anchor.id));
  }
  const notes = continuationNotes(results);
  if (results.some((r) => r.session_id !== session.id)) notes.push('The window crosses into another compression segment of the same conversation (see session_id and segment).');
  return { results, truncated: window.moreBefore || window.moreAfter || results.some((r) => r.next_offset !== undefined), notes };
}
