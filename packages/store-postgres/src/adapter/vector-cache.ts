/**
 * ChunkStore.projectVectors on PostgreSQL: the reads @recall/semantic's MatrixCache needs to keep a
 * project's allowed set in memory per gateway process and scan it there (the certified int8 pass),
 * all inside ONE scoped read transaction of the project (row-level security, tx.ts `scoped`):
 * - `plan`: the fingerprint's dimensions, the HNSW gate, and the project's generation
 *   (`semantic_generation`, migration 0013, bumped by triggers on every change that can alter the
 *   allowed set) and `rebuild_gen` as `additionsFrom` (migration 0014: since it, only logged
 *   additions) — read first, so a bump between it and the rows only causes a rebuild next time;
 * - `load`: the allowed set (ready chunks of the fingerprint with a vector of its dimensions,
 *   visible messages, the project, visible sessions) in one binary COPY (one snapshot, bounded
 *   memory; vector-load.ts), each role's rows in (message id, chunk id) order, the roles in
 *   MESSAGE_ROLES order (as the SQLite adapter's segments), then the generation once more
 *   (`generationAfter`: unchanged = the rows are exactly the set at plan's generation);
 * - `loadAdded`: the rows added since a generation (vector-delta.ts), for a cache catching up;
 * - `read`: the rescore read of the few candidates by id, which re-checks every allowed-set condition
 *   in SQL (fingerprint, ready, visible, the project on the chunk row and on its session, the session
 *   not hidden, the roles, not the caller's own live messages) on top of row-level security: a stale
 *   or wrong cache entry can name any chunk id, the read returns only chunks the search may return.
 */
import type { ProjectVectorReads, ProjectVectorSource, StoredChunkRow } from '@recall/storage-ports';
import type pg from 'pg';
import { hnswIndexName, HNSW_MIN_RECALL } from './vector-ann.js';
import { isBound, poolIdentity, scoped, type Tx } from './tx.js';
import { loadAddedRows } from './vector-delta.js';
import { ALLOWED, loadAllowedSet, vectorBytes } from './vector-load.js';

/** The reads of one project on `tx` (inside its scoped transaction; tests also run them as the owner, without row-level security). */
export function projectVectorReads(tx: Tx, projectId: string): ProjectVectorReads {
  return {
    async plan(fingerprintId) {
      const row = (
        await tx.query(
          `select f.dims, coalesce(a.recall_at_10 >= ${HNSW_MIN_RECALL} and to_regclass($3) is not null, false) as hnsw,
                  g.gen, g.rebuild_gen
             from semantic_fingerprints f left join semantic_ann a on a.fingerprint_id = f.id and a.project_id = $2
             left join semantic_generation g on g.project_id = $2
            where f.id = $1`,
          [fingerprintId, projectId, hnswIndexName(fingerprintId)],
        )
      ).rows[0];
      if (!row) return null;
      // No row yet: nothing was ever bumped, so every change to come is logged (additionsFrom 0).
      return { dims: Number(row.dims), hnsw: row.hnsw === true, generation: row.gen === null ? 0 : Number(row.gen), additionsFrom: row.rebuild_gen === null ? 0 : Number(row.rebuild_gen) };
    },
    async load(fingerprintId, dims, maxRows, signal) {
      const rows = await loadAllowedSet(tx, projectId, fingerprintId, dims, maxRows, signal);
      if (!rows) return null;
      // Read again after the rows: equal to plan's value means no change committed in between.
      const after = (await tx.query('select gen from semantic_generation where project_id = $1', [projectId])).rows[0];
      return { ...rows, generationAfter: after ? Number(after.gen) : 0 };
    },
    loadAdded: (fingerprintId, dims, after, upTo, maxRows) => loadAddedRows(tx, projectId, fingerprintId, dims, after, upTo, maxRows),
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
