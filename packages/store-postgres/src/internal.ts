/**
 * Bench-only helpers of @recall/store-postgres (`@recall/store-postgres/internal`), not part of the
 * adapter's API: a bulk writer of ready chunk rows (bench:postgres's vector seed), the optional HNSW index of one fingerprint and its approximate top-k, measured by
 * `pnpm bench:postgres` against the exact scan of ChunkStore.search.
 *
 * pgvector indexes only columns (or expressions) of a fixed dimension, and `semantic_chunks.embedding`
 * is an untyped `vector` (fingerprints of different dimensions share it). So the index is a
 * per-fingerprint PARTIAL index on a dimension-typed expression:
 * `CREATE INDEX … USING hnsw ((embedding::vector(D)) vector_cosine_ops) WHERE fingerprint_id = F`,
 * and a query uses it only when it repeats both the expression and the predicate.
 */
import type pg from 'pg';
import { hnswIndexName } from './adapter/vector-ann.js';

export { HNSW_MIN_RECALL, hnswIndexName, type HnswSettings } from './adapter/vector-ann.js';
/** ChunkStore.projectVectors' reads of one project on a given client (tests run them without row-level security too). */
export { projectVectorReads } from './adapter/vector-cache.js';
/** ChunkStore.projectVectors' allowed-set load on a given client (one binary COPY; tests and bench:postgres --load-variants). */
export { loadAllowedSet } from './adapter/vector-load.js';
/** The previous allowed-set load (a cursor, hex bytea FETCHes): the byte-for-byte reference of tests and bench:postgres --load-variants. */
export { loadAllowedSetByCursor } from './adapter/vector-load-cursor.js';
/** Ready chunk rows with their vectors in one INSERT (the rows plan + claim + complete leave; bench:postgres seeds vectors with it). */
export { insertReadyChunks, type ReadyChunkColumns } from './adapter/bulk-ready.js';
export { createHnswIndex, HNSW_SETTINGS_GRID, measureHnswRecall, closeHnswGate, type HnswMeasurement } from './adapter/hnsw-gate.js';

const int = (n: number, what: string): number => {
  if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`${what} must be a positive integer`);
  return n;
};

/** Drops the HNSW index of one fingerprint (idempotent). */
export async function dropHnswIndex(pool: pg.Pool, fingerprintId: number): Promise<void> {
  await pool.query(`drop index if exists ${hnswIndexName(int(fingerprintId, 'fingerprint id'))}`);
}

/**
 * Approximate top-k message ids of one project through the HNSW index (ef_search, optional
 * `hnsw.iterative_scan = relaxed_order` so the project filter after the index still fills k).
 * Returns the ids best first and whether the plan used the index.
 */
export async function hnswTopK(
  pool: pg.Pool,
  input: {
    fingerprintId: number;
    dims: number;
    projectId: string;
    query: Float32Array;
    k: number;
    efSearch?: number;
    /** `hnsw.iterative_scan`: true means relaxed_order (pgvector 0.8). */
    iterative?: boolean | 'off' | 'relaxed_order' | 'strict_order';
    /** `hnsw.max_scan_tuples` of an iterative scan (pgvector's default 20,000). */
    maxScanTuples?: number;
  },
): Promise<number[]> {
  const f = int(input.fingerprintId, 'fingerprint id');
  const d = int(input.dims, 'dims');
  const client = await pool.connect();
  try {
    await client.query('begin read only');
    await client.query(`set local hnsw.ef_search = ${int(input.efSearch ?? 40, 'ef_search')}`);
    const mode = input.iterative === true ? 'relaxed_order' : input.iterative === false || input.iterative === undefined ? 'off' : input.iterative;
    if (!['off', 'relaxed_order', 'strict_order'].includes(mode)) throw new RangeError('iterative must be off, relaxed_order or strict_order');
    await client.query(`set local hnsw.iterative_scan = ${mode}`);
    if (input.maxScanTuples !== undefined) await client.query(`set local hnsw.max_scan_tuples = ${int(input.maxScanTuples, 'max_scan_tuples')}`);
    const rows = (
      await client.query(
        `select c.message_id from semantic_chunks c join sessions s on s.id = c.session_id
          where c.fingerprint_id = ${f} and c.embedding is not null and s.project_id = $1
          order by c.embedding::vector(${d}) <=> $2::vector(${d}) limit ${int(input.k, 'k')}`,
        [input.projectId, `[${Array.from(input.query).join(',')}]`],
      )
    ).rows;
    await client.query('commit');
    return rows.map((r) => Number(r.message_id));
  } finally {
    client.release();
  }
}

/** Whether the planner picks the fingerprint's HNSW index for hnswTopK's query shape. */
export async function hnswPlanUsesIndex(pool: pg.Pool, input: { fingerprintId: number; dims: number; projectId: string; query: Float32Array }): Promise<boolean> {
  const f = int(input.fingerprintId, 'fingerprint id');
  const d = int(input.dims, 'dims');
  const plan = (
    await pool.query(
      `explain select c.message_id from semantic_chunks c join sessions s on s.id = c.session_id
        where c.fingerprint_id = ${f} and c.embedding is not null and s.project_id = $1
        order by c.embedding::vector(${d}) <=> $2::vector(${d}) limit 10`,
      [input.projectId, `[${Array.from(input.query).join(',')}]`],
    )
  ).rows
    .map((r) => String(r['QUERY PLAN']))
    .join('\n');
  return plan.includes(hnswIndexName(f));
}

