/**
 * Logical conversations on PostgreSQL: the same edge rules as @recall/store's conversation.ts
 * (only compression and delegation edges make one conversation; branches and resets start new
 * ones), the sidebar's grouping (pages.ts's recursive tree, ported) and the browse walk
 * (recent-conversations.ts).
 */
import type { ConversationPage, ConversationPageItem, MessageRole } from '@recall/rpc-contract';
import { SessionNotFoundError, ValidationError } from '@recall/store/portable';
import type { ConversationNode, RecentConversationEntry, RecentConversationList, RecentOptions, RecentScope } from '@recall/storage-ports';
import type pg from 'pg';
import { conversationEndsOn, segmentsHeadTailOn, type ConversationEnds } from './windows.js';
import { SESSION_SELECT, toSession, VISIBLE_SQL, type Tx } from './tx.js';

type Q = Tx | pg.Pool;
const EDGES = "('compression','delegation')";
const MAX_DEPTH = 10_000;

/** The conversation root of a session (up compression/delegation edges). Throws SessionNotFoundError. */
export async function conversationRoot(q: Q, sessionId: string): Promise<string> {
  const r = await q.query(
    `with recursive up(id, parent, lineage, depth) as (
       select id, parent_session_id, lineage, 0 from sessions where id = $1
       union all
       select p.id, p.parent_session_id, p.lineage, up.depth + 1 from up join sessions p on p.id = up.parent
        where up.lineage in ${EDGES} and up.depth < ${MAX_DEPTH}
     ) cycle id set is_cycle using path
     select id from up where not is_cycle order by depth desc limit 1`,
    [sessionId],
  );
  if (r.rowCount === 0) throw new SessionNotFoundError(sessionId);
  return r.rows[0].id as string;
}

/** Every member of the logical conversation, root first then by depth. */
export async function conversationMembers(q: Q, sessionId: string): Promise<ConversationNode[]> {
  const root = await conversationRoot(q, sessionId);
  const r = await q.query(
    `with recursive conv(id, lineage, parent, depth) as (
       select id, lineage, parent_session_id, 0 from sessions where id = $1
       union
       select s.id, s.lineage, s.parent_session_id, conv.depth + 1 from sessions s join conv on s.parent_session_id = conv.id
        where s.lineage in ${EDGES} and conv.depth < ${MAX_DEPTH}
     )
     select id, lineage, parent, min(depth) as depth from conv group by id, lineage, parent order by 4, id collate "C"`,
    [root],
  );
  return r.rows.map((x) => ({ id: x.id as string, lineage: x.lineage as string, parentSessionId: (x.parent as string | null) ?? null, depth: Number(x.depth) }));
}

/** conversationRoot of many sessions in one query (one recursive walk per start); unknown ids are absent. */
export async function conversationRootsOn(q: Q, sessionIds: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (sessionIds.length === 0) return out;
  const r = await q.query(
    `with recursive up(start, id, parent, lineage, depth) as (
       select id, id, parent_session_id, lineage, 0 from sessions where id = any($1::text[])
       union all
       select up.start, p.id, p.parent_session_id, p.lineage, up.depth + 1 from up join sessions p on p.id = up.parent
        where up.lineage in ${EDGES} and up.depth < ${MAX_DEPTH}
     ) cycle id set is_cycle using path
     select distinct on (start) start, id from up where not is_cycle order by start, depth desc`,
    [[...new Set(sessionIds)]],
  );
  for (const row of r.rows) out.set(row.start as string, row.id as string);
  return out;
}

/**
 * The common table expressions of the compression-chain reads ($1 = the session ids): `up` walks
 * each id up to its chain start (cycle-safe, at most MAX_DEPTH), `starts` keeps each id's chain
 * start, `chain` walks each start down its compression children.
 */
const CHAIN_CTES = `with recursive up(start, id, parent, lineage, depth) as (
       select id, id, parent_session_id, lineage, 0 from sessions where id = any($1::text[])
       union all
       select up.start, p.id, p.parent_session_id, p.lineage, up.depth + 1 from up join sessions p on p.id = up.parent
        where up.lineage = 'compression' and up.depth < ${MAX_DEPTH}
     ) cycle id set is_cycle using path,
     starts as (select distinct on (start) start, id as chain_start from up where not is_cycle order by start, depth desc),
     chain(chain_start, id, depth, started) as (
       select id, id, 0, started_at from sessions where id in (select chain_start from starts)
       union
       select chain.chain_start, s.id, chain.depth + 1, s.started_at from sessions s join chain on s.parent_session_id = chain.id
        where s.lineage = 'compression' and chain.depth < ${MAX_DEPTH}
     )`;

/** segmentsOf of many sessions in one query (chain starts, then each chain down); unknown ids are absent. */
export async function segmentsOfMany(q: Q, sessionIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (sessionIds.length === 0) return out;
  const r = await q.query(
    `${CHAIN_CTES}
     select starts.start, chain.id from starts join chain on chain.chain_start = starts.chain_start
      order by starts.start, chain.depth, chain.started, chain.id collate "C"`,
    [[...new Set(sessionIds)]],
  );
  for (const row of r.rows) {
    const list = out.get(row.start as string);
    if (list) list.push(row.id as string);
    else out.set(row.start as string, [row.id as string]);
  }
  return out;
}

/**
 * segmentsOfMany and conversationRootsOn of the same sessions in one statement (the search tool
 * reads both for the same ids, one after the other): per known id its compression chain, in the
 * same order, and its root. Unknown ids are absent from both.
 */
export async function segmentsAndRootsOn(q: Q, sessionIds: readonly string[]): Promise<{ segments: Map<string, string[]>; roots: Map<string, string> }> {
  const segments = new Map<string, string[]>();
  const roots = new Map<string, string>();
  if (sessionIds.length === 0) return { segments, roots };
  const r = await q.query(
    `${CHAIN_CTES},
     rup(start, id, parent, lineage, depth) as (
       select id, id, parent_session_id, lineage, 0 from sessions where id = any($1::text[])
       union all
       select rup.start, p.id, p.parent_session_id, p.lineage, rup.depth + 1 from rup join sessions p on p.id = rup.parent
        where rup.lineage in ${EDGES} and rup.depth < ${MAX_DEPTH}
     ) cycle id set is_cycle using path,
     roots as (select distinct on (start) start, id as root from rup where not is_cycle order by start, depth desc)
     select roots.start, roots.root,
            array(select chain.id from starts join chain on chain.chain_start = starts.chain_start where starts.start = roots.start
                   order by chain.depth, chain.started, chain.id collate "C") as segments
       from roots`,
    [[...new Set(sessionIds)]],
  );
  for (const row of r.rows) {
    roots.set(row.start as string, row.root as string);
    const chain = row.segments as string[];
    if (chain.length > 0) segments.set(row.start as string, chain);
  }
  return { segments, roots };
}

/** A project-less session's recallable history: members reached through compression edges only. */
export async function ownHistory(q: Q, sessionId: string): Promise<string[]> {
  const members = await conversationMembers(q, sessionId);
  const byId = new Map(members.map((m) => [m.id, m]));
  return members
    .filter((m) => {
      let cur: ConversationNode | undefined = m;
      while (cur && cur.depth > 0) {
        if (cur.lineage !== 'compression') return false;
        cur = cur.parentSessionId ? byId.get(cur.parentSessionId) : undefined;
      }
      return true;
    })
    .map((m) => m.id);
}

/** The compression segments of the session's chain, in conversation order (empty for an unknown id). */
export async function segmentsOf(q: Q, sessionId: string): Promise<string[]> {
  const start = await q.query(
    `with recursive up(id, parent, lineage, depth) as (
       select id, parent_session_id, lineage, 0 from sessions where id = $1
       union all
       select p.id, p.parent_session_id, p.lineage, up.depth + 1 from up join sessions p on p.id = up.parent
        where up.lineage = 'compression' and up.depth < ${MAX_DEPTH}
     ) cycle id set is_cycle using path
     select id from up where not is_cycle order by depth desc limit 1`,
    [sessionId],
  );
  if (start.rowCount === 0) return [];
  const r = await q.query(
    `with recursive chain(id, depth, started) as (
       select id, 0, started_at from sessions where id = $1
       union
       select s.id, chain.depth + 1, s.started_at from sessions s join chain on s.parent_session_id = chain.id
        where s.lineage = 'compression' and chain.depth < ${MAX_DEPTH}
     )
     select id from chain order by depth, started, id collate "C"`,
    [start.rows[0].id],
  );
  return r.rows.map((x) => x.id as string);
}

/** pages.ts's group tree: listed sessions of a group mapped to their conversation root, with activity. */
function groupSql(projectParam: string | null): string {
  const filter = (a: string) => (projectParam === null ? `${a}.project_id is null` : `${a}.project_id = ${projectParam}`);
  const listed = (a: string) => `${filter(a)} and not ${a}.archived and not ${a}.hidden`;
  const activity = (a: string) => `greatest(coalesce((select max(m.created_at) from messages m where m.session_id = ${a}.id and m.visibility in ${VISIBLE_SQL}), 0), ${a}.started_at)`;
  return `with recursive
    tree(id, root, activity) as (
      select s.id, s.id, ${activity('s')} from sessions s
       where ${listed('s')} and not (s.lineage in ${EDGES}
         and exists (select 1 from sessions p where p.id = s.parent_session_id and ${listed('p')}))
      union
      select c.id, tree.root, ${activity('c')} from tree join sessions c on c.parent_session_id = tree.id
       where c.lineage in ${EDGES} and ${listed('c')}
    ),
    conv as (select root, max(activity) as activity from tree group by root)`;
}

/** One page of a group's logical conversations, newest activity first (keyset cursor `activity~root`). */
export async function listConversationsOn(q: Q, options: { projectId: string | null; limit?: number; cursor?: string | null }): Promise<ConversationPage> {
  const limit = Math.min(Math.max(Math.floor(options.limit ?? 50), 1), 500);
  let cursor: { activity: number; rootId: string } | null = null;
  if (options.cursor) {
    const at = options.cursor.indexOf('~');
    const activity = Number(options.cursor.slice(0, at));
    if (at <= 0 || !Number.isSafeInteger(activity) || activity < 0) throw new ValidationError(`cursor "${options.cursor.slice(0, 40)}" is not one this method returned`);
    cursor = { activity, rootId: options.cursor.slice(at + 1) };
  }
  const base = groupSql(options.projectId === null ? null : '$1');
  const p0: unknown[] = options.projectId === null ? [] : [options.projectId];
  const total = Number((await q.query(`${base} select count(*) as n from conv`, p0)).rows[0].n);
  const at = p0.length;
  const keyset = cursor ? `where conv.activity < $${at + 1} or (conv.activity = $${at + 1} and conv.root collate "C" > $${at + 2})` : '';
  const roots = (await q.query(`${base} select root, activity from conv ${keyset} order by activity desc, root collate "C" limit ${limit + 1}`, cursor ? [...p0, cursor.activity, cursor.rootId] : p0)).rows;
  const more = roots.length > limit;
  const page = roots.slice(0, limit);
  if (page.length === 0) return { conversations: [], nextCursor: null, total };
  const members = (
    await q.query(
      `${base}, members as materialized (select id, root from tree where root = any($${at + 1}))
       select members.root as conversation_root, x.* from members join (${SESSION_SELECT}) x on x.id = members.id order by x.started_at, x.id collate "C"`,
      [...p0, page.map((r) => r.root)],
    )
  ).rows;
  const byRoot = new Map<string, ReturnType<typeof toSession>[]>();
  for (const row of members) {
    const list = byRoot.get(row.conversation_root) ?? [];
    list.push(toSession(row));
    byRoot.set(row.conversation_root, list);
  }
  const last = page[page.length - 1]!;
  return {
    conversations: page.map((r) => ({ rootId: r.root as string, lastActivity: Number(r.activity), sessions: byRoot.get(r.root) ?? [] })),
    nextCursor: more ? `${Number(last.activity)}~${last.root}` : null,
    total,
  };
}

/** The sidebar item listing this session; a hidden or archived session comes back alone. */
export async function conversationContainingOn(q: Q, sessionId: string): Promise<ConversationPageItem> {
  const own = (await q.query(`${SESSION_SELECT} where s.id = $1`, [sessionId])).rows[0];
  if (!own) throw new SessionNotFoundError(sessionId);
  const session = toSession(own);
  const solo = (): ConversationPageItem => ({ rootId: session.id, lastActivity: Math.max(session.lastMessageAt ?? 0, session.startedAt), sessions: [session] });
  if (session.hidden || session.archived) return solo();
  const base = groupSql(session.projectId === null ? null : '$1');
  const p0: unknown[] = session.projectId === null ? [] : [session.projectId];
  const at = p0.length;
  const root = (await q.query(`${base} select root from tree where id = $${at + 1}`, [...p0, sessionId])).rows[0]?.root as string | undefined;
  if (!root) return solo();
  const activity = Number((await q.query(`${base} select activity from conv where root = $${at + 1}`, [...p0, root])).rows[0].activity);
  const rows = (await q.query(`${base} select x.* from (${SESSION_SELECT}) x where x.id in (select id from tree where root = $${at + 1}) order by x.started_at, x.id collate "C"`, [...p0, root])).rows;
  return { rootId: root, lastActivity: activity, sessions: rows.map(toSession) };
}

/** Bound of the browse walk, as @recall/store's MAX_SCANNED_SESSIONS. */
const MAX_SCANNED = 2_000;
const BATCH = 100;

/** Recent logical conversations of a scope (the browse shape), one per root, empty ones skipped. */
export async function recentConversationsOn(q: Q, scope: RecentScope, options: RecentOptions): Promise<RecentConversationList> {
  const limit = Math.max(1, Math.floor(options.limit));
  const seen = new Set<string>();
  const conversations: RecentConversationEntry[] = [];
  const roles: { roles?: readonly MessageRole[] } = options.roles && options.roles.length > 0 ? { roles: options.roles } : {};
  // A date range keeps only conversations with a visible message in it, quoted from inside it.
  const dates = { ...(options.since !== undefined ? { since: options.since } : {}), ...(options.until !== undefined ? { until: options.until } : {}) };
  // Roots and segments are read for a whole batch of sessions at once (two queries, not two per session).
  const roots = new Map<string, string>();
  const segmentsByRoot = new Map<string, string[]>();
  // The ends (last, first user, first message) of the next few new conversations of the batch, in one query.
  const ends = new Map<string, ConversationEnds>();
  let pending: string[] = [];
  const prefetch = async (sessionIds: readonly string[]): Promise<void> => {
    for (const [id, root] of await conversationRootsOn(q, sessionIds)) roots.set(id, root);
    const fresh = [...new Set(sessionIds.map((id) => roots.get(id)).filter((r): r is string => r !== undefined && !seen.has(r) && !segmentsByRoot.has(r)))];
    for (const [root, segments] of await segmentsOfMany(q, fresh)) segmentsByRoot.set(root, segments);
    pending = fresh.filter((r) => segmentsByRoot.has(r));
  };
  const endsOf = async (rootId: string): Promise<ConversationEnds | undefined> => {
    if (!ends.has(rootId) && pending.includes(rootId)) {
      const from = pending.indexOf(rootId);
      // Enough for the page (empty conversations are skipped, so a few more), not the whole batch.
      const next = pending.slice(from, from + Math.max(8, 2 * (limit + 1 - conversations.length)));
      for (const [root, e] of await conversationEndsOn(q, next.map((root) => ({ root, segments: segmentsByRoot.get(root)! })), { ...roles, ...dates })) ends.set(root, e);
    }
    return ends.get(rootId);
  };
  const consider = async (sessionId: string): Promise<void> => {
    const rootId = roots.get(sessionId) ?? (await conversationRoot(q, sessionId));
    if (seen.has(rootId)) return;
    seen.add(rootId);
    const segments = segmentsByRoot.get(rootId) ?? (await segmentsOf(q, rootId));
    const wantsUser = !options.roles || options.roles.length === 0 || options.roles.includes('user');
    const known = await endsOf(rootId);
    if (known) {
      if (!known.last) return;
      conversations.push({ rootId, segments, first: (wantsUser ? known.firstUser : undefined) ?? known.first ?? known.last, last: known.last });
      return;
    }
    const last = await segmentsHeadTailOn(q, segments, 0, 1, { ...roles, ...dates });
    const lastMessage = last.truncated ? last.tail[0] : last.head[last.head.length - 1];
    if (!lastMessage) return;
    const firstUser = wantsUser ? (await segmentsHeadTailOn(q, segments, 1, 0, { roles: ['user'], ...dates })).head[0] : undefined;
    const first = firstUser ?? (await segmentsHeadTailOn(q, segments, 1, 0, { ...roles, ...dates })).head[0] ?? lastMessage;
    conversations.push({ rootId, segments, first, last: lastMessage });
  };
  let exhausted = false;
  let scanned = 0;
  const dir = options.order === 'newest' ? 'desc' : 'asc';
  if (scope.kind === 'sessions') {
    const rows = (await q.query(`select id from sessions where id = any($1) and not hidden order by started_at ${dir}`, [[...scope.sessionIds]])).rows;
    await prefetch(rows.map((row) => row.id as string));
    for (const row of rows) {
      if (conversations.length > limit) break;
      await consider(row.id as string);
    }
    exhausted = true;
  } else {
    const cmp = options.order === 'newest' ? '<' : '>';
    let cursor: { id: string; started: number } | null = null;
    while (conversations.length <= limit && scanned < MAX_SCANNED) {
      const batch: Array<{ id: string; started_at: string }> = (
        await q.query(
          `select id, started_at from sessions where project_id = $1 and not hidden and not archived
             ${cursor ? `and (started_at, id collate "C") ${cmp} ($2, $3::text collate "C")` : ''}
           order by started_at ${dir}, id collate "C" ${dir} limit ${BATCH}`,
          cursor ? [scope.projectId, cursor.started, cursor.id] : [scope.projectId],
        )
      ).rows;
      await prefetch(batch.map((row) => row.id));
      let consumed = 0;
      for (const row of batch) {
        scanned++;
        consumed++;
        await consider(row.id as string);
        if (conversations.length > limit || scanned >= MAX_SCANNED) break;
      }
      if (batch.length < BATCH && consumed === batch.length) {
        exhausted = true;
        break;
      }
      const lastRow: { id: string; started_at: string } = batch[consumed - 1]!;
      cursor = { id: lastRow.id as string, started: Number(lastRow.started_at) };
    }
  }
  const scanBounded = !exhausted && conversations.length <= limit;
  return { conversations: conversations.slice(0, limit), truncated: conversations.length > limit || scanBounded, scanBounded };
}
