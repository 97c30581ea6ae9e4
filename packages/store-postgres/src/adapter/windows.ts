/**
 * Reading around an anchor on PostgreSQL, as @recall/store's windows.ts and pages.ts: windows in one
 * session, walks across compression segments (optionally only some roles), head/tail, and pages.
 * Only live and compacted messages are returned.
 */
import type { Message, MessageRole } from '@recall/rpc-contract';
import { MessageNotFoundError, SessionNotFoundError } from '@recall/store/portable';
import type { HeadAndTail, MessageSlice, PagePosition, WindowRequest, WindowSlice } from '@recall/storage-ports';
import type pg from 'pg';
import { toMessage, VISIBLE_SQL, type Tx } from './tx.js';

type Q = Tx | pg.Pool;
const VISIBLE = `visibility in ${VISIBLE_SQL}`;

/** Up to before/after visible neighbours of a visible anchor in one session (one query: anchor, earlier and later rows). */
export async function windowOn(q: Q, sessionId: string, anchorId: number, before: number, after: number): Promise<WindowSlice> {
  const rows = (
    await q.query(
      `(select *, 0 as part from messages where id = $2 and session_id = $1 and ${VISIBLE})
       union all
       (select *, -1 as part from messages where session_id = $1 and id < $2 and ${VISIBLE} order by id desc limit $3)
       union all
       (select *, 1 as part from messages where session_id = $1 and id > $2 and ${VISIBLE} order by id limit $4)`,
      [sessionId, anchorId, before + 1, after + 1],
    )
  ).rows;
  const anchor = rows.find((r) => r.part === 0);
  if (!anchor) throw new MessageNotFoundError(anchorId);
  const earlier = rows.filter((r) => r.part === -1).sort((a, b) => Number(b.id) - Number(a.id));
  const later = rows.filter((r) => r.part === 1).sort((a, b) => Number(a.id) - Number(b.id));
  return {
    messages: [...earlier.slice(0, before).reverse(), anchor, ...later.slice(0, after)].map(toMessage),
    anchorId,
    moreBefore: earlier.length > before,
    moreAfter: later.length > after,
  };
}

/** windowOn of many anchors in one query (each an index probe before and after); throws for the first invisible anchor, as windowOn. */
export async function windowsOn(q: Q, requests: readonly WindowRequest[]): Promise<WindowSlice[]> {
  if (requests.length === 0) return [];
  const rows = (
    await q.query(
      `with req as (select * from unnest($1::int[], $2::text[], $3::bigint[], $4::int[], $5::int[]) as r(ord, sid, anchor, nb, na))
       select r.ord, 0 as part, m.* from req r join messages m on m.id = r.anchor and m.session_id = r.sid and m.${VISIBLE}
       union all
       select r.ord, -1 as part, e.* from req r cross join lateral (
         select * from messages m where m.session_id = r.sid and m.id < r.anchor and m.${VISIBLE} order by m.id desc limit r.nb + 1) e
       union all
       select r.ord, 1 as part, l.* from req r cross join lateral (
         select * from messages m where m.session_id = r.sid and m.id > r.anchor and m.${VISIBLE} order by m.id limit r.na + 1) l`,
      [requests.map((_, i) => i), requests.map((r) => r.sessionId), requests.map((r) => r.anchorId), requests.map((r) => r.before), requests.map((r) => r.after)],
    )
  ).rows;
  const byOrd = requests.map(() => ({ anchor: undefined as Record<string, unknown> | undefined, earlier: [] as Record<string, unknown>[], later: [] as Record<string, unknown>[] }));
  for (const row of rows) {
    const slot = byOrd[Number(row.ord)]!;
    if (row.part === 0) slot.anchor = row;
    else (row.part === -1 ? slot.earlier : slot.later).push(row);
  }
  return requests.map((r, i) => {
    const { anchor, earlier, later } = byOrd[i]!;
    if (!anchor) throw new MessageNotFoundError(r.anchorId);
    earlier.sort((a, b) => Number(b.id) - Number(a.id));
    later.sort((a, b) => Number(a.id) - Number(b.id));
    return {
      messages: [...earlier.slice(0, r.before).reverse(), anchor, ...later.slice(0, r.after)].map(toMessage),
      anchorId: r.anchorId,
      moreBefore: earlier.length > r.before,
      moreAfter: later.length > r.after,
    };
  });
}

/** A date range of a read (epoch ms; since inclusive, until exclusive). */
interface Dates {
  since?: number;
  until?: number;
}

async function walk(q: Q, segments: readonly string[], from: { segment: number; id: number | null }, count: number, direction: 'back' | 'forward', roles: readonly MessageRole[] | undefined, dates: Dates = {}): Promise<Message[]> {
  const out: Record<string, unknown>[] = [];
  const step = direction === 'back' ? -1 : 1;
  for (let i = from.segment; i >= 0 && i < segments.length && out.length < count; i += step) {
    const params: unknown[] = [segments[i]];
    let where = `session_id = $1 and ${VISIBLE}`;
    if (i === from.segment && from.id !== null) {
      params.push(from.id);
      where += ` and id ${direction === 'back' ? '<' : '>'} $${params.length}`;
    }
    if (roles && roles.length > 0) {
      params.push([...roles]);
      where += ` and role = any($${params.length})`;
    }
    if (dates.since !== undefined && Number.isFinite(dates.since)) {
      params.push(Math.floor(dates.since));
      where += ` and created_at >= $${params.length}`;
    }
    if (dates.until !== undefined && Number.isFinite(dates.until)) {
      params.push(Math.floor(dates.until));
      where += ` and created_at < $${params.length}`;
    }
    params.push(count - out.length);
    out.push(...(await q.query(`select * from messages where ${where} order by id ${direction === 'back' ? 'desc' : 'asc'} limit $${params.length}`, params)).rows);
  }
  return (direction === 'back' ? out.reverse() : out).map(toMessage);
}

/** The window around an anchor over ordered compression segments; the anchor is kept whatever the roles. */
export async function segmentWindowOn(q: Q, segments: readonly string[], anchorId: number, before: number, after: number, options: { roles?: readonly MessageRole[] } = {}): Promise<WindowSlice> {
  const anchor = (await q.query(`select * from messages where id = $1 and ${VISIBLE}`, [anchorId])).rows[0];
  const at = anchor ? segments.indexOf(anchor.session_id as string) : -1;
  if (!anchor || at < 0) throw new MessageNotFoundError(anchorId);
  const earlier = await walk(q, segments, { segment: at, id: anchorId }, before + 1, 'back', options.roles);
  const later = await walk(q, segments, { segment: at, id: anchorId }, after + 1, 'forward', options.roles);
  return {
    messages: [...earlier.slice(earlier.length > before ? 1 : 0), toMessage(anchor), ...later.slice(0, after)],
    anchorId,
    moreBefore: earlier.length > before,
    moreAfter: later.length > after,
  };
}

/** Head and tail of the segments read as one sequence. */
export async function segmentsHeadTailOn(q: Q, segments: readonly string[], head: number, tail: number, options: { roles?: readonly MessageRole[]; since?: number; until?: number } = {}): Promise<HeadAndTail> {
  const first = await walk(q, segments, { segment: 0, id: null }, head + tail + 1, 'forward', options.roles, options);
  if (first.length <= head + tail) return { head: first, tail: [], truncated: false };
  const last = await walk(q, segments, { segment: segments.length - 1, id: null }, tail, 'back', options.roles, options);
  return { head: first.slice(0, head), tail: last, truncated: true };
}

/** The ends of one conversation's segments read as one sequence: its last, first user and first visible messages (see conversationEndsOn). */
export interface ConversationEnds {
  last: Message | undefined;
  firstUser: Message | undefined;
  first: Message | undefined;
}

/**
 * For many conversations at once (one query), what recentConversations reads of each with three
 * segmentsHeadTail calls: the last visible message of the segments (of `roles`, in the range), the
 * first user message (in the range) and the first visible message (of `roles`, in the range). Each
 * end is an index probe per segment (messages_session_idx), the segments in their order.
 */
export async function conversationEndsOn(q: Q, conversations: ReadonlyArray<{ root: string; segments: readonly string[] }>, options: { roles?: readonly MessageRole[]; since?: number; until?: number } = {}): Promise<Map<string, ConversationEnds>> {
  const out = new Map<string, ConversationEnds>();
  if (conversations.length === 0) return out;
  const rootOrd: number[] = [];
  const segOrd: number[] = [];
  const sid: string[] = [];
  conversations.forEach((c, i) => c.segments.forEach((id, j) => (rootOrd.push(i), segOrd.push(j), sid.push(id))));
  const params: unknown[] = [rootOrd, segOrd, sid];
  let range = '';
  if (options.since !== undefined && Number.isFinite(options.since)) {
    params.push(Math.floor(options.since));
    range += ` and m.created_at >= $${params.length}`;
  }
  if (options.until !== undefined && Number.isFinite(options.until)) {
    params.push(Math.floor(options.until));
    range += ` and m.created_at < $${params.length}`;
  }
  let roleFilter = '';
  if (options.roles && options.roles.length > 0) {
    params.push([...options.roles]);
    roleFilter = ` and m.role = any($${params.length})`;
  }
  const end = (filter: string, dir: 'asc' | 'desc') =>
    `(select e.x from segs s cross join lateral (
        select row_to_json(m) as x from messages m where m.session_id = s.sid and m.${VISIBLE}${filter}${range} order by m.id ${dir} limit 1
      ) e where s.root_ord = r.root_ord order by s.seg_ord ${dir} limit 1)`;
  const rows = (
    await q.query(
      `with segs as (select * from unnest($1::int[], $2::int[], $3::text[]) as t(root_ord, seg_ord, sid)),
       r as (select distinct root_ord from segs)
       select r.root_ord, ${end(roleFilter, 'desc')} as last, ${end(" and m.role = 'user'", 'asc')} as first_user, ${end(roleFilter, 'asc')} as first from r`,
      params,
    )
  ).rows;
  const message = (x: unknown) => (x ? toMessage(x as Record<string, unknown>) : undefined);
  for (const row of rows) out.set(conversations[Number(row.root_ord)]!.root, { last: message(row.last), firstUser: message(row.first_user), first: message(row.first) });
  return out;
}

/** One page of a session's visible messages (messagePage's rules). */
export async function pageOn(q: Q, sessionId: string, position: PagePosition, limit: number): Promise<MessageSlice> {
  const n = Math.min(Math.max(Math.floor(limit), 1), 10_000);
  if (!(await q.query('select 1 from sessions where id = $1', [sessionId])).rowCount) throw new SessionNotFoundError(sessionId);
  const older = async (id: number, k: number) => (await q.query(`select * from messages where session_id = $1 and id < $2 and ${VISIBLE} order by id desc limit $3`, [sessionId, id, k])).rows.reverse();
  const newer = async (id: number, k: number) => (await q.query(`select * from messages where session_id = $1 and id > $2 and ${VISIBLE} order by id limit $3`, [sessionId, id, k])).rows;
  const exists = async (op: string, id: number) => ((await q.query(`select 1 from messages where session_id = $1 and id ${op} $2 and ${VISIBLE} limit 1`, [sessionId, id])).rowCount ?? 0) > 0;
  let rows: Record<string, unknown>[];
  let anchorVisible: boolean | undefined;
  if ('at' in position) rows = position.at === 'oldest' ? await newer(0, n) : await older(Number.MAX_SAFE_INTEGER, n);
  else if ('beforeId' in position) rows = await older(position.beforeId, n);
  else if ('afterId' in position) rows = await newer(position.afterId, n);
  else {
    const id = position.aroundMessageId;
    const anchor = (await q.query(`select * from messages where session_id = $1 and id = $2 and ${VISIBLE}`, [sessionId, id])).rows[0];
    anchorVisible = anchor !== undefined;
    const room = n - (anchor ? 1 : 0);
    let before = await older(id, room);
    let after = await newer(id, room);
    const wantBefore = Math.floor(room / 2);
    if (before.length > wantBefore && after.length >= room - wantBefore) before = before.slice(before.length - wantBefore);
    else if (before.length > wantBefore) before = before.slice(Math.max(0, before.length - (room - after.length)));
    after = after.slice(0, room - before.length);
    rows = [...before, ...(anchor ? [anchor] : []), ...after];
  }
  const extra = anchorVisible === undefined ? {} : { anchorVisible };
  if (rows.length === 0) {
    return {
      messages: [],
      hasOlder: 'afterId' in position && (await exists('<=', position.afterId)),
      hasNewer: 'beforeId' in position && (await exists('>=', position.beforeId)),
      ...extra,
    };
  }
  return {
    messages: rows.map(toMessage),
    hasOlder: await exists('<', Number(rows[0]!.id)),
    hasNewer: await exists('>', Number(rows[rows.length - 1]!.id)),
    ...extra,
  };
}
