/**
 * `pnpm bench:vector [--sizes 100k,1m] [--dims 384] [--k 10] [--queries 30] [--slow-queries 8] [--no-sqlite]`
 * times the exact top-k scan of one project's vectors (the allowed set is the whole matrix here:
 * that is what the scan sees after the SQL filter) for every backend, plus peers measured in the
 * same run: a plain JS loop, simsimd row by row, and sqlite-vec 0.1.9 `vec0` in a connection opened
 * with openDatabase. Vectors are seeded, clustered unit vectors (centroid + noise, like real
 * embeddings), so the int8 pass's recall@10 against exact is meaningful. Prints p50/p95 per backend,
 * ratios against plain JS and sqlite-vec, recall, and peak RSS. A command, not a test.
 */
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@recall/schema';
import { loadUsearch, normalizeL2, quantizeInt8, scanTopK, TopK, type VectorMatrix } from '@recall/semantic/internal';
import { arg, num } from './bench-args.js';
import { exitOnHelp, rng } from './util.js';

exitOnHelp(`Usage: pnpm bench:vector [options]   (node tooling/bench/dist/vector-bench.js [options])
Exact top-k scan of one project's vectors for every backend, with same-run peers (plain JS loop,
simsimd row by row, sqlite-vec vec0): p50/p95, ratios, int8 recall@10, peak RSS.
  --sizes LIST       matrix sizes (default 100k,1m)
  --dims N           dimensions (default 384)
  --k N              top-k (default 10)
  --queries N        queries per size (default 30)
  --slow-queries N   queries for the slow peers (default 8)
  --no-sqlite        skip the sqlite-vec peer
  -h, --help         print this and exit`);

const SIZES = (arg('sizes') || '100k,1m').split(',').map(num);
const DIMS = num(arg('dims') || '384');
const K = num(arg('k') || '10');
const QUERIES = num(arg('queries') || '30');
const SLOW_QUERIES = num(arg('slow-queries') || '8');
const WITH_SQLITE = arg('no-sqlite') === undefined;


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
  note?: string;
}

function time(name: string, queries: Float32Array[], run: (q: Float32Array) => number[], truth?: number[][], note?: string): Timing {
  run(queries[0]!); // warm-up (JIT, page faults)
  const samples: number[] = [];
  let hits = 0;
  queries.forEach((q, i) => {
    const t0 = process.hrtime.bigint();
    const rows = run(q);
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (truth) {
      const want = new Set(truth[i]);
      hits += rows.filter((r) => want.has(r)).length;
    }
  });
  samples.sort((a, b) => a - b);
  const at = (p: number) => samples[Math.min(samples.length - 1, Math.max(0, Math.ceil(p * samples.length) - 1))]!;
  return { name, p50: at(0.5), p95: at(0.95), n: samples.length, ...(truth ? { recall: hits / (queries.length * K) } : {}), ...(note ? { note } : {}) };
}

const rssMiB = () => (process.resourceUsage().maxRSS / 1024).toFixed(0);
const fmt = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));

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
    const truth = queries.map((q) => scanTopK(matrix, q, { k: K, backend: 'js' }).map((r) => r.row));
    const rows: Timing[] = [];
    rows.push(time('plain JS loop (peer)', slow, (q) => plainJs(matrix, q, K), truth));
    rows.push(time('scan: js (fallback: dotAt + heap)', slow, (q) => scanTopK(matrix, q, { k: K, backend: 'js' }).map((r) => r.row), truth));
    rows.push(
      time('simsimd.inner row by row (peer)', slow, (q) => {
        const top = new TopK(K);
        for (let row = 0; row < matrix.rows; row++) top.push(row, simsimd.inner(matrix.data.subarray(row * DIMS, (row + 1) * DIMS), q));
        return top.sorted().map((r) => r.row);
      }, truth),
    );
    const usearch = loadUsearch();
    if (usearch) {
      for (const threads of [1, 2]) {
        rows.push(time(`usearch exactSearch raw, ${threads} thread(s)`, queries, (q) => Array.from(usearch.exactSearch(matrix.data, q, DIMS, K, usearch.MetricKind.IP, threads).keys, Number), truth));
      }
      for (const threads of [1, 2]) rows.push(time(`scan: usearch f32 exact (verified), ${threads} thread(s)`, queries, (q) => scanTopK(matrix, q, { k: K, backend: 'usearch', threads }).map((r) => r.row), truth));
      const tq = Date.now();
      const q8 = quantizeInt8(matrix);
      const quantMs = Date.now() - tq;
      for (const rescore of [4, 8]) {
        for (const threads of [1, 2]) {
          rows.push(time(`scan: int8 pass + f32 rescore ×${rescore}, ${threads} thread(s)`, queries, (q) => scanTopK(matrix, q, { k: K, backend: 'usearch', threads, int8: { matrix: q8, rescore } }).map((r) => r.row), truth, `quantised once in ${quantMs} ms`));
        }
      }
    }
    if (WITH_SQLITE) rows.push(sqliteVec(matrix, slow, truth));
    const plain = rows[0]!.p50;
    const vec = rows.find((r) => r.name.startsWith('sqlite-vec'))?.p50;
    console.log(`| backend | p50 | p95 | queries | recall@${K} vs exact | × faster than plain JS | × faster than sqlite-vec |`);
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      console.log(`| ${r.name}${r.note ? ` (${r.note})` : ''} | ${fmt(r.p50)} ms | ${fmt(r.p95)} ms | ${r.n} | ${r.recall === undefined ? '—' : r.recall.toFixed(3)} | ${(plain / r.p50).toFixed(1)} | ${vec ? (vec / r.p50).toFixed(1) : '—'} |`);
    }
    console.log(`peak RSS so far: ${rssMiB()} MiB`);
    const pick = (prefix: string) => rows.filter((r) => r.name.startsWith(prefix)).reduce<Timing | undefined>((best, r) => (!best || r.p50 < best.p50 ? r : best), undefined);
    const exact = pick('scan: usearch f32 exact');
    const int8 = pick('scan: int8');
    const summary: Record<string, number | string> = { bench: `vector ${size >= 1e6 ? `${size / 1e6}M` : `${size / 1e3}k`}`, vectors: size, dims: DIMS };
    if (exact) Object.assign(summary, { exact_f32_p50_ms: Number(exact.p50.toFixed(2)), exact_f32_p95_ms: Number(exact.p95.toFixed(2)) });
    if (int8) Object.assign(summary, { int8_rescore_p50_ms: Number(int8.p50.toFixed(2)), int8_recall_at_10: Number((int8.recall ?? 0).toFixed(3)) });
    Object.assign(summary, { plain_js_p50_ms: Number(plain.toFixed(1)) });
    if (vec) Object.assign(summary, { sqlite_vec_p50_ms: Number(vec.toFixed(1)) });
    if (exact) Object.assign(summary, { exact_x_faster_than_plain_js: Number((plain / exact.p50).toFixed(1)), ...(vec ? { exact_x_faster_than_sqlite_vec: Number((vec / exact.p50).toFixed(1)) } : {}) });
    summary.peak_rss_mib = Number(rssMiB());
    console.log(`BENCH-SUMMARY ${JSON.stringify(summary)}`);
  }
}

/** sqlite-vec 0.1.9 vec0 brute-force KNN, loaded from its npm package into an openDatabase connection. */
function sqliteVec(matrix: VectorMatrix, queries: Float32Array[], truth: number[][]): Timing {
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
