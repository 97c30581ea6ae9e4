/**
 * The browse shape (no query, no session): the caller's logical conversations — compression
 * segments folded into one entry — newest or oldest first, each anchored at its latest visible
 * message with its first user message as the snippet. The store walks the project's sessions by
 * index and stops after one more than `limit` non-empty conversations, so the cost follows the page
 * size, not the project's size; empty conversations never take a slot. `role_filter` chooses the
 * anchor and snippet roles and skips conversations with no such message. No search runs and no
 * embedding is requested. `since`/`until` (dates) keep only conversations with a message in the
 * range, anchored and quoted from inside it (store SQL, before the page limit).
 */
import type { RecallDatabase } from '@recall/schema';
import { MAX_SCANNED_SESSIONS, recentConversations } from '@recall/store';
import type { SessionSearchArgs } from './arguments.js';
import type { DateRange } from './date-range.js';
import { clip, isoDate, messageLink, sessionFacts, SNIPPET_CHARS, type SearchResultItem } from './result.js';
import { readableSession, type ToolScope } from './scope.js';

export function browse(db: RecallDatabase, scope: ToolScope, args: SessionSearchArgs, dates: DateRange = {}): { results: SearchResultItem[]; truncated: boolean; notes: string[] } {
  const page = recentConversations(db, scope.kind === 'project' ? { kind: 'project', projectId: scope.projectId } : { kind: 'sessions', sessionIds: scope.sessionIds }, {
    limit: args.limit,
    order: args.sort === 'oldest' ? 'oldest' : 'newest',
    ...(args.role_filter ? { roles: args.role_filter } : {}),
    ...dates,
  });
  const results: SearchResultItem[] = [];
  for (const c of page.conversations) {
    const session = readableSession(db, scope, c.last.sessionId);
    const segments = c.segments.filter((id) => id === c.last.sessionId || readableSession(db, scope, id) !== undefined);
    if (!session) continue;
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
