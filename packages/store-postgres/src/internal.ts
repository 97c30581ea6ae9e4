/**
 * Bench-only helpers of @recall/store-postgres (`@recall/store-postgres/internal`), not part of the
 * adapter's API: the optional HNSW index of one fingerprint and its approximate top-k, measured by
 * `pnpm bench:postgres` against the exact scan of ChunkStore.search.
 *
 * pgvector indexes only columns (or expressions) of a fixed dimension, and `semantic_chunks.embedding`
 * is an untyped `vector` (fingerprints of different dimensions share it). So the index is a
 * per-fingerprint PARTIAL index on a dimension-typed expression:
 * `CREATE INDEX … USING hnsw ((embedding::vector(D)) vector_cosine_ops) WHERE fingerprint_id = F`,
 * and a query uses it only when it repeats both the expression and the predicate.
 */
import type pg from 'pg';
import { postgresChunks } from './adapter/semantic.js';
import { scoped, VISIBLE_SQL } from './adapter/tx.js';
import { HNSW_MIN_RECALL, hnswIndexName, hnswRanked, type HnswSettings } from './adapter/vector-ann.js';

export { HNSW_MIN_RECALL, hnswIndexName, type HnswSettings } from './adapter/vector-ann.js';

const int = (n: number, what: string): number => {
  if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`${what} must be a positive integer`);
  return n;
};

/** Builds the HNSW index of one fingerprint (m = 16, ef_construction = 64, pgvector's defaults). */
export async function createHnswIndex(pool: pg.Pool, fingerprintId: number, dims: number, options: { m?: number; efConstruction?: number } = {}): Promise<void> {
  const f = int(fingerprintId, 'fingerprint id');
  const d = int(dims, 'dims');
  await pool.query(
    `create index if not exists ${hnswIndexName(f)} on semantic_chunks using hnsw ((embedding::vector(${d})) vector_cosine_ops)
       with (m = ${int(options.m ?? 16, 'm')}, ef_construction = ${int(options.efConstruction ?? 64, 'ef_construction')})
       where fingerprint_id = ${f} and embedding is not null`,
  );
}

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

/** Settings tried by measureHnswRecall, cheapest first (pgvector 0.8 iterative scans). */
export const HNSW_SETTINGS_GRID: readonly HnswSettings[] = [
  { efSearch: 40, iterativeScan: 'relaxed_order', maxScanTuples: 20_000 },
  { efSearch: 100, iterativeScan: 'relaxed_order', maxScanTuples: 20_000 },
  { efSearch: 200, iterativeScan: 'relaxed_order', maxScanTuples: 20_000 },
  { efSearch: 400, iterativeScan: 'relaxed_order', maxScanTuples: 40_000 },
  { efSearch: 800, iterativeScan: 'relaxed_order', maxScanTuples: 40_000 },
];

/** What measureHnswRecall found and recorded. */
export interface HnswMeasurement {
  /** The settings recorded: the first of the grid reaching the minimum, else the best one. */
  settings: HnswSettings;
  recallAt10: number;
  /** recall@10 of every setting tried, in order. */
  tried: Array<{ settings: HnswSettings; recallAt10: number }>;
  /** Whether ChunkStore.search now uses the index for the project (recall ≥ HNSW_MIN_RECALL). */
  open: boolean;
}

/**
 * Measures the recall@10 of the fingerprint's HNSW index in one project against the exact search
 * (ChunkStore.search with the gate closed) with the statement the search runs, and records it in
 * `semantic_ann`: the first setting of `grid` whose recall reaches HNSW_MIN_RECALL opens the gate,
 * else the best one is recorded with its recall and the gate stays closed. `queries` default: 50
 * midpoints of two random stored vectors of the project. Builds the index when it is missing.
 */
export async function measureHnswRecall(
  pool: pg.Pool,
  input: { fingerprintId: number; dims: number; projectId: string; queries?: readonly Float32Array[]; grid?: readonly HnswSettings[] },
): Promise<HnswMeasurement> {
  const f = int(input.fingerprintId, 'fingerprint id');
  const d = int(input.dims, 'dims');
  await createHnswIndex(pool, f, d);
  await pool.query('delete from semantic_ann where fingerprint_id = $1 and project_id = $2', [f, input.projectId]);
  const queries = input.queries ?? (await sampleQueries(pool, f, input.projectId, 50));
  const chunks = postgresChunks(pool);
  const scope = { kind: 'project' as const, projectId: input.projectId, currentSessionId: null };
  const truth: number[][] = [];
  for (const q of queries) truth.push((await chunks.search(scope, f, q, { limit: 10 })).map((h) => h.messageId));
  const allowed = `c.fingerprint_id = $1 and c.status = 'ready' and not s.hidden and c.visibility in ${VISIBLE_SQL} and c.project_id = $3 and s.project_id = c.project_id`;
  const tried: HnswMeasurement['tried'] = [];
  for (const settings of input.grid ?? HNSW_SETTINGS_GRID) {
    let hit = 0;
    for (const [i, q] of queries.entries()) {
      const got = await scoped(pool, { projectId: input.projectId }, (tx) => hnswRanked(tx, { fingerprintId: f, dims: d, settings, allowed, params: [f, `[${Array.from(q).join(',')}]`, input.projectId], limit: 10 }));
      const want = new Set(truth[i]);
      hit += want.size === 0 ? 1 : got.filter((h) => want.has(h.messageId)).length / want.size;
    }
    tried.push({ settings, recallAt10: queries.length === 0 ? 0 : hit / queries.length });
    if (tried[tried.length - 1]!.recallAt10 >= HNSW_MIN_RECALL) break;
  }
  const best = tried.find((t) => t.recallAt10 >= HNSW_MIN_RECALL) ?? [...tried].sort((a, b) => b.recallAt10 - a.recallAt10)[0]!;
  const count = Number((await pool.query("select count(*) as n from semantic_chunks where fingerprint_id = $1 and project_id = $2 and status = 'ready'", [f, input.projectId])).rows[0].n);
  await pool.query(
    `insert into semantic_ann (fingerprint_id, project_id, ef_search, iterative_scan, max_scan_tuples, recall_at_10, queries, chunks, measured_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [f, input.projectId, best.settings.efSearch, best.settings.iterativeScan, best.settings.maxScanTuples, best.recallAt10, queries.length, count, Date.now()],
  );
  return { settings: best.settings, recallAt10: best.recallAt10, tried, open: best.recallAt10 >= HNSW_MIN_RECALL };
}

/** Closes the HNSW gate of one project (the exact search again); the index stays. */
export async function closeHnswGate(pool: pg.Pool, fingerprintId: number, projectId: string): Promise<void> {
  await pool.query('delete from semantic_ann where fingerprint_id = $1 and project_id = $2', [int(fingerprintId, 'fingerprint id'), projectId]);
}

/** `count` unit midpoints of two random stored vectors of the project (in the data's distribution, equal to none). */
async function sampleQueries(pool: pg.Pool, fingerprintId: number, projectId: string, count: number): Promise<Float32Array[]> {
  const rows = (
    await pool.query(
      `select embedding::text as e from semantic_chunks where fingerprint_id = $1 and project_id = $2 and status = 'ready' and embedding is not null order by random() limit $3`,
      [fingerprintId, projectId, count * 2],
    )
  ).rows.map((r) => Float32Array.from(JSON.parse(r.e as string) as number[]));
  const out: Float32Array[] = [];
  for (let i = 0; i + 1 < rows.length; i += 2) {
    const m = rows[i]!.map((x, j) => x + rows[i + 1]![j]!);
    const n = Math.hypot(...m) || 1;
    out.push(m.map((x) => x / n));
  }
  return out;
}
