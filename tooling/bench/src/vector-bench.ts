/**
 * `pnpm bench:vector [--sizes 100k,1m] [--dims 384] [--k 10] [--queries 30] [--slow-queries 8] [--no-sqlite] [--no-profile]`
 * times the exact top-k scan of one project's vectors (the allowed set is the whole matrix here:
 * that is what the scan sees after the SQL filter) for every kernel, plus peers measured in the
 * same run: a plain JS loop, simsimd row by row, and sqlite-vec 0.1.9 `vec0` in a connection opened
 * with openDatabase. Vectors are seeded, clustered unit vectors (centroid + noise, like real
 * embeddings). The certified int8 path must return exactly the float32 scan's rows and scores; the
 * bench counts any difference. Then (unless --no-profile) the same vectors are written into a real
 * profile database and each matrix-cache mode runs in a fresh process: the first query after the
 * restart (cold cache), warm p50/p95, the cache's RSS, and whether all modes returned the same hits.
 * Prints p50/p95, same-run ratios, and peak RSS. A command, not a test.
 */
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@recall/schema';
import { loadUsearch, normalizeL2, quantizeMatrix, scanTopK, TopK, type Int8ScanStats, type ScoredRow, type VectorMatrix } from '@recall/semantic/internal';
import { arg, num } from './bench-args.js';
import { exitOnHelp, rng } from './util.js';
import { runProfileModes, writeProfile, type ProfileRun } from './vector-profile.js';

exitOnHelp(`Usage: pnpm bench:vector [options]   (node tooling/bench/dist/vector-bench.js [options])
Exact top-k scan of one project's vectors for every kernel, with same-run peers (plain JS loop,
simsimd row by row, sqlite-vec vec0): p50/p95, ratios, exactness of the int8 path, peak RSS; then
the matrix-cache modes on a real profile database, each in a fresh process (cold first query,
warm p50/p95, RSS).
  --sizes LIST       matrix sizes (default 100k,1m)
  --dims N           dimensions (default 384)
  --k N              top-k (default 10)
  --queries N        queries per size (default 30)
  --slow-queries N   queries for the slow peers (default 8)
  --no-sqlite        skip the sqlite-vec peer
  --no-profile       skip the profile database and the cache modes
  -h, --help         print this and exit`);

const SIZES = (arg('sizes') || '100k,1m').split(',').map(num);
const DIMS = num(arg('dims') || '384');
const K = num(arg('k') || '10');
const QUERIES = num(arg('queries') || '30');
const SLOW_QUERIES = num(arg('slow-queries') || '8');
const WITH_SQLITE = arg('no-sqlite') === undefined;
const WITH_PROFILE = arg('no-profile') === undefined;

/** Clustered unit vectors: 1 centroid per 500 rows, each row = centroid + equal-norm noise. */
function makeVectors(rows: number, dims: number, seed: number): { matrix: VectorMatrix; queries: Float32Array[] } {
  const r = rng(seed);
  const centroids = Array.from({ length: Math.max(1, Math.floor(rows / 500)) }, () => normalizeL2(Float32Array.from({ length: dims }, () => r() - 0.5)));
  const noise = 1 / Math.sqrt(dims);
  const data = new Float32Array(rows * dims);
  const sample = (out: Float32Array) => {
    const c = centroids[Math.floor(r() * centroids.length)]!;
    for (let i = 0; i < dims; i++) out[i] = c[i]! + (r() - 0.5) * 2 * noise * 1.7;
    normalizeL2(out);
  };
  for (let row = 0; row < rows; row++) sample(data.subarray(row * dims, (row + 1) * dims));
  const queries = Array.from({ length: QUERIES }, () => {
    const q = new Float32Array(dims);
    sample(q);
    return q;
  });
  return { matrix: { dims, rows, data }, queries };
}

/** The peer a newcomer would write: one loop, a sorted array of the best k. */
function plainJs(m: VectorMatrix, q: Float32Array, k: number): number[] {
  const best: Array<[number, number]> = [];
  for (let row = 0; row < m.rows; row++) {
    let s = 0;
    for (let i = 0; i < m.dims; i++) s += m.data[row * m.dims + i]! * q[i]!;
    if (best.length < k || s > best[best.length - 1]![1]) {
      best.push([row, s]);
      best.sort((a, b) => b[1] - a[1]);
      if (best.length > k) best.pop();
    }
  }
  return best.map(([row]) => row);
}

interface Timing {
  name: string;
  p50: number;
  p95: number;
  n: number;
  recall?: number;
  /** Queries whose rows or scores differ from the float32 scan's (must be 0 for exact paths). */
  differ?: number;
  note?: string;
}

function time(name: string, queries: Float32Array[], run: (q: Float32Array) => number[] | ScoredRow[], truth?: ScoredRow[][], note?: string | (() => string)): Timing {
  run(queries[0]!); // warm-up (JIT, page faults)
  const samples: number[] = [];
  let hits = 0;
  let differ = 0;
  let scored = false;
  queries.forEach((q, i) => {
    const t0 = process.hrtime.bigint();
    const out = run(q);
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (truth) {
      const want = truth[i]!;
      const rows = out.map((r) => (typeof r === 'number' ? r : r.row));
      const set = new Set(want.map((r) => r.row));
      hits += rows.filter((r) => set.has(r)).length;
      if (out.length > 0 && typeof out[0] !== 'number') {
        scored = true;
        const same = out.length === want.length && (out as ScoredRow[]).every((r, j) => r.row === want[j]!.row && Object.is(r.score, want[j]!.score));
        if (!same) differ++;
      }
    }
  });
  samples.sort((a, b) => a - b);
  const at = (p: number) => samples[Math.min(samples.length - 1, Math.max(0, Math.ceil(p * samples.length) - 1))]!;
  const text = typeof note === 'function' ? note() : note;
  return { name, p50: at(0.5), p95: at(0.95), n: samples.length, ...(truth ? { recall: hits / (queries.length * K) } : {}), ...(scored ? { differ } : {}), ...(text ? { note: text } : {}) };
}

const rssMiB = () => (process.resourceUsage().maxRSS / 1024).toFixed(0);
const fmt = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
const mibOf = (bytes: number) => bytes / 2 ** 20;

function main(): void {
  const cpu = cpus();
  console.log(`# bench:vector — ${new Date().toISOString()}`);
  console.log(`machine: ${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, ${(totalmem() / 1024 ** 3).toFixed(1)} GiB, Node ${process.version}, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`dims ${DIMS}, k ${K}, ${QUERIES} queries (${SLOW_QUERIES} for the slow peers), clustered unit vectors; usearch ${loadUsearch() ? 'loaded' : 'NOT loaded'}`);
  const simsimd = createRequire(import.meta.url)('simsimd') as { inner(a: Float32Array, b: Float32Array): number };
  for (const size of SIZES) {
    const t0 = Date.now();
    const { matrix, queries } = makeVectors(size, DIMS, size);
    const slow = queries.slice(0, SLOW_QUERIES);
    console.log(`\n## ${size.toLocaleString('en')} vectors (${((size * DIMS * 4) / 2 ** 20).toFixed(0)} MiB float32, generated in ${Date.now() - t0} ms)`);
    // The reference: the float32 scan (identical to the pure-JS scan, ties included — vector-scan tests).
    const truth = queries.map((q) => scanTopK(matrix, q, { k: K }));
    const rows: Timing[] = [];
    rows.push(time('plain JS loop (peer)', slow, (q) => plainJs(matrix, q, K), truth));
    rows.push(time('scan: js (fallback: dotAt + heap)', slow, (q) => scanTopK(matrix, q, { k: K, backend: 'js' }), truth));
    rows.push(
      time('simsimd.inner row by row (peer)', slow, (q) => {
        const top = new TopK(K);
        for (let row = 0; row < matrix.rows; row++) top.push(row, simsimd.inner(matrix.data.subarray(row * DIMS, (row + 1) * DIMS), q));
        return top.sorted().map((r) => r.row);
      }, truth),
    );
    const tq = Date.now();
    const q8 = quantizeMatrix(matrix.data, matrix.rows, DIMS);
    const quantMs = Date.now() - tq;
    const statsNote = (stats: Int8ScanStats, n: number) => () => `quantised in ${quantMs} ms; per query ${(stats.passes / (n + 1)).toFixed(2)} int8 passes, ${(stats.rescored / (n + 1)).toFixed(0)} rows rescored, ${stats.fellBack} full scans`;
    const jsStats: Int8ScanStats = { passes: 0, rescored: 0, fellBack: 0 };
    rows.push(time('scan: certified int8 + f32 rescore, JS kernel', slow, (q) => scanTopK(matrix, q, { k: K, backend: 'js', int8: { matrix: q8, stats: jsStats } }), truth, statsNote(jsStats, slow.length)));
    const usearch = loadUsearch();
    if (usearch) {
      for (const threads of [1, 2]) {
        rows.push(time(`usearch exactSearch raw f32, ${threads} thread(s)`, queries, (q) => Array.from(usearch.exactSearch(matrix.data, q, DIMS, K, usearch.MetricKind.IP, threads).keys, Number), truth));
      }
      for (const threads of [1, 2]) rows.push(time(`scan: usearch f32 exact (verified; the previous shipped path), ${threads} thread(s)`, queries, (q) => scanTopK(matrix, q, { k: K, backend: 'usearch', threads }), truth));
      for (const threads of [1, 2]) {
        const stats: Int8ScanStats = { passes: 0, rescored: 0, fellBack: 0 };
        rows.push(time(`scan: certified int8 + f32 rescore (shipped kernel), ${threads} thread(s)`, queries, (q) => scanTopK(matrix, q, { k: K, backend: 'usearch', threads, int8: { matrix: q8, stats } }), truth, statsNote(stats, queries.length)));
      }
    }
    if (WITH_SQLITE) rows.push(sqliteVec(matrix, slow, truth));
    const plain = rows[0]!.p50;
    const vec = rows.find((r) => r.name.startsWith('sqlite-vec'))?.p50;
    console.log(`| kernel | p50 | p95 | queries | recall@${K} | differs from f32 | × faster than plain JS | × faster than sqlite-vec |`);
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      console.log(`| ${r.name}${r.note ? ` (${r.note})` : ''} | ${fmt(r.p50)} ms | ${fmt(r.p95)} ms | ${r.n} | ${r.recall === undefined ? '—' : r.recall.toFixed(3)} | ${r.differ === undefined ? '—' : r.differ} | ${(plain / r.p50).toFixed(1)} | ${vec ? (vec / r.p50).toFixed(1) : '—'} |`);
    }
    console.log(`peak RSS so far: ${rssMiB()} MiB (q8 copy ${mibOf(q8.codes.byteLength).toFixed(0)} MiB)`);
    const pick = (prefix: string) => rows.filter((r) => r.name.startsWith(prefix)).reduce<Timing | undefined>((best, r) => (!best || r.p50 < best.p50 ? r : best), undefined);
    const exact = pick('scan: usearch f32 exact');
    const int8 = pick('scan: certified int8 + f32 rescore (shipped');
    const label = size >= 1e6 ? `${size / 1e6}M` : `${size / 1e3}k`;
    const summary: Record<string, number | string> = { bench: `vector ${label}`, vectors: size, dims: DIMS };
    if (exact) Object.assign(summary, { f32_scan_p50_ms: Number(exact.p50.toFixed(2)) });
    if (int8) Object.assign(summary, { int8_certified_p50_ms: Number(int8.p50.toFixed(2)), int8_certified_p95_ms: Number(int8.p95.toFixed(2)), int8_differs: rows.reduce((n, r) => n + (r.name.includes('certified') ? (r.differ ?? 0) : 0), 0) });
    if (exact && int8) Object.assign(summary, { int8_x_faster_than_f32: Number((exact.p50 / int8.p50).toFixed(2)) });
    Object.assign(summary, { plain_js_p50_ms: Number(plain.toFixed(1)) });
    if (vec) Object.assign(summary, { sqlite_vec_p50_ms: Number(vec.toFixed(1)) });
    if (int8 && vec) Object.assign(summary, { int8_x_faster_than_sqlite_vec: Number((vec / int8.p50).toFixed(1)) });
    if (WITH_PROFILE) Object.assign(summary, profile(matrix, queries, vec, label));
    summary.peak_rss_mib = Number(rssMiB());
    console.log(`BENCH-SUMMARY ${JSON.stringify(summary)}`);
  }
}

/**
 * RSS the process grew by from its baseline (everything loaded, cache empty) to after the warm
 * queries: the cache, SQLite's page cache for the rescore reads, and whatever the allocator kept of
 * the float32 rows read while quantising — an upper bound on the cache's own memory.
 */
const cacheRss = (r: ProfileRun) => mibOf(r.rssWarm - r.rssBefore);

/** The cache modes on a real profile database, one fresh process each (see vector-profile.ts). */
function profile(matrix: VectorMatrix, queries: Float32Array[], sqliteVecP50: number | undefined, label: string): Record<string, number> {
  const dir = mkdtempSync(join(tmpdir(), 'recall-vec-profile-'));
  try {
    const path = join(dir, 'profile.db');
    const written = writeProfile(path, matrix);
    console.log(`\nprofile database: ${matrix.rows.toLocaleString('en')} messages with one ready chunk each, two role segments, written in ${(written.ms / 1000).toFixed(1)} s (${mibOf(written.fileBytes).toFixed(0)} MiB file); each cache mode in a fresh process, first query = open + read + quantise + scan:`);
    const runs = runProfileModes(path, written.fingerprintId, matrix.dims, queries, K, ['f32', 'memory', 'sqlite']);
    const base = runs[0]!;
    const same = (r: ProfileRun) => JSON.stringify(r.hits) === JSON.stringify(base.hits);
    const per1M = 1e6 / matrix.rows;
    const names: Record<ProfileRun['mode'], string> = { f32: 'float32 rows, no int8 pass (previous)', memory: 'int8 + float32 rows kept', sqlite: 'int8 rows; candidates read from SQLite (shipped)' };
    console.log(`| cache mode | first query after restart | warm p50 | warm p95 | queries | RSS growth over the baseline | per 1M vectors | cache bytes (own count) | process RSS after the warm queries | peak RSS | hits identical to previous |`);
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
    for (const r of runs) {
      const rss = cacheRss(r);
      console.log(`| ${names[r.mode]} | ${fmt(r.coldMs)} ms | ${fmt(r.p50)} ms | ${fmt(r.p95)} ms | ${r.n} | ${rss.toFixed(0)} MiB | ${(rss * per1M).toFixed(0)} MiB | ${mibOf(r.cacheBytes).toFixed(0)} MiB | ${mibOf(r.rssWarm).toFixed(0)} MiB | ${mibOf(r.peakRss).toFixed(0)} MiB | ${same(r) ? 'yes' : 'NO'} |`);
    }
    const shipped = runs.find((r) => r.mode === 'sqlite')!;
    console.log(`shipped vs previous in this run: warm p50 ${(base.p50 / shipped.p50).toFixed(2)}× faster${sqliteVecP50 ? `, ${(sqliteVecP50 / shipped.p50).toFixed(1)}× faster than sqlite-vec` : ''}; cache RSS ${(cacheRss(shipped) / Math.max(1, cacheRss(base))).toFixed(2)}× the previous`);
    const out: Record<string, number> = {
      [`profile_cold_first_query_ms_${label}`]: Number(shipped.coldMs.toFixed(0)),
      profile_shipped_p50_ms: Number(shipped.p50.toFixed(2)),
      profile_previous_p50_ms: Number(base.p50.toFixed(2)),
      profile_shipped_x_faster_than_previous: Number((base.p50 / shipped.p50).toFixed(2)),
      cache_rss_mib_per_1m_shipped: Number((cacheRss(shipped) * per1M).toFixed(0)),
      cache_rss_mib_per_1m_previous: Number((cacheRss(base) * per1M).toFixed(0)),
      profile_modes_identical: runs.every(same) ? 1 : 0,
    };
    if (sqliteVecP50) out.profile_shipped_x_faster_than_sqlite_vec = Number((sqliteVecP50 / shipped.p50).toFixed(1));
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** sqlite-vec 0.1.9 vec0 brute-force KNN, loaded from its npm package into an openDatabase connection. */
function sqliteVec(matrix: VectorMatrix, queries: Float32Array[], truth: ScoredRow[][]): Timing {
  const dir = mkdtempSync(join(tmpdir(), 'recall-vec-bench-'));
  const db = openDatabase(join(dir, 'vec.db'));
  try {
    (createRequire(import.meta.url)('sqlite-vec') as { load(db: unknown): void }).load(db.raw);
    db.raw.exec(`create virtual table v using vec0(embedding float[${matrix.dims}])`);
    const insert = db.raw.prepare('insert into v(rowid, embedding) values (?, ?)');
    const t0 = Date.now();
    db.raw.transaction(() => {
      for (let row = 0; row < matrix.rows; row++) {
        const v = matrix.data.subarray(row * matrix.dims, (row + 1) * matrix.dims);
        insert.run(BigInt(row + 1), Buffer.from(v.buffer, v.byteOffset, v.byteLength));
      }
    })();
    const loadMs = Date.now() - t0;
    const knn = db.raw.prepare(`select rowid from v where embedding match ? and k = ${K} order by distance`).pluck();
    return time('sqlite-vec 0.1.9 vec0 (peer)', queries, (q) => (knn.all(Buffer.from(q.buffer, q.byteOffset, q.byteLength)) as Array<number | bigint>).map((id) => Number(id) - 1), truth.slice(0, queries.length), `loaded in ${loadMs} ms`);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
