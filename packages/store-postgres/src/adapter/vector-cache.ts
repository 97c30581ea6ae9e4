/**
 * ChunkStore.projectVectors on PostgreSQL: the reads @recall/semantic's MatrixCache needs to keep a
 * project's allowed set in memory per gateway process and scan it there (the certified int8 pass),
 * all inside ONE scoped read transaction of the project (row-level security, tx.ts `scoped`):
 * - `plan`: the fingerprint's dimensions, the HNSW gate, and the project's generation
 *   (`semantic_generation`, migration 0013, bumped by triggers on every change that can alter the
 *   allowed set) — read first, so a bump between it and the rows only causes a rebuild next time;
 * - `load`: the allowed set (ready chunks of the fingerprint with a vector of its dimensions,
 *   visible messages, the project, visible sessions) in one statement through a cursor (one
 *   snapshot, bounded memory), each role's rows placed at their position in (message id, chunk
 *   index) order, the roles in MESSAGE_ROLES order (as the SQLite adapter's segments); vectors travel as pgvector's binary form (`vector_send`, float4 big-endian);
 * - `read`: the rescore read of the few candidates by id, which re-checks every allowed-set condition
 *   in SQL (fingerprint, ready, visible, the project on the chunk row and on its session, the session
 *   not hidden, the roles, not the caller's own live messages) on top of row-level security: a stale
 *   or wrong cache entry can name any chunk id, the read returns only chunks the search may return.
 */
import { MESSAGE_ROLES, type MessageRole } from '@recall/rpc-contract';
import type { AllowedRoleRows, AllowedSetRows, ProjectVectorReads, ProjectVectorSource, StoredChunkRow } from '@recall/storage-ports';
import type pg from 'pg';
import { hnswIndexName, HNSW_MIN_RECALL } from './vector-ann.js';
import { isBound, poolIdentity, scoped, VISIBLE_SQL, type Tx } from './tx.js';

/** Rows per FETCH of the load cursor. */
const FETCH_ROWS = 4096;

/** The allowed set's conditions on chunk row `c` and its session `s` ($1 fingerprint, $2 project). */
const ALLOWED = `c.fingerprint_id = $1 and c.status = 'ready' and c.embedding is not null and c.visibility in ${VISIBLE_SQL}
  and c.project_id = $2 and s.project_id = c.project_id and not s.hidden`;

/** pgvector's binary form (int16 dims, int16 unused, float4 big-endian each) as little-endian float32 bytes; null on other dimensions. */
function vectorBytes(binary: Buffer, dims: number): Uint8Array | null {
  if (binary.length !== 4 + dims * 4 || binary.readInt16BE(0) !== dims) return null;
  return binary.subarray(4).swap32();
}

/** The reads of one project on `tx` (inside its scoped transaction; tests also run them as the owner, without row-level security). */
export function projectVectorReads(tx: Tx, projectId: string): ProjectVectorReads {
  return {
    async plan(fingerprintId) {
      const row = (
        await tx.query(
          `select f.dims, coalesce(a.recall_at_10 >= ${HNSW_MIN_RECALL} and to_regclass($3) is not null, false) as hnsw,
                  (select g.gen from semantic_generation g where g.project_id = $2) as gen
             from semantic_fingerprints f left join semantic_ann a on a.fingerprint_id = f.id and a.project_id = $2
            where f.id = $1`,
          [fingerprintId, projectId, hnswIndexName(fingerprintId)],
        )
      ).rows[0];
      if (!row) return null;
      return { dims: Number(row.dims), hnsw: row.hnsw === true, generation: row.gen === null ? 0 : Number(row.gen) };
    },
    async load(fingerprintId, dims, maxRows, signal) {
      signal?.throwIfAborted();
      const params = [fingerprintId, projectId, dims];
      const counted = (
        await tx.query(
          `select count(*) filter (where vector_dims(c.embedding) = $3) as n, count(*) filter (where vector_dims(c.embedding) <> $3) as skipped
             from semantic_chunks c join sessions s on s.id = c.session_id where ${ALLOWED}`,
          params,
        )
      ).rows[0];
      if (Number(counted.n) > maxRows) return null;
      await tx.query(
        `declare recall_allowed_set no scroll cursor for
           with ord as materialized (
             select c.id, (row_number() over w) - 1 as pos, count(*) over (partition by c.role) as n
               from semantic_chunks c join sessions s on s.id = c.session_id
              where ${ALLOWED} and vector_dims(c.embedding) = $3
             window w as (partition by c.role order by c.message_id, c.chunk_index, c.id))
           select o.pos, o.n, c.id, c.role, c.message_id, c.session_id, c.start, c."end", c.visibility = 'live' as live, vector_send(c.embedding) as v
             from ord o join semantic_chunks c on c.id = o.id`,
        params,
      );
      const sessions: string[] = [];
      const sessionIndex = new Map<string, number>();
      const byRole = new Map<string, { seg: AllowedRoleRows; bytes: Uint8Array }>();
      let skipped = Number(counted.skipped);
      for (;;) {
        signal?.throwIfAborted(); // the transaction rolls back (tx.ts scoped)
        const rows = (await tx.query(`fetch ${FETCH_ROWS} from recall_allowed_set`)).rows;
        for (const r of rows) {
          let entry = byRole.get(r.role);
          if (!entry) {
            const n = Number(r.n);
            const vectors = new Float32Array(n * dims);
            const seg: AllowedRoleRows = {
              role: r.role as MessageRole,
              rows: n,
              vectors,
              chunkIds: new Float64Array(n),
              messageIds: new Float64Array(n),
              sessionIdx: new Int32Array(n),
              start: new Int32Array(n),
              end: new Int32Array(n),
              live: new Uint8Array(n),
            };
            byRole.set(r.role, (entry = { seg, bytes: new Uint8Array(vectors.buffer) }));
          }
          const { seg, bytes } = entry;
          const pos = Number(r.pos);
          const vector = vectorBytes(r.v as Buffer, dims);
          if (!vector || pos >= seg.rows) {
            skipped++; // cannot happen (the statement filters on the dimensions and counts its own rows)
            continue;
          }
          bytes.set(vector, pos * dims * 4);
          seg.chunkIds[pos] = Number(r.id);
          seg.messageIds[pos] = Number(r.message_id);
          let si = sessionIndex.get(r.session_id);
          if (si === undefined) {
            si = sessions.length;
            sessions.push(r.session_id as string);
            sessionIndex.set(r.session_id, si);
          }
          seg.sessionIdx[pos] = si;
          seg.start[pos] = Number(r.start);
          seg.end[pos] = Number(r.end);
          seg.live[pos] = r.live === true ? 1 : 0;
        }
        if (rows.length < FETCH_ROWS) break;
      }
      await tx.query('close recall_allowed_set');
      // Segments in MESSAGE_ROLES order, as the SQLite adapter reads them: the scan breaks exact score
      // ties by segment, then row, so both adapters' cached searches order ties alike.
      const segments = MESSAGE_ROLES.flatMap((role) => (byRole.has(role) ? [byRole.get(role)!.seg] : []));
      const out: AllowedSetRows = { sessions, segments, skipped };
      return out;
    },
    async read(fingerprintId, chunkIds, filter) {
      const out = new Map<number, StoredChunkRow>();
      if (chunkIds.length === 0) return out;
      const params: unknown[] = [fingerprintId, projectId, [...chunkIds]];
      const roles = filter.roles && filter.roles.length > 0 ? `and c.role = any($${params.push([...filter.roles])})` : '';
      const caller = filter.currentSessionId !== null ? `and not (c.session_id = $${params.push(filter.currentSessionId)} and c.visibility = 'live')` : '';
      const rows = (
        await tx.query(
          `select c.id, c.message_id, c.session_id, c.start, c."end", c.visibility = 'live' as live, vector_send(c.embedding) as v
             from semantic_chunks c join sessions s on s.id = c.session_id
            where c.id = any($3::bigint[]) and ${ALLOWED} ${roles} ${caller}`,
          params,
        )
      ).rows;
      for (const r of rows) {
        const binary = r.v as Buffer;
        if (binary.length < 4) continue;
        const vector = vectorBytes(binary, binary.readInt16BE(0));
        if (!vector) continue;
        out.set(Number(r.id), { vector, messageId: Number(r.message_id), sessionId: r.session_id as string, start: Number(r.start), end: Number(r.end), live: r.live === true });
      }
      return out;
    },
  };
}

/** ChunkStore.projectVectors of a PostgreSQL team database. */
export function postgresProjectVectors(pool: pg.Pool): ProjectVectorSource {
  return {
    identity: poolIdentity(pool),
    detached: !isBound(pool),
    withProject: (projectId, fn) => scoped(pool, { projectId }, (tx) => fn(projectVectorReads(tx, projectId))),
  };
}
