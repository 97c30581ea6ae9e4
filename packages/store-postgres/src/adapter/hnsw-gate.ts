/**
 * Measuring and recording the HNSW gate of one (fingerprint, project) in `semantic_ann` (migration
 * 0011): builds the fingerprint's partial HNSW index when missing, measures recall@10 against the
 * exact search with the statement ChunkStore.search runs (vector-ann.ts), and records the settings.
 * Used by `recall index hnsw` (public entry) and `pnpm bench:postgres` (through ./internal).
 */
import type pg from 'pg';
import { postgresChunks } from './semantic.js';
import { scoped, VISIBLE_SQL } from './tx.js';
import { HNSW_MIN_RECALL, hnswIndexName, hnswRanked, type HnswSettings } from './vector-ann.js';

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

/** Settings tried by measureHnswRecall, cheapest first (pgvector 0.8 iterative scans). */
export const HNSW_SETTINGS_GRID: readonly HnswSettings[] = [
  { efSearch: 40, iterativeScan: 'relaxed_order', maxScanTuples: 20_000 },
  { efSearch: 100, iterativeScan: 'relaxed_order', maxScanTuples: 20_000 },
  { efSearch: 200, iterativeScan: 'relaxed_order', maxScanTuples: 20_000 },
  { efSearch: 400, iterativeScan: 'relaxed_order', maxScanTuples: 40_000 },
  { efSearch: 800, iterativeScan: 'relaxed_order', maxScanTuples: 40_000 },
];

/** Where measureHnswRecall is: building the index, answering the queries exactly, or through the index with `settings`. */
export interface HnswProgress {
  stage: 'building' | 'exact' | 'hnsw';
  /** Queries answered in this stage so far, of `total` (building: 0 of 1). */
  done: number;
  total: number;
  settings?: HnswSettings;
}

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
  input: { fingerprintId: number; dims: number; projectId: string; queries?: readonly Float32Array[]; grid?: readonly HnswSettings[]; onProgress?: (progress: HnswProgress) => void },
): Promise<HnswMeasurement> {
  const f = int(input.fingerprintId, 'fingerprint id');
  const d = int(input.dims, 'dims');
  const progress = input.onProgress ?? (() => {});
  progress({ stage: 'building', done: 0, total: 1 });
  await createHnswIndex(pool, f, d);
  await pool.query('delete from semantic_ann where fingerprint_id = $1 and project_id = $2', [f, input.projectId]);
  const queries = input.queries ?? (await sampleQueries(pool, f, input.projectId, 50));
  const chunks = postgresChunks(pool);
  const scope = { kind: 'project' as const, projectId: input.projectId, currentSessionId: null };
  const truth: number[][] = [];
  for (const q of queries) {
    progress({ stage: 'exact', done: truth.length, total: queries.length });
    truth.push((await chunks.search(scope, f, q, { limit: 10 })).map((h) => h.messageId));
  }
  const allowed = `c.fingerprint_id = $1 and c.status = 'ready' and not s.hidden and c.visibility in ${VISIBLE_SQL} and c.project_id = $3 and s.project_id = c.project_id`;
  const tried: HnswMeasurement['tried'] = [];
  for (const settings of input.grid ?? HNSW_SETTINGS_GRID) {
    let hit = 0;
    for (const [i, q] of queries.entries()) {
      progress({ stage: 'hnsw', done: i, total: queries.length, settings });
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
