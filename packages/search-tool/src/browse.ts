/**
 * The browse shape (no query, no session): the most recent conversations in the caller's scope,
 * one result per session, anchored at its latest visible message, with the first user message as
 * the snippet. No search runs and no embedding is requested.
 */
import type { RecallDatabase } from '@recall/schema';
import { findSession, firstVisibleMessage, lastVisibleMessage, listSessions, type Session } from '@recall/store';
import type { SessionSearchArgs } from './arguments.js';
import { clip, isoDate, messageLink, sessionFacts, SNIPPET_CHARS, type SearchResultItem } from './result.js';
import type { ToolScope } from './scope.js';

export function browse(db: RecallDatabase, scope: ToolScope, args: SessionSearchArgs): { results: SearchResultItem[]; truncated: boolean } {
  let sessions: Session[];
  if (scope.kind === 'project') {
    sessions = listSessions(db, { projectId: scope.projectId, limit: args.limit + 1 });
  } else {
    sessions = scope.sessionIds
      .map((id) => findSession(db, id))
      .filter((s): s is Session => s !== undefined && !s.hidden)
      .sort((a, b) => (b.lastMessageAt ?? b.startedAt) - (a.lastMessageAt ?? a.startedAt))
      .slice(0, args.limit + 1);
  }
  const truncated = sessions.length > args.limit;
  sessions = sessions.slice(0, args.limit);
  if (args.sort === 'oldest') sessions.reverse();
  const results: SearchResultItem[] = [];
  for (const session of sessions) {
    const last = lastVisibleMessage(db, session.id);
    if (!last) continue;
    const firstUser = firstVisibleMessage(db, session.id, 'user') ?? firstVisibleMessage(db, session.id) ?? last;
    results.push({
      session_id: session.id,
      message_id: last.id,
      link: messageLink(session.id, last.id),
      role: last.role,
      snippet: clip(firstUser.content, SNIPPET_CHARS),
      match_source: 'direct',
      ...sessionFacts(session),
      date: isoDate(last.createdAt),
      window: [],
      message_count: session.messageCount,
      is_current_session: session.id === scope.currentSessionId,
    });
  }
  return { results, truncated };
}
