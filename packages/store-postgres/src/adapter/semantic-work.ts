/**
 * The embedding worker's side of ChunkStore on PostgreSQL: planning (which messages still need
 * chunk rows), a project's index counts, and the rebuild's delete. There is no dirty-session queue
 * here (SQLite's planner keeps one, filled by triggers): an edit deletes the message's chunk rows
 * (migration 0002) and moves and visibility changes rewrite the rows' scope copies (0003/0004), so
 * "a visible message of an indexed role, in a visible session of a project switched on for the
 * endpoint, without chunk rows of the fingerprint" is the whole of the remaining work — one
 * anti-join on the (fingerprint_id, message_id, …) unique index, walked in id order. Messages that
 * produce no chunk (empty, payload-only) are stepped over by a cursor kept per planning key; a pass
 * that reaches the end starts over at the next call. Several processes may plan at once: rows are
 * inserted with `on conflict do nothing`, so a message is planned once.
 */
import type { IndexCounts, PlanWorkRequest, PlanWorkResult } from '@recall/storage-ports';
import type pg from 'pg';
import { VISIBLE_SQL } from './tx.js';

/** Messages read per planning step (each step is one read and one insert statement). */
const PLAN_BATCH = 256;

/** The remaining-work condition shared by planning and the counts ($1 fingerprint, $2 endpoint, $3 roles). */
const UNPLANNED = `from messages m
  join sessions s on s.id = m.session_id
  join semantic_projects sp on sp.project_id = s.project_id and sp.enabled and sp.endpoint = $2
 where not s.hidden and m.visibility in ${VISIBLE_SQL} and m.role = any($3::text[])
   and not exists (select 1 from semantic_chunks c where c.fingerprint_id = $1 and c.message_id = m.id)`;

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
 * (triggers, migration 0004).
 */
export async function insertPendingChunks(pool: pg.Pool, fingerprintId: number, c: PendingChunkColumns): Promise<number> {
  const r = await pool.query(
    `insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, "end", content_hash, chunker_version, status, project_id, role, visibility)
     select $1, c.message_id, m.session_id, c.chunk_index, c.start, c."end", c.content_hash, f.chunker_version, 'pending', s.project_id, m.role, m.visibility
       from unnest($2::bigint[], $3::int[], $4::int[], $5::int[], $6::text[]) as c(message_id, chunk_index, start, "end", content_hash)
       join messages m on m.id = c.message_id
       join sessions s on s.id = m.session_id
       join semantic_fingerprints f on f.id = $1
     for share of s, m
     on conflict (fingerprint_id, message_id, content_hash, chunk_index) do nothing`,
    [fingerprintId, c.messageIds, c.chunkIndexes, c.starts, c.ends, c.contentHashes],
  );
  return r.rowCount ?? 0;
}

/** A planner over one pool; `cursors` remembers, per fingerprint/project, the last message id stepped over in the current pass. */
export function postgresPlanner(pool: pg.Pool): {
  planWork(request: PlanWorkRequest): Promise<PlanWorkResult>;
  indexCounts(fingerprintId: number, projectId: string, roles: readonly string[]): Promise<IndexCounts>;
  dropChunks(projectId: string | null, keepFingerprintId: number | null): Promise<number>;
} {
  const cursors = new Map<string, number>();
  return {
    async planWork(request) {
      const key = `${request.fingerprintId}\u0000${request.projectId ?? ''}`;
      const after = cursors.get(key) ?? 0;
      const params: unknown[] = [request.fingerprintId, request.endpoint, [...request.roles], after, PLAN_BATCH];
      const project = request.projectId === undefined ? '' : `and s.project_id = $${params.push(request.projectId)}`;
      const rows = (await pool.query(`select m.id, m.session_id, m.content ${UNPLANNED} and m.id > $4 ${project} order by m.id limit $5`, params)).rows as Array<{
        id: string | number;
        session_id: string;
        content: string;
      }>;
      const more = rows.length === PLAN_BATCH;
      if (more) cursors.set(key, Number(rows[rows.length - 1]!.id));
      else cursors.delete(key);
      const ids: number[] = [];
      const index: number[] = [];
      const start: number[] = [];
      const end: number[] = [];
      const hash: string[] = [];
      const sessions = new Set<string>();
      for (const r of rows) {
        const pieces = request.split(r.content);
        if (pieces.length === 0) continue;
        const h = request.hash(r.content);
        sessions.add(r.session_id);
        pieces.forEach((p, i) => {
          ids.push(Number(r.id));
          index.push(i);
          start.push(p.start);
          end.push(p.end);
          hash.push(h);
        });
      }
      let created = 0;
      if (ids.length > 0) {
        created = await insertPendingChunks(pool, request.fingerprintId, { messageIds: ids, chunkIndexes: index, starts: start, ends: end, contentHashes: hash });
      }
      return { sessionsPlanned: sessions.size, created, reused: 0, removed: 0, more };
    },

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

    async dropChunks(projectId, keepFingerprintId) {
      let deleted = 0;
      for (;;) {
        const r =
          projectId === null
            ? await pool.query('delete from semantic_chunks where id in (select id from semantic_chunks limit 5000)')
            : await pool.query('delete from semantic_chunks where id in (select c.id from semantic_chunks c join sessions s on s.id = c.session_id where s.project_id = $1 limit 5000)', [projectId]);
        deleted += r.rowCount ?? 0;
        if (!r.rowCount) break;
      }
      cursors.clear();
      if (projectId === null) await pool.query('delete from semantic_fingerprints where id is distinct from $1', [keepFingerprintId]);
      return deleted;
    },
  };
}
