/**
 * bench:postgres, "right after a write": real appends into the vector project (one message each,
 * planned, claimed and completed with a ready vector, as the index worker writes it — migration
 * 0014 logs it as an addition), and after each the next search through two caches, same run:
 * - `after`: the default MatrixCache (warm), which catches up by a delta (the added rows loaded
 *   inside the search's read and appended to the entry's tails);
 * - `before`: a MatrixCache with `delta: false` (warm), i.e. the previous behaviour: a miss answered
 *   by ChunkStore.search's SQL scan while the whole set is rebuilt in the background.
 * The delta search runs first, then two hits on its caught-up entry (tails scanned too), then the
 * other cache's search (it starts a rebuild that would compete with the first three), the rebuild
 * awaited, and two hits on the rebuilt entry (right after a rebuild: its garbage is collected
 * then). Both first answers are compared with ChunkStore.search's.
 */
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import { MatrixCache } from '@recall/semantic';
import { cachedChunkSearch, type CachedSearchCounters } from '@recall/semantic/internal';
import type { ChunkScope, Storage } from '@recall/storage-ports';
import { ms, stats } from './util.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Inputs of `afterWrites`: the vector project, its warm default cache, the vectors to append (recorded in `all`/`allIds`). */
export interface AfterWriteInput {
  storage: Storage;
  fingerprintId: number;
  endpoint: string;
  projectId: string;
  scope: Extract<ChunkScope, { kind: 'project' }>;
  /** The warm default cache (with deltas). */
  cache: MatrixCache;
  queries: readonly Float32Array[];
  /** One new vector per write. */
  fresh: readonly Float32Array[];
  /** The bench's rows of the project: appended vectors and their message ids are pushed here. */
  all: Float32Array[];
  allIds: number[];
}

/** The table header of `afterWrites` rows. */
export const AFTER_WRITE_HEADER = `| right after a write (one appended message with a ready vector, same run): vectors | the append (plan + claim + complete) p50 | **next search, delta (this build)** p50 (max) | next search, \`delta: false\` (before: a miss, the SQL scan answers) p50 (max) | before: background rebuild until kept p50 | the next 2 searches, delta cache (with tails) p50 | the 2 searches after the rebuild p50 | deltas / rows appended / rebuilds of the delta cache | answers equal to ChunkStore.search (delta / before) | load average (1 min) start → end |
|---|---|---|---|---|---|---|---|---|---|`;

/** Runs the writes and returns one table row (`AFTER_WRITE_HEADER`). */
export async function afterWrites(input: AfterWriteInput, target: number): Promise<string> {
  const { storage, fingerprintId: fp, scope, cache, queries } = input;
  const chunks = storage.semantic!.chunks;
  const claims = storage.semantic!.claims;
  const loadStart = loadavg()[0]!;
  const before = new MatrixCache({ delta: false });
  const counters: CachedSearchCounters = { cached: 0, adapter: 0, stale: 0 };
  await cachedChunkSearch(chunks, before, scope, fp, queries[0]!, { limit: 10 }, counters);
  await before.settled();
  const session = (await storage.sessions.create({ projectId: input.projectId })).id;
  const appendMs: number[] = [];
  const viaDelta: number[] = [];
  const viaMiss: number[] = [];
  const rebuilds: number[] = [];
  const hitDelta: number[] = [];
  const hitRebuilt: number[] = [];
  let sameDelta = 0;
  let sameBefore = 0;
  const start = cache.snapshot();
  const ids = (hits: { messageId: number }[]) => hits.map((h) => h.messageId).join(',');
  for (const [i, v] of input.fresh.entries()) {
    const t0 = performance.now();
    const content = `appended vector message ${input.all.length}`;
    const m = (await storage.messages.append(session, [{ role: 'assistant', content }])).messages[0]!;
    await chunks.plan(fp, [{ messageId: m.id, chunkIndex: 0, start: 0, end: content.length, contentHash: sha(content) }]);
    const work = await claims.claim({ fingerprintId: fp, endpoint: input.endpoint, owner: 'bench', limit: 10, leaseMs: 600_000, maxAttempts: 3, projectId: input.projectId });
    await claims.complete('bench', work.map((chunk) => ({ chunk, vector: v })));
    appendMs.push(performance.now() - t0);
    input.all.push(v);
    input.allIds.push(m.id);
    const q = queries[i % queries.length]!;
    const want = ids(await chunks.search(scope, fp, q, { limit: 10 }));
    let t = performance.now();
    const a = await cachedChunkSearch(chunks, cache, scope, fp, q, { limit: 10 }, counters);
    viaDelta.push(performance.now() - t);
    // Hits on the caught-up entry (its tails scanned too), before the other cache's rebuild runs.
    for (let h = 1; h <= 2; h++) {
      t = performance.now();
      await cachedChunkSearch(chunks, cache, scope, fp, queries[(i + h) % queries.length]!, { limit: 10 }, counters);
      hitDelta.push(performance.now() - t);
    }
    t = performance.now();
    const b = await cachedChunkSearch(chunks, before, scope, fp, q, { limit: 10 }, counters);
    viaMiss.push(performance.now() - t);
    await before.settled();
    rebuilds.push(performance.now() - t);
    if (ids(a) === want) sameDelta++;
    if (ids(b) === want) sameBefore++;
    for (let h = 1; h <= 2; h++) {
      t = performance.now();
      await cachedChunkSearch(chunks, before, scope, fp, queries[(i + h) % queries.length]!, { limit: 10 }, counters);
      hitRebuilt.push(performance.now() - t);
    }
  }
  await before.close();
  const end = cache.snapshot();
  const n = input.fresh.length;
  return `| ${target.toLocaleString('en')} | ${ms(stats(appendMs).p50)} | **${ms(stats(viaDelta).p50)} (${ms(Math.max(...viaDelta))})** | ${ms(stats(viaMiss).p50)} (${ms(Math.max(...viaMiss))}) | ${(stats(rebuilds).p50 / 1000).toFixed(2)} s | ${ms(stats(hitDelta).p50)} | ${ms(stats(hitRebuilt).p50)} | ${end.deltas - start.deltas} / ${end.deltaRows - start.deltaRows} / ${end.builds - start.builds} | ${sameDelta} / ${n}, ${sameBefore} / ${n} | ${loadStart.toFixed(1)} → ${loadavg()[0]!.toFixed(1)} |`;
}
