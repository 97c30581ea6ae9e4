/**
 * Child process of `pnpm bench:vector` (the "restart"): opens a profile database the bench wrote,
 * creates a fresh `MatrixCache` in the given mode, and times the first semantic scan (the cold
 * cache: reading the allowed set from SQLite, quantising, scanning) and then warm scans, through
 * the same `searchScope` the search source calls (the cold figure includes opening the database). Prints one JSON line: timings, RSS before and
 * after the cache was built (after a GC, so the float32 rows read for quantising are not counted
 * once dropped), cache bytes, int8 statistics and the hits (for the parent's identity check).
 * argv: dbPath projectId fingerprintId dims queriesFile k mode(sqlite|memory|f32)
 */
import { readFileSync } from 'node:fs';
import { openDatabase } from '@recall/schema';
import { MatrixCache } from '@recall/semantic';
import { loadUsearch } from '@recall/semantic/internal';
import { searchScope } from '@recall/semantic/sqlite/internal';
import { exitOnHelp } from './util.js';

exitOnHelp('Usage: node vector-profile-child.js DB PROJECT FINGERPRINT DIMS QUERIES_FILE K sqlite|memory|f32   (run by pnpm bench:vector)');

const [dbPath, projectId, fp, dimsText, queriesFile, kText, mode] = process.argv.slice(2) as [string, string, string, string, string, string, 'sqlite' | 'memory' | 'f32'];
const dims = Number(dimsText);
const k = Number(kText);
const raw = readFileSync(queriesFile);
const all = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
const queries = Array.from({ length: all.length / dims }, (_, i) => all.slice(i * dims, (i + 1) * dims));
const gc = (globalThis as { gc?: () => void }).gc;
let t = performance.now();
const db = openDatabase(dbPath);
const cache = new MatrixCache({ maxBytes: 16 * 1024 ** 3, rescoreFrom: mode === 'sqlite' ? 'sqlite' : 'memory', int8: mode !== 'f32' });
const scope = { kind: 'project' as const, projectId, currentSessionId: null };
const run = (q: Float32Array) => searchScope(db, cache, scope, Number(fp), dims, q, { limit: k });
const first = run(queries[0]!);
const coldMs = performance.now() - t;
// Baseline for the cache's RSS: the same process with everything loaded but no cache entry.
cache.clear();
gc?.();
loadUsearch();
searchScope(db, new MatrixCache(), { kind: 'project', projectId: '(none)', currentSessionId: null }, Number(fp), dims, queries[0]!, { limit: k });
const rssBefore = process.memoryUsage().rss;
run(queries[0]!); // rebuild the entry (same work as the first query, now measured against the baseline)
gc?.();
const rssAfter = process.memoryUsage().rss;
const samples: number[] = [];
const hits = [first];
for (const q of queries.slice(1)) {
  t = performance.now();
  hits.push(run(q));
  samples.push(performance.now() - t);
}
gc?.();
const rssWarm = process.memoryUsage().rss;
const cacheBytes = cache.snapshot().bytes;
cache.clear();
gc?.();
const rssCleared = process.memoryUsage().rss;
samples.sort((a, b) => a - b);
const at = (p: number) => samples[Math.min(samples.length - 1, Math.max(0, Math.ceil(p * samples.length) - 1))] ?? NaN;
process.stdout.write(
  `${JSON.stringify({
    mode,
    coldMs,
    p50: at(0.5),
    p95: at(0.95),
    n: samples.length,
    rssBefore,
    rssAfter,
    rssWarm,
    rssCleared,
    peakRss: process.resourceUsage().maxRSS * 1024,
    cacheBytes,
    hits: hits.map((h) => h.map((x) => [x.messageId, x.score])),
  })}\n`,
);
db.close();
