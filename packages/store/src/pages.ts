/**
 * Paging for readers that show a long list a page at a time (the desktop sidebar and conversation
 * view): logical conversations of ONE project (or of "No project"), newest activity first, with a
 * keyset cursor; and one page of a session's visible messages at the oldest end, the newest end,
 * around an anchor or before/after a cursor. Both are computed in SQL so a 5,000-message
 * conversation or a profile with thousands of sessions never has to be loaded whole — the old
 * desktop grouped a global top-1,000 session list in the browser, so older projects looked empty
 * and continuations past the cut looked like separate conversations. Only live and compacted
 * messages are returned; hidden and archived sessions are not listed (same rule as `listSessions`).
 */
import type { ConversationPage, ConversationPageItem } from '@recall/rpc-contract';
import { CONVERSATION_EDGES, type RecallDatabase } from '@recall/schema';
import { SessionNotFoundError, ValidationError } from './errors.js';
import { SESSION_COLUMNS, toMessage, toSession, type Message, type MessageRow, type Session, type SessionRow } from './rows.js';
import { prepared, readTransaction } from './transaction.js';

const EDGE_LIST = CONVERSATION_EDGES.map((k) => `'${k}'`).join(',');
const VISIBLE = "visibility in ('live','compacted')";

/**
 * Options of `listConversations`: the group (`projectId`, null = "No project"), page size `limit`
 * (1-500, default 50) and the `cursor` a previous page returned as `nextCursor`.
 */
export interface ListConversationsOptions {
  /** A project id, or null for the conversations without a project. */
  projectId: string | null;
  limit?: number;
  cursor?: string | null;
}

interface Cursor {
  activity: number;
  rootId: string;
}

function encodeCursor(c: Cursor): string {
  return `${c.activity}~${c.rootId}`;
}

function decodeCursor(text: string): Cursor {
  const at = text.indexOf('~');
  const activity = Number(text.slice(0, at));
  if (at <= 0 || !Number.isSafeInteger(activity) || activity < 0) throw new ValidationError(`cursor "${text.slice(0, 40)}" is not one this method returned`);
  return { activity, rootId: text.slice(at + 1) };
}

/**
 * The group's listed sessions, each mapped to its conversation root along compression/delegation
 * edges inside the group (`tree`, walked down through the parent index), and each conversation's
 * activity (`conv`). A child whose parent is not listed (archived, hidden, elsewhere) starts its own
 * entry, exactly as the desktop always showed it. `filter(alias)` selects the group's sessions.
 */
function groupSql(filter: (alias: string) => string): string {
  const listed = (a: string) => `${filter(a)} and ${a}.archived = 0 and ${a}.hidden = 0`;
  const activity = (a: string) =>
    `max(coalesce((select max(m.created_at) from messages m where m.session_id = ${a}.id and m.${VISIBLE}), 0), ${a}.started_at)`;
  // Activity rides along in the tree so nothing joins back to it (a CTE joined to a table is
  // re-run per row: quadratic on a 3,000-session project).
  return `with recursive
    tree(id, root, activity) as (
      select s.id, s.id, ${activity('s')} from sessions s
      where ${listed('s')} and not (s.lineage in (${EDGE_LIST})
        and exists (select 1 from sessions p where p.id = s.parent_session_id and ${listed('p')}))
      union
      select c.id, tree.root, ${activity('c')} from tree join sessions c on c.parent_session_id = tree.id
      where c.lineage in (${EDGE_LIST}) and ${listed('c')}
    ),
    conv as (select root, max(activity) as activity from tree group by root)`;
}

/**
 * Only the roots are found through the project index; for parents and children the unary `+`
 * keeps SQLite on the primary key / parent index (else it scans the whole project per tree row).
 */
const projectFilter = (projectId: string | null) => (a: string) => {
  const column = a === 's' ? `${a}.project_id` : `+${a}.project_id`;
  return projectId === null ? `${column} is null` : `${column} = @project`;
};

/**
 * One page of a project's (or "No project"'s) logical conversations, most recently active first, with
 * a keyset cursor; hidden and archived sessions are not listed. Throws ValidationError for a cursor this
 * function did not return.
 */
export function listConversations(db: RecallDatabase, options: ListConversationsOptions): ConversationPage {
  const limit = Math.min(Math.max(Math.floor(options.limit ?? 50), 1), 500);
  const cursor = options.cursor ? decodeCursor(options.cursor) : null;
  const params = options.projectId === null ? {} : { project: options.projectId };
  return readTransaction(db, () => {
    const base = groupSql(projectFilter(options.projectId));
    const total = prepared(db, `${base} select count(*) from conv`).pluck().get(params) as number;
    const keyset = cursor ? 'where conv.activity < @activity or (conv.activity = @activity and conv.root > @root)' : '';
    const roots = prepared(db, `${base} select root, activity from conv ${keyset} order by activity desc, root limit @limit`).all({
      ...params,
      ...(cursor ? { activity: cursor.activity, root: cursor.rootId } : {}),
      limit: limit + 1,
    }) as { root: string; activity: number }[];
    const more = roots.length > limit;
    const page = roots.slice(0, limit);
    if (page.length === 0) return { conversations: [], nextCursor: null, total };
    const members = prepared(
      db,
      `${base}, members as materialized (select id, root from tree where root in (select value from json_each(@roots)))
       select members.root as conversation_root, ${SESSION_COLUMNS} from members join sessions s on s.id = members.id order by s.started_at, s.id`,
    ).all({ ...params, roots: JSON.stringify(page.map((r) => r.root)) }) as (SessionRow & { conversation_root: string })[];
    const byRoot = new Map<string, Session[]>();
    for (const row of members) {
      const list = byRoot.get(row.conversation_root) ?? [];
      list.push(toSession(row));
      byRoot.set(row.conversation_root, list);
    }
    const last = page[page.length - 1]!;
    return {
      conversations: page.map((r) => ({ rootId: r.root, lastActivity: r.activity, sessions: byRoot.get(r.root) ?? [] })),
      nextCursor: more ? encodeCursor({ activity: last.activity, rootId: last.root }) : null,
      total,
    };
  });
}

/**
 * The logical conversation (as a sidebar item) that `sessionId` is listed under; a hidden or archived
 * session comes back alone. Throws SessionNotFoundError.
 */
export function conversationContaining(db: RecallDatabase, sessionId: string): ConversationPageItem {
  return readTransaction(db, () => {
    const own = prepared(db, `select ${SESSION_COLUMNS} from sessions s where s.id = ?`).get(sessionId) as SessionRow | undefined;
    if (!own) throw new SessionNotFoundError(sessionId);
    const session = toSession(own);
    const solo = (): ConversationPageItem => ({ rootId: session.id, lastActivity: Math.max(session.lastMessageAt ?? 0, session.startedAt), sessions: [session] });
    if (session.hidden || session.archived) return solo();
    const params = session.projectId === null ? {} : { project: session.projectId };
    const base = groupSql(projectFilter(session.projectId));
    const root = prepared(db, `${base} select root from tree where id = @id`).pluck().get({ ...params, id: sessionId }) as string | undefined;
    if (!root) return solo();
    const activity = prepared(db, `${base} select activity from conv where root = @root`).pluck().get({ ...params, root }) as number;
    const rows = prepared(db, `${base} select ${SESSION_COLUMNS} from sessions s where s.id in (select id from tree where root = @root) order by s.started_at, s.id`).all({
      ...params,
      root,
    }) as SessionRow[];
    return { rootId: root, lastActivity: activity, sessions: rows.map(toSession) };
  });
}

/**
 * Where `messagePage` reads: the oldest or newest end, centred on a message, or before/after a message id
 * (the cursors of a previous page).
 */
export type MessagePagePosition =
  | { at: 'oldest' | 'newest' }
  | { aroundMessageId: number }
  | { beforeId: number }
  | { afterId: number };

/**
 * One page of a session's visible messages (the wire's `MessagePage` without the session). Named
 * apart from @recall/rpc-contract's MessagePage, which adds the session.
 */
export interface SessionMessagePage {
  /** Visible messages in id order. */
  messages: Message[];
  /** More visible messages exist before the first / after the last one returned. */
  hasOlder: boolean;
  hasNewer: boolean;
  /** For `aroundMessageId`: whether that message is visible in this session (false: deleted, rewound or elsewhere). */
  anchorVisible?: boolean;
}

/**
 * One page (at most `limit`, 1-10,000) of a session's visible messages at `position`, in id order, with
 * whether more exist on either side. Throws SessionNotFoundError.
 */
export function messagePage(db: RecallDatabase, sessionId: string, position: MessagePagePosition, limit: number): SessionMessagePage {
  const n = Math.min(Math.max(Math.floor(limit), 1), 10_000);
  return readTransaction(db, () => {
    if (!prepared(db, 'select 1 from sessions where id = ?').get(sessionId)) throw new SessionNotFoundError(sessionId);
    const older = (id: number, k: number) =>
      (prepared(db, `select * from messages where session_id = ? and id < ? and ${VISIBLE} order by id desc limit ?`).all(sessionId, id, k) as MessageRow[]).reverse();
    const newer = (id: number, k: number) => prepared(db, `select * from messages where session_id = ? and id > ? and ${VISIBLE} order by id limit ?`).all(sessionId, id, k) as MessageRow[];
    const exists = (sql: string, id: number) => prepared(db, `select 1 from messages where session_id = ? and id ${sql} ? and ${VISIBLE} limit 1`).get(sessionId, id) !== undefined;

    let rows: MessageRow[];
    let anchorVisible: boolean | undefined;
    if ('at' in position) {
      rows = position.at === 'oldest' ? newer(0, n) : older(Number.MAX_SAFE_INTEGER, n);
    } else if ('beforeId' in position) {
      rows = older(position.beforeId, n);
    } else if ('afterId' in position) {
      rows = newer(position.afterId, n);
    } else {
      const id = position.aroundMessageId;
      const anchor = prepared(db, `select * from messages where session_id = ? and id = ? and ${VISIBLE}`).get(sessionId, id) as MessageRow | undefined;
      anchorVisible = anchor !== undefined;
      // The anchor sits in the middle; a short side gives its room to the other side.
      const room = n - (anchor ? 1 : 0);
      let before = older(id, room);
      let after = newer(id, room);
      const wantBefore = Math.floor(room / 2);
      if (before.length > wantBefore && after.length >= room - wantBefore) before = before.slice(before.length - wantBefore);
      else if (before.length > wantBefore) before = before.slice(Math.max(0, before.length - (room - after.length)));
      after = after.slice(0, room - before.length);
      rows = [...before, ...(anchor ? [anchor] : []), ...after];
    }
    if (rows.length === 0) {
      // Nothing on this side of the cursor: only the other side can have messages.
      return {
        messages: [],
        hasOlder: 'afterId' in position && exists('<=', position.afterId),
        hasNewer: 'beforeId' in position && exists('>=', position.beforeId),
        ...(anchorVisible === undefined ? {} : { anchorVisible }),
      };
    }
    return {
      messages: rows.map(toMessage),
      hasOlder: exists('<', rows[0]!.id),
      hasNewer: exists('>', rows[rows.length - 1]!.id),
      ...(anchorVisible === undefined ? {} : { anchorVisible }),
    };
  });
}
