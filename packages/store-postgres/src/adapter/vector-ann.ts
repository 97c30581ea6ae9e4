/**
 * The optional HNSW path of ChunkStore.search and its gate (migration 0011's `semantic_ann`).
 *
 * pgvector indexes only columns or expressions of one dimension and `semantic_chunks.embedding` is
 * an untyped `vector` (fingerprints of different dimensions share it), so a fingerprint's index is a
 * PARTIAL index on a dimension-typed expression (`semantic_chunks_hnsw_fp<F>`, created by
 * createHnswIndex in internal.ts) and the query repeats both the expression and the predicate. It is
 * used for a project only while `semantic_ann` holds a recall@10 ≥ 0.98 for (fingerprint, project),
 * measured against the exact search with the same statement (measureHnswRecall), and the index
 * exists; the settings recorded with that recall (ef_search, hnsw.iterative_scan,
 * hnsw.max_scan_tuples) are the ones applied, transaction-locally.
 */
import type { Tx } from './tx.js';
import { firstPerMessage, type VectorHit } from './vector-certify.js';

/** The recall@10 against the exact search below which the HNSW index is not used. */
export const HNSW_MIN_RECALL = 0.98;

/** Name of the HNSW index of one fingerprint. */
export const hnswIndexName = (fingerprintId: number): string => `semantic_chunks_hnsw_fp${Math.floor(fingerprintId)}`;

/** Settings of one HNSW search (pgvector 0.8). */
export interface HnswSettings {
  efSearch: number;
  iterativeScan: 'off' | 'relaxed_order' | 'strict_order';
  maxScanTuples: number;
}

const MODES = new Set(['off', 'relaxed_order', 'strict_order']);
const int = (n: number, what: string): number => {
  if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`${what} must be a positive integer`);
  return n;
};

/** The fingerprint's dimensions and, when the gate is open for the project, the HNSW settings. */
export async function annPlan(tx: Tx, fingerprintId: number, projectId: string | null): Promise<{ dims: number; hnsw: HnswSettings | null } | null> {
  const row = (
    await tx.query(
      `select f.dims, a.ef_search, a.iterative_scan, a.max_scan_tuples,
              a.recall_at_10 >= ${HNSW_MIN_RECALL} and to_regclass($3) is not null as open
         from semantic_fingerprints f left join semantic_ann a on a.fingerprint_id = f.id and a.project_id = $2
        where f.id = $1`,
      [fingerprintId, projectId, hnswIndexName(fingerprintId)],
    )
  ).rows[0];
  if (!row) return null;
  const hnsw = row.open === true ? { efSearch: Number(row.ef_search), iterativeScan: row.iterative_scan as HnswSettings['iterativeScan'], maxScanTuples: Number(row.max_scan_tuples) } : null;
  return { dims: Number(row.dims), hnsw };
}

/**
 * The approximate top `limit` messages through the fingerprint's HNSW index, inside the caller's
 * scoped transaction: `allowed` is the exact search's allowed-set condition (the index scan is
 * filtered by it, iterative scans continue until enough rows pass), `params` its parameters with
 * the query vector's text as $2.
 */
export async function hnswRanked(tx: Tx, input: { fingerprintId: number; dims: number; settings: HnswSettings; allowed: string; params: unknown[]; limit: number }): Promise<VectorHit[]> {
  const f = int(input.fingerprintId, 'fingerprint id');
  const d = int(input.dims, 'dims');
  const s = input.settings;
  if (!MODES.has(s.iterativeScan)) throw new RangeError('iterative_scan must be off, relaxed_order or strict_order');
  // enable_seqscan off: the gate is open, so the index is wanted even where the planner's cost model
  // would pick a sequential scan and sort (small projects).
  await tx.query(
    `set local enable_seqscan = off; set local hnsw.ef_search = ${int(s.efSearch, 'ef_search')}; set local hnsw.iterative_scan = ${s.iterativeScan}; set local hnsw.max_scan_tuples = ${int(s.maxScanTuples, 'max_scan_tuples')}`,
  );
  const rows = (
    await tx.query(
      // The literal fingerprint id and `embedding is not null` repeat the partial index's predicate.
      `select c.message_id, c.session_id, c.start, c."end", c.embedding <#> $2::vector as distance
         from semantic_chunks c join sessions s on s.id = c.session_id
        where c.fingerprint_id = ${f} and c.embedding is not null and ${input.allowed}
        order by c.embedding::vector(${d}) <=> $2::vector(${d}) limit ${int(input.limit * 2, 'limit')}`,
      input.params,
    )
  ).rows;
  return firstPerMessage(rows, input.limit);
}
