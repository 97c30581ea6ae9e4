/**
 * The embedding worker's side of ChunkStore on PostgreSQL: planning (which messages still need
 * chunk rows), a project's index counts, and the rebuild's delete. Work is found through the
 * planning queue (semantic_plan_queue, migration 0009: triggers add a row in the same transaction
 * as every message insert, edit, visibility change, move or unhide in a switched-on project, and a
 * project switched on or rebuilt is queued whole for each fingerprint through
 * semantic_planned_projects), so an idle poll is two index lookups whatever the data size. A step
 * leases up to PLAN_SESSIONS queued sessions (`FOR UPDATE SKIP LOCKED`: several gateways plan at
 * once, each session by one), reads their visible messages of an indexed role that have no chunk
 * rows of the fingerprint, and inserts them — copied `ready` with the vector of their branch origin
 * (messages.origin_message_id) when the origin's ready chunks have the same content hash and the
 * same ranges (a branch costs no embedding call), else `pending`. It deletes only the queue rows it
 * leased, so a write committed meanwhile keeps its own row and is planned at the next step. A
 * session with more than PLAN_BATCH such messages is continued by the next step from a cursor kept
 * in memory while the lease is renewed (messages that produce no chunk are stepped over by it);
 * a planner that dies leaves leases that expire after PLAN_LEASE_MS. Rows are inserted with
 * `on conflict do nothing`, so a message is planned once.
 */
import { randomUUID } from 'node:crypto';
import type { IndexCounts, PlanWorkRequest, PlanWorkResult } from '@recall/storage-ports';
import type pg from 'pg';
import { nowMs, VISIBLE_SQL } from './tx.js';

/** Messages read per planning step (each step is one read and at most two insert statements). */
const PLAN_BATCH = 256;
/** Queued sessions leased per planning step. */
const PLAN_SESSIONS = 32;
/** How long a planning lease holds (a planner that died frees its sessions after this). */
const PLAN_LEASE_MS = 60_000;

/** The content hash chunk rows carry, computed by PostgreSQL (sha256 hex of the UTF-8 content, as complete() re-checks). */
export const CONTENT_HASH_SQL = (column: string): string => `encode(sha256(convert_to(${column}, 'UTF8')), 'hex')`;

/** Columns of pending chunk rows to insert (parallel arrays, one entry per chunk). */
export interface PendingChunkColumns {
  messageIds: readonly number[];
  chunkIndexes: readonly number[];
  starts: readonly number[];
  ends: readonly number[];
  contentHashes: readonly string[];
}

/**
 * Inserts pending chunk rows (existing ones kept) and returns how many were new. The scope copies
 * (project, role, visibility: migration 0003) are read in the same statement, with the sessions and
 * messages locked FOR SHARE so a move or a rewind made meanwhile waits and then rewrites them
 * (triggers, migration 0004); a row whose content hash no longer matches its message (edited since
 * it was read) is not inserted — the edit queued the session again.
 */
export async function insertPendingChunks(pool: pg.Pool, fingerprintId: number, c: PendingChunkColumns): Promise<number> {
  const r = await pool.query(
    `insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, "end", content_hash, chunker_version, status, project_id, role, visibility)
     select $1, c.message_id, m.session_id, c.chunk_index, c.start, c."end", c.content_hash, f.chunker_version, 'pending', s.project_id, m.role, m.visibility
       from unnest($2::bigint[], $3::int[], $4::int[], $5::int[], $6::text[]) as c(message_id, chunk_index, start, "end", content_hash)
       join messages m on m.id = c.message_id
       join sessions s on s.id = m.session_id
       join semantic_fingerprints f on f.id = $1
      where ${CONTENT_HASH_SQL('m.content')} = c.content_hash
     for share of s, m
     on conflict (fingerprint_id, message_id, content_hash, chunk_index) do nothing`,
    [fingerprintId, c.messageIds, c.chunkIndexes, c.starts, c.ends, c.contentHashes],
  );
  return r.rowCount ?? 0;
}

/**
 * Copies the ready chunk rows (ranges and vectors) of each message's branch origin to the message,
 * as ready rows of the same fingerprint and content hash, and returns how many rows were new; locked
 * and re-checked like insertPendingChunks (a copy edited since it was read gets nothing).
 */
async function insertReadyCopies(pool: pg.Pool, fingerprintId: number, c: { messageIds: readonly number[]; originIds: readonly number[]; contentHashes: readonly string[] }): Promise<number> {
  const r = await pool.query(
    `insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, "end", content_hash, chunker_version, embedding, status, attempts, project_id, role, visibility)
     select $1, v.message_id, m.session_id, o.chunk_index, o.start, o."end", o.content_hash, o.chunker_version, o.embedding, 'ready', 0, s.project_id, m.role, m.visibility
       from unnest($2::bigint[], $3::bigint[], $4::text[]) as v(message_id, origin_id, content_hash)
       join messages m on m.id = v.message_id
       join sessions s on s.id = m.session_id
       join semantic_chunks o on o.fingerprint_id = $1 and o.message_id = v.origin_id and o.content_hash = v.content_hash and o.status = 'ready' and o.embedding is not null
      where ${CONTENT_HASH_SQL('m.content')} = v.content_hash
     for share of s, m
     on conflict (fingerprint_id, message_id, content_hash, chunk_index) do nothing`,
    [fingerprintId, c.messageIds, c.originIds, c.contentHashes],
  );
  return r.rowCount ?? 0;
}

/** Origin chunks of a branch copy: ready, with a vector, of the same content hash. */
interface OriginChunk {
  message_id: string | number;
  chunk_index: number;
  start: number;
  end: number;
  content_hash: string;
}

/** Queue rows leased by a planning step that is continued by the next step (a session longer than PLAN_BATCH). */
interface Continuation {
  key: string;
  queueIds: number[];
  sessions: string[];
  after: number;
}

/** A planner over one pool; one step at a time (a continuation is kept in memory while its lease is renewed). */
export function postgresPlanner(pool: pg.Pool): {
  planWork(request: PlanWorkRequest): Promise<PlanWorkResult>;
  indexCounts(fingerprintId: number, projectId: string, roles: readonly string[]): Promise<IndexCounts>;
  dropChunks(projectId: string | null, keepFingerprintId: number | null): Promise<number>;
} {
  const owner = `planner:${randomUUID()}`;
  let current: Continuation | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  };

  /** Gives back the leases of a continuation that will not be continued (another project or fingerprint asked). */
  async function drop(c: Continuation): Promise<void> {
    await pool.query('update semantic_plan_queue set lease_owner = null, lease_until = null where id = any($1::bigint[]) and lease_owner = $2', [c.queueIds, owner]);
  }

  async function step(request: PlanWorkRequest): Promise<PlanWorkResult> {
    const key = `${request.fingerprintId}\u0000${request.projectId ?? ''}`;
    const now = nowMs();
    const none: PlanWorkResult = { sessionsPlanned: 0, created: 0, reused: 0, removed: 0, more: false };
    if (current !== null && current.key !== key) {
      await drop(current);
      current = null;
    }
    let work = current;
    if (work === null) {
      // Projects switched on for the endpoint whose sessions were never queued for this fingerprint
      // (switched on, rebuilt, or a new fingerprint): queue every session once.
      const projectParams: unknown[] = [request.fingerprintId, request.endpoint];
      const onlyProject = request.projectId === undefined ? '' : `and sp.project_id = $${projectParams.push(request.projectId)}`;
      await pool.query(
        `with fresh as (
           insert into semantic_planned_projects (project_id, fingerprint_id)
           select sp.project_id, $1 from semantic_projects sp
            where sp.enabled and sp.endpoint = $2 ${onlyProject}
              and not exists (select 1 from semantic_planned_projects pp where pp.project_id = sp.project_id and pp.fingerprint_id = $1)
           on conflict do nothing
           returning project_id)
         insert into semantic_plan_queue (session_id) select s.id from sessions s join fresh on fresh.project_id = s.project_id order by s.id`,
        projectParams,
      );
      // Lease up to PLAN_SESSIONS queued sessions with every committed, unleased row of each.
      const claimParams: unknown[] = [owner, now + PLAN_LEASE_MS, now, PLAN_SESSIONS];
      const inProject = request.projectId === undefined ? '' : `join sessions s on s.id = q.session_id and s.project_id = $${claimParams.push(request.projectId)}`;
      const leased = (
        await pool.query(
          `with pick as (
             select q.session_id from semantic_plan_queue q ${inProject}
              where q.lease_until is null or q.lease_until < $3
              order by q.id limit $4
              for update of q skip locked)
           update semantic_plan_queue q set lease_owner = $1, lease_until = $2
            where q.session_id in (select session_id from pick) and (q.lease_until is null or q.lease_until < $3)
           returning q.id, q.session_id`,
          claimParams,
        )
      ).rows as Array<{ id: string | number; session_id: string }>;
      if (leased.length === 0) return none;
      // Another planner that picked another row of one of these sessions at the same moment (or is
      // continuing a long one) holds a live lease on it too: such a session is left to it (at least
      // one of the two sees the other's committed lease; if both step back, a later step takes it),
      // so a session is planned by one planner at a time. Nothing left: the caller polls again later.
      const mine = [...new Set(leased.map((r) => r.session_id))];
      const taken = new Set(
        (
          await pool.query('select distinct session_id from semantic_plan_queue where session_id = any($1::text[]) and lease_owner <> $2 and lease_until >= $3', [mine, owner, now])
        ).rows.map((r) => r.session_id as string),
      );
      let queueIds = leased.map((r) => Number(r.id));
      if (taken.size > 0) {
        const given = leased.filter((r) => taken.has(r.session_id)).map((r) => Number(r.id));
        await pool.query('update semantic_plan_queue set lease_owner = null, lease_until = null where id = any($1::bigint[]) and lease_owner = $2', [given, owner]);
        queueIds = leased.filter((r) => !taken.has(r.session_id)).map((r) => Number(r.id));
      }
      const sessions = mine.filter((id) => !taken.has(id));
      if (sessions.length === 0) return none;
      work = { key, queueIds, sessions, after: 0 };
    }
    // Sessions no longer eligible (hidden, moved to a project not switched on for the endpoint, gone) are dropped from the queue.
    const eligible = new Set(
      (
        await pool.query(
          `select s.id from sessions s join semantic_projects sp on sp.project_id = s.project_id and sp.enabled and sp.endpoint = $2
            where s.id = any($1::text[]) and not s.hidden`,
          [work.sessions, request.endpoint],
        )
      ).rows.map((r) => r.id as string),
    );
    const sessions = work.sessions.filter((id) => eligible.has(id));
    const rows =
      sessions.length === 0
        ? []
        : ((
            await pool.query(
              `select m.id, m.session_id, m.content, m.origin_message_id from messages m
                where m.session_id = any($1::text[]) and m.id > $2 and m.visibility in ${VISIBLE_SQL} and m.role = any($3::text[])
                  and not exists (select 1 from semantic_chunks c where c.fingerprint_id = $4 and c.message_id = m.id)
                order by m.id limit $5`,
              [sessions, work.after, [...request.roles], request.fingerprintId, PLAN_BATCH],
            )
          ).rows as Array<{ id: string | number; session_id: string; content: string; origin_message_id: string | number | null }>);
    const full = rows.length === PLAN_BATCH;
    const pending = { messageIds: [] as number[], chunkIndexes: [] as number[], starts: [] as number[], ends: [] as number[], contentHashes: [] as string[] };
    const planned = rows
      .map((r) => ({ id: Number(r.id), origin: r.origin_message_id === null ? null : Number(r.origin_message_id), hash: request.hash(r.content), pieces: request.split(r.content) }))
      .filter((m) => m.pieces.length > 0);
    // Branch copies: the origin's ready chunks for the same content and the same ranges are copied with their vectors.
    const withOrigin = planned.filter((m) => m.origin !== null);
    const origins = new Map<number, OriginChunk[]>();
    if (withOrigin.length > 0) {
      const found = (
        await pool.query(
          `select c.message_id, c.chunk_index, c.start, c."end", c.content_hash from semantic_chunks c
            where c.fingerprint_id = $1 and c.message_id = any($2::bigint[]) and c.status = 'ready' and c.embedding is not null
            order by c.message_id, c.chunk_index`,
          [request.fingerprintId, withOrigin.map((m) => m.origin)],
        )
      ).rows as OriginChunk[];
      for (const o of found) {
        const list = origins.get(Number(o.message_id)) ?? [];
        list.push(o);
        origins.set(Number(o.message_id), list);
      }
    }
    const copies = { messageIds: [] as number[], originIds: [] as number[], contentHashes: [] as string[] };
    for (const m of planned) {
      const from = m.origin === null ? [] : (origins.get(m.origin) ?? []).filter((o) => o.content_hash === m.hash);
      const same = from.length === m.pieces.length && from.every((o, i) => Number(o.chunk_index) === i && Number(o.start) === m.pieces[i]!.start && Number(o.end) === m.pieces[i]!.end);
      if (same) {
        copies.messageIds.push(m.id);
        copies.originIds.push(m.origin!);
        copies.contentHashes.push(m.hash);
        continue;
      }
      m.pieces.forEach((p, i) => {
        pending.messageIds.push(m.id);
        pending.chunkIndexes.push(i);
        pending.starts.push(p.start);
        pending.ends.push(p.end);
        pending.contentHashes.push(m.hash);
      });
    }
    let reused = 0;
    if (copies.messageIds.length > 0) reused = await insertReadyCopies(pool, request.fingerprintId, copies);
    const created = pending.messageIds.length > 0 ? await insertPendingChunks(pool, request.fingerprintId, pending) : 0;
    if (full) {
      // More messages of these sessions: the next step continues after the last one read (lease renewed).
      work.after = Number(rows[rows.length - 1]!.id);
      current = work;
      await pool.query('update semantic_plan_queue set lease_until = $3 where id = any($1::bigint[]) and lease_owner = $2', [work.queueIds, owner, nowMs() + PLAN_LEASE_MS]);
      return { sessionsPlanned: 0, created, reused, removed: 0, more: true };
    }
    current = null;
    await pool.query('delete from semantic_plan_queue where id = any($1::bigint[]) and lease_owner = $2', [work.queueIds, owner]);
    return { sessionsPlanned: sessions.length, created, reused, removed: 0, more: true };
  }

  return {
    planWork: (request) => serial(() => step(request)),
    async indexCounts(fingerprintId, projectId, roles) {
      const byStatus = (
        await pool.query(
          `select c.status, count(*) as n from semantic_chunks c join sessions s on s.id = c.session_id
            where c.fingerprint_id = $1 and c.project_id = $2 and s.project_id = $2 and not s.hidden
              and c.visibility in ${VISIBLE_SQL} and c.role = any($3::text[])
            group by c.status`,
          [fingerprintId, projectId, [...roles]],
        )
      ).rows;
      const out = { pending: 0, ready: 0, failed: 0 };
      for (const r of byStatus) out[r.status as keyof typeof out] = Number(r.n);
      // Sessions with eligible messages still unplanned (blank messages never get rows: not counted).
      const queued = (
        await pool.query(
          `select count(distinct m.session_id) as n from messages m
             join sessions s on s.id = m.session_id
             join semantic_fingerprints f on f.id = $1
             join semantic_projects sp on sp.project_id = s.project_id and sp.enabled and sp.endpoint = f.endpoint
            where s.project_id = $3 and not s.hidden and m.visibility in ${VISIBLE_SQL} and m.role = any($2::text[]) and m.content ~ '\\S'
              and not exists (select 1 from semantic_chunks c where c.fingerprint_id = $1 and c.message_id = m.id)`,
          [fingerprintId, [...roles], projectId],
        )
      ).rows[0];
      const queuedSessions = Number(queued?.n ?? 0);
      const lastError = (
        await pool.query(
          `select last_error from semantic_chunks where fingerprint_id = $1 and project_id = $2 and status = 'failed' order by updated_at desc limit 1`,
          [fingerprintId, projectId],
        )
      ).rows[0]?.last_error as string | undefined;
      return { ...out, planned: queuedSessions === 0, queuedSessions, lastError: lastError ?? null };
    },

    dropChunks: (projectId, keepFingerprintId) => serial(async () => {
      if (current !== null) {
        await drop(current);
        current = null;
      }
      let deleted = 0;
      for (;;) {
        const r =
          projectId === null
            ? await pool.query('delete from semantic_chunks where id in (select id from semantic_chunks limit 5000)')
            : await pool.query('delete from semantic_chunks where id in (select c.id from semantic_chunks c join sessions s on s.id = c.session_id where s.project_id = $1 limit 5000)', [projectId]);
        deleted += r.rowCount ?? 0;
        if (!r.rowCount) break;
      }
      // Queued again at the next planning step (every fingerprint; see semantic_planned_projects).
      if (projectId === null) {
        await pool.query('delete from semantic_planned_projects');
        await pool.query('delete from semantic_fingerprints where id is distinct from $1', [keepFingerprintId]);
      } else await pool.query('delete from semantic_planned_projects where project_id = $1', [projectId]);
      return deleted;
    }),
  };
}
