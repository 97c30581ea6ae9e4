/**
 * The browse shape (no query, no session): the caller's logical conversations — compression
 * segments folded into one entry — newest or oldest first, each anchored at its latest visible
 * message with its first user message as the snippet. The storage walks the project's sessions by
 * index and stops after one more than `limit` non-empty conversations, so the cost follows the page
 * size, not the project's size; empty conversations never take a slot. `role_filter` chooses the
 * anchor and snippet roles and skips conversations with no such message. No search runs and no
 * embedding is requested. `since`/`until` (dates) keep only conversations with a message in the
 * range, anchored and quoted from inside it (store SQL, before the page limit).
 */
import type { Storage } from '@recall/storage-ports';
import { MAX_SCANNED_SESSIONS } from '@recall/store';
import type { SessionSearchArgs } from './arguments.js';
import type { DateRange } from './date-range.js';
import { clip, isoDate, messageLink, sessionFacts, SNIPPET_CHARS, type SearchResultItem } from './result.js';
import { readableSessions, type ToolScope } from './scope.js';

export async function browse(storage: Storage, scope: ToolScope, args: SessionSearchArgs, dates: DateRange = {}): Promise<{ results: SearchResultItem[]; truncated: boolean; notes: string[] }> {
  const page = await storage.sessions.recentConversations(scope.kind === 'project' ? { kind: 'project', projectId: scope.projectId } : { kind: 'sessions', sessionIds: scope.sessionIds }, {
    limit: args.limit,
    order: args.sort === 'oldest' ? 'oldest' : 'newest',
    ...(args.role_filter ? { roles: args.role_filter } : {}),
    ...dates,
  });
  const results: SearchResultItem[] = [];
  const readable = readableSessions(storage, scope);
  // Every session the page names, in one batch read (not one read per segment).
  await readable.prime(page.conversations.flatMap((c) => [c.last.sessionId, ...c.segments]));
  for (const c of page.conversations) {
    const session = await readable(c.last.sessionId);
    if (!session) continue;
    const segments: string[] = [];
    for (const id of c.segments) if (id === c.last.sessionId || (await readable(id)) !== undefined) segments.push(id);
    results.push({
      session_id: session.id,
      message_id: c.last.id,
      link: messageLink(session.id, c.last.id),
      role: c.last.role,
      snippet: clip(c.first.content, SNIPPET_CHARS),
      match_source: 'direct',
      ...sessionFacts(session, { conversation_id: c.rootId, segments }),
      date: isoDate(c.last.createdAt),
      window: [],
      is_current_session: scope.currentSessionId !== null && c.segments.includes(scope.currentSessionId),
    });
  }
  const notes: string[] = [];
  if (page.scanBounded) notes.push(`Listing stopped after examining ${MAX_SCANNED_SESSIONS} sessions (many are empty); older conversations exist — search with a query to reach them.`);
  return { results, truncated: page.truncated, notes };
}
