/**
 * Recent logical conversations of a project (the session_search browse shape). It walks the
 * project's sessions in start-time order through `sessions_project_idx`, folds compression
 * segments into their conversation (one entry per root), skips conversations with no visible
 * message (of the requested roles) without losing a slot to them, and stops as soon as it has one
 * more than asked for — so its cost follows the page size, never the project's size, and it counts
 * no messages except those of the conversations it returns. A bounded scan (MAX_SCANNED_SESSIONS)
 * protects against projects made mostly of empty sessions; hitting it is reported.
 */
import type { MessageRole } from '@recall/rpc-contract';
import type { RecallDatabase } from '@recall/schema';
import { conversationRootId, conversationSegments } from './conversation.js';
import type { Message } from './rows.js';
import { prepared } from './transaction.js';
import { segmentsHeadTail } from './windows.js';

/**
 * Sessions `recentConversations` examines per call at most (empty or already-seen sessions included);
 * reaching it sets `scanBounded`.
 */
export const MAX_SCANNED_SESSIONS = 2_000;
const BATCH = 100;

/** Where `recentConversations` looks: a project's sessions, or an explicit list of session ids. */
export type RecentConversationScope = { kind: 'project'; projectId: string } | { kind: 'sessions'; sessionIds: readonly string[] };

/**
 * Options of `recentConversations`: how many conversations (`limit`, at least 1), in which `order`, and
 * optionally only messages of some `roles`.
 */
export interface RecentConversationOptions {
  limit: number;
  /** newest: by the most recently started segment; oldest: by the conversation's start. */
  order: 'newest' | 'oldest';
  roles?: readonly MessageRole[];
  /**
   * Only messages created at or after this time (epoch ms): a conversation with no visible message
   * in [since, until) is skipped like an empty one, and its first/last messages are the range's.
   */
  since?: number;
  /** Only messages created before this time (epoch ms, exclusive); see `since`. */
  until?: number;
}

/**
 * One recent logical conversation: its root, its compression segments and its first and last visible
 * messages (of the requested roles).
 */
export interface RecentConversation {
  rootId: string;
  /** Compression segments in conversation order; the last one is where the conversation goes on. */
  segments: string[];
  /** First visible message of the requested roles (a user message when there is one and roles allow). */
  first: Message;
  /** Latest visible message of the requested roles. */
  last: Message;
}

/** A page of recent conversations. */
export interface RecentConversationPage {
  conversations: RecentConversation[];
  /** More conversations exist beyond `limit` (or the scan bound was reached). */
  truncated: boolean;
  /** The scan stopped at MAX_SCANNED_SESSIONS before the project was exhausted. */
  scanBounded: boolean;
}

interface Row {
  id: string;
  started_at: number;
}

/**
 * One batch of the walk, in index order (sessions_project_idx: project_id, started_at). After the
 * first batch the cursor is a range on started_at, so each batch starts where the last one ended
 * instead of re-reading the rows before it. Exported for the query-plan test.
 */
export function recentSessionsBatchSql(order: 'newest' | 'oldest', withCursor: boolean): string {
  const dir = order === 'newest' ? 'desc' : 'asc';
  const cmp = order === 'newest' ? '<' : '>';
  const cursor = withCursor ? `and started_at ${cmp}= @afterStarted and (started_at, id) ${cmp} (@afterStarted, @after)` : '';
  return `select id, started_at from sessions
    where project_id = @projectId and hidden = 0 and archived = 0 ${cursor}
    order by started_at ${dir}, id ${dir} limit ${BATCH}`;
}

/**
 * Recent logical conversations in `scope` (the session_search browse shape), one entry per conversation
 * root, skipping conversations with no visible message of the requested roles. Its cost follows the
 * page size, not the project's size; at most MAX_SCANNED_SESSIONS sessions are examined.
 */
export function recentConversations(db: RecallDatabase, scope: RecentConversationScope, options: RecentConversationOptions): RecentConversationPage {
  const limit = Math.max(1, Math.floor(options.limit));
  const seen = new Set<string>();
  const conversations: RecentConversation[] = [];
  let scanned = 0;
  let exhausted = false;
  const consider = (sessionId: string): boolean => {
    const rootId = conversationRootId(db, sessionId);
    if (seen.has(rootId)) return false;
    seen.add(rootId);
    const segments = conversationSegments(db, rootId);
    const dates = { ...(options.since !== undefined ? { since: options.since } : {}), ...(options.until !== undefined ? { until: options.until } : {}) };
    const roles = { ...(options.roles && options.roles.length > 0 ? { roles: options.roles } : {}), ...dates };
    const last = segmentsHeadTail(db, segments, 0, 1, roles);
    const lastMessage = last.truncated ? last.tail[0] : last.head[last.head.length - 1];
    if (!lastMessage) return false; // empty conversation: skipped, it never takes a slot
    const wantsUser = !options.roles || options.roles.length === 0 || options.roles.includes('user');
    const firstUser = wantsUser ? segmentsHeadTail(db, segments, 1, 0, { roles: ['user'], ...dates }).head[0] : undefined;
    const first = firstUser ?? segmentsHeadTail(db, segments, 1, 0, roles).head[0] ?? lastMessage;
    conversations.push({ rootId, segments, first, last: lastMessage });
    return true;
  };

  if (scope.kind === 'sessions') {
    const rows = scope.sessionIds
      .map((id) => prepared(db, 'select id, started_at from sessions where id = ? and hidden = 0').get(id) as Row | undefined)
      .filter((r): r is Row => r !== undefined)
      .sort((a, b) => (options.order === 'newest' ? b.started_at - a.started_at : a.started_at - b.started_at));
    for (const row of rows) {
      if (conversations.length > limit) break;
      consider(row.id);
    }
    exhausted = true;
  } else {
    let cursor: Row | null = null;
    while (conversations.length <= limit && scanned < MAX_SCANNED_SESSIONS) {
      const batch = (
        cursor === null
          ? prepared(db, recentSessionsBatchSql(options.order, false)).all({ projectId: scope.projectId })
          : prepared(db, recentSessionsBatchSql(options.order, true)).all({ projectId: scope.projectId, after: cursor.id, afterStarted: cursor.started_at })
      ) as Row[];
      let consumed = 0;
      for (const row of batch) {
        scanned++;
        consumed++;
        consider(row.id);
        if (conversations.length > limit || scanned >= MAX_SCANNED_SESSIONS) break;
      }
      if (batch.length < BATCH && consumed === batch.length) {
        exhausted = true;
        break;
      }
      cursor = batch[consumed - 1]!;
    }
  }
  const scanBounded = !exhausted && conversations.length <= limit;
  return { conversations: conversations.slice(0, limit), truncated: conversations.length > limit || scanBounded, scanBounded };
}
