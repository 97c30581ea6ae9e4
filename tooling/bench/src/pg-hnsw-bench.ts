/**
 * The HNSW part of `pnpm bench:postgres`: build the index over a project's vectors, time top-10 at
 * each setting of HNSW_GRID with its recall@10 against the exact answers, then measure the gate
 * (measureHnswRecall, recorded in semantic_ann) and ChunkStore.search with it, close it again and drop the index.
 * Returns the Markdown rows the bench prints. A bench module, not a test.
 */
import type { ChunkStore } from '@recall/storage-ports';
import { closeHnswGate, createHnswIndex, dropHnswIndex, hnswPlanUsesIndex, hnswTopK, measureHnswRecall } from '@recall/store-postgres/internal';
import { ms, stats } from './util.js';

/** HNSW settings measured: ef_search, hnsw.iterative_scan, hnsw.max_scan_tuples. */
export const HNSW_GRID: ReadonlyArray<readonly [number, 'off' | 'relaxed_order' | 'strict_order', number]> = [
  [40, 'off', 20_000],
  [40, 'relaxed_order', 20_000],
  [100, 'relaxed_order', 20_000],
  [200, 'relaxed_order', 20_000],
  [400, 'relaxed_order', 20_000],
  [200, 'strict_order', 20_000],
  [400, 'strict_order', 40_000],
  [800, 'relaxed_order', 40_000],
];

/** What hnswRows() measures over: the project, its exact answers and the exact scan's p50 (for the ratio). */
export interface HnswBenchInput {
  fingerprintId: number;
  projectId: string;
  dims: number;
  /** The vector count, for the rows' first column. */
  target: number;
  queries: readonly Float32Array[];
  /** The exact top-10 message ids of each query. */
  truth: readonly (readonly number[])[];
  scanP50: number;
  progress: (label: string) => void;
}

/** Builds, measures and closes the HNSW index of one project (see the module header). */
export async function hnswRows(pool: Parameters<typeof createHnswIndex>[0], chunks: ChunkStore, o: HnswBenchInput): Promise<{ settings: string[]; gate: string }> {
  const settings: string[] = [];
  let gate = '';
  const scope = { kind: 'project' as const, projectId: o.projectId, currentSessionId: null };
  o.progress(`building HNSW over ${o.target.toLocaleString('en')} vectors`);
  await dropHnswIndex(pool, o.fingerprintId);
  const tb = performance.now();
  await createHnswIndex(pool, o.fingerprintId, o.dims);
  const build = (performance.now() - tb) / 1000;
  const used = await hnswPlanUsesIndex(pool, { fingerprintId: o.fingerprintId, dims: o.dims, projectId: o.projectId, query: o.queries[0]! });
  for (const [ef, iterative, maxScan] of HNSW_GRID) {
    const samples: number[] = [];
    let hit = 0;
    for (const [i, q] of o.queries.entries()) {
      const t = performance.now();
      const ids = await hnswTopK(pool, { fingerprintId: o.fingerprintId, dims: o.dims, projectId: o.projectId, query: q, k: 10, efSearch: ef, iterative, maxScanTuples: maxScan });
      samples.push(performance.now() - t);
      const want = new Set(o.truth[i]);
      hit += ids.filter((id) => want.has(id)).length / Math.max(1, want.size);
    }
    const s = stats(samples);
    settings.push(`| ${o.target.toLocaleString('en')} | ${build.toFixed(1)} s | ${used ? 'yes' : 'NO'} | ${ef} | ${iterative} | ${maxScan} | ${ms(s.p50)} / ${ms(s.p95)} | ${(hit / o.queries.length).toFixed(3)} |`);
  }
  // The gate: measured on queries of its own (midpoints of stored vectors), recorded in
  // semantic_ann; ChunkStore.search then uses the index only if that recall is ≥ 0.98.
  o.progress(`measuring the HNSW gate over ${o.target.toLocaleString('en')} vectors`);
  const recorded = await measureHnswRecall(pool, { fingerprintId: o.fingerprintId, dims: o.dims, projectId: o.projectId });
  const gated: number[] = [];
  let gatedHit = 0;
  for (const [i, q] of o.queries.entries()) {
    const t = performance.now();
    const ids = (await chunks.search(scope, o.fingerprintId, q, { limit: 10 })).map((h) => h.messageId);
    gated.push(performance.now() - t);
    const want = new Set(o.truth[i]);
    gatedHit += ids.filter((id) => want.has(id)).length / Math.max(1, want.size);
  }
  const g = stats(gated);
  const tried = recorded.tried.map((t) => `ef ${t.settings.efSearch} ${t.settings.iterativeScan} ${t.settings.maxScanTuples}: ${t.recallAt10.toFixed(3)}`).join('; ');
  gate = `| ${o.target.toLocaleString('en')} | ${tried} | ef ${recorded.settings.efSearch}, ${recorded.settings.iterativeScan} (${recorded.recallAt10.toFixed(3)}) | ${recorded.open ? 'open: HNSW' : 'closed: exact'} | ${ms(g.p50)} / ${ms(g.p95)} (${(g.p50 / o.scanP50).toFixed(1)}× scan) | ${(gatedHit / o.queries.length).toFixed(3)} |`;
  await closeHnswGate(pool, o.fingerprintId, o.projectId);
  // Dropped again: a next, larger --vectors size would otherwise insert its seed into the graph
  // (measured: 20k rows in ~70 s instead of ~11 s on the way from 100k to 1M) before rebuilding it.
  await dropHnswIndex(pool, o.fingerprintId);
  return { settings, gate };
}
