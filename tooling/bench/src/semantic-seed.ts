/**
 * For `rpc-bench --semantic`: indexes the bench's seeded history with the built-in USE-lite model
 * BEFORE the gateway starts, through the same `SemanticIndex` the gateway runs (consent for every
 * project, planner, chunker, worker backfill), with the provider wrapped in the eval's on-disk
 * embedding cache (outside the repository), so the load run measures hybrid search on a fully
 * indexed database and reruns skip the model. The gateway then opens the same database with the
 * same semantic config, i.e. the same fingerprint, and finds every chunk ready.
 */
import type { RecallDatabase } from '@recall/schema';
import { createProvider, parseSemanticConfig, type SemanticIndex } from '@recall/semantic';
import { sqliteSemanticIndex } from '@recall/semantic/sqlite';
import { cachedProvider } from '@recall/eval';

/** The semantic section the bench gives the gateway (and indexes with). */
export const BENCH_SEMANTIC_CONFIG = { enabled: true, provider: 'use-lite' } as const;

export async function indexSeed(db: RecallDatabase, log: (line: string) => void): Promise<{ chunks: number; ms: number; embedded: number; cached: number }> {
  const config = parseSemanticConfig(BENCH_SEMANTIC_CONFIG)!;
  const provider = cachedProvider(createProvider(config));
  const index = sqliteSemanticIndex({ db, config, provider });
  try {
    for (const id of db.raw.prepare('select id from projects').pluck().all() as string[]) await index.enable(id);
    const t0 = performance.now();
    let last = 0;
    const result = await index.run({
      onProgress: () => {
        if (Date.now() - last < 10_000) return;
        last = Date.now();
        log(`  indexing: ${provider.stats.misses} embedded, ${provider.stats.hits} from the cache, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      },
    });
    if (!result.completed) throw new Error(`semantic backfill stopped: ${result.reason}`);
    const chunks = db.raw.prepare("select count(*) from semantic_chunks where status = 'ready'").pluck().get() as number;
    return { chunks, ms: performance.now() - t0, embedded: provider.stats.misses, cached: provider.stats.hits };
  } finally {
    await index.close();
  }
}
