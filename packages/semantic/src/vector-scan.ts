/**
 * The exact vector scan: top-k rows of a row-major Float32 matrix by inner product with a query
 * (vectors are L2-normalised, so inner product = cosine). It owns the backends and the one
 * canonical score:
 *
 * - `usearch` — usearch's prebuilt SIMD `exactSearch`, multi-threaded over rows. Its float32 scores
 *   differ from the canonical ones in the last bits, so its list is treated as *candidates*: they
 *   are rescored with `dotAt` and the boundary is verified (every unseen row scores at most the
 *   weakest candidate + ε, so it cannot beat the k-th rescored row); if the boundary is ambiguous
 *   (near-ties, duplicates) the candidate count doubles until it is not. The result is therefore
 *   identical to the pure-JS scan, ties included.
 * - `js` — a plain loop with `dotAt` and the bounded heap (`topk.ts`); the fallback when the native
 *   binary cannot load, and the reference the tests compare against.
 * - `int8` (the default for cached project matrices, either kernel) — an int8 first pass over a
 *   per-column quantised copy (int8-scan.ts), float32 rescoring of its candidates with `dotAt`,
 *   and a certificate from the quantisation error bound that no unseen row can reach the top k;
 *   it widens the candidates, or runs the full float32 scan, until that holds. Exact, ties
 *   included — the same list as the two kernels above.
 *
 * simsimd was measured as a row-at-a-time kernel in the same bench; its per-call N-API cost makes
 * it slower than usearch's batched scan at every size we care about, so it is not a backend here.
 * Row ranges let a caller scan several contiguous segments (e.g. one per role) of one matrix
 * without copying; `exclude` removes rows (the caller's own live messages) with a proven over-fetch.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { certifiedRangeTopK, certifiedRangeTopKAsync, jsInt8Kernel, prepareQuery, type Int8Kernel, type Int8ScanStats, type QuantizedMatrix } from './int8-scan.js';
import { compareScored, TopK, type ScoredRow } from './topk.js';

export type { ScoredRow } from './topk.js';
/** The exact-scan kernel: native SIMD `usearch` (optional dependency) or pure `js`; same results. */
export type ScanBackend = 'usearch' | 'js';

/** Row-major Float32 vectors: `rows` × `dims`. */
export interface VectorMatrix {
  readonly dims: number;
  readonly rows: number;
  /** rows × dims, row-major. */
  readonly data: Float32Array;
}

/** Options of `scanTopK()`: k, backend, row ranges, excluded rows, threads and an optional int8 first pass. */
export interface ScanOptions {
  k: number;
  /** Default: usearch when its binary loads, else js. */
  backend?: ScanBackend;
  /** [start, end) row ranges to scan; default the whole matrix. */
  ranges?: ReadonlyArray<readonly [number, number]>;
  /** Rows that never appear in the result. */
  exclude?: ReadonlySet<number>;
  /** usearch threads; default: all cores (capped at 4) for ranges of ≥ PARALLEL_MIN_ROWS rows, else 1. */
  threads?: number;
  /**
   * The int8 first pass (a `quantizeMatrix` copy of this matrix) + float32 rescoring of its
   * candidates, certified exact (int8-scan.ts): same rows, scores and ties as without it.
   */
  int8?: { matrix: QuantizedMatrix; candidates?: number; stats?: Int8ScanStats };
}

/** Extra candidates asked of usearch beyond k + excluded rows, so the boundary check rarely retries. */
const CANDIDATE_MARGIN = 16;
/** Below this many rows a second thread costs more to start than it saves (see docs/benchmarks.md). */
export const PARALLEL_MIN_ROWS = 65_536;
/** First int8 candidate count beyond k + excluded rows (only as many are rescored as the certificate needs; it widens the list when needed). */
export const INT8_CANDIDATES = 128;

/** The part of usearch's binding the scan uses. */
export interface UsearchModule {
  exactSearch(dataset: Float32Array | Int8Array, queries: Float32Array | Int8Array, dims: number, count: number, metric: string, threads?: number): { keys: BigUint64Array; distances: Float32Array };
  MetricKind: { IP: string };
}

let usearchState: { module: UsearchModule | null; error: string | null } | null = null;

/** usearch, loaded once through CommonJS (its ESM entry recurses forever). Null when it cannot load. */
export function loadUsearch(): UsearchModule | null {
  if (!usearchState) {
    try {
      usearchState = { module: createRequire(import.meta.url)('usearch') as UsearchModule, error: null };
    } catch (error) {
      usearchState = { module: null, error: (error as Error).message };
    }
  }
  return usearchState.module;
}

export function usearchLoadError(): string | null {
  loadUsearch();
  return usearchState?.error ?? null;
}

export function defaultBackend(): ScanBackend {
  return loadUsearch() ? 'usearch' : 'js';
}

/**
 * The canonical score: inner product of row `row` with `query`, accumulated in float64 (products of
 * two float32 values are exact in float64), four lanes, summed in a fixed order. Every backend's
 * final scores come from here.
 */
export function dotAt(data: Float32Array, row: number, query: Float32Array, dims: number): number {
  const o = row * dims;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < dims; i += 4) {
    s0 += data[o + i]! * query[i]!;
    s1 += data[o + i + 1]! * query[i + 1]!;
    s2 += data[o + i + 2]! * query[i + 2]!;
    s3 += data[o + i + 3]! * query[i + 3]!;
  }
  for (; i < dims; i++) s0 += data[o + i]! * query[i]!;
  return s0 + s1 + (s2 + s3);
}

/** Bound on |usearch float32 score − canonical score| for unit vectors (float32 accumulation error). */
function scoreEpsilon(dims: number): number {
  return Math.max(1e-5, dims * 2.5e-7);
}

function defaultThreads(rows: number): number {
  return rows >= PARALLEL_MIN_ROWS ? Math.max(1, Math.min(4, availableParallelism())) : 1;
}

function checkInputs(matrix: VectorMatrix, query: Float32Array, options: ScanOptions): Array<readonly [number, number]> {
  if (query.length !== matrix.dims) throw new RangeError(`query has ${query.length} dimensions, the matrix ${matrix.dims}`);
  if (matrix.data.length < matrix.rows * matrix.dims) throw new RangeError('matrix data is shorter than rows × dims');
  if (!Number.isInteger(options.k) || options.k < 0) throw new RangeError(`k must be a non-negative integer, got ${options.k}`);
  const ranges = options.ranges ?? [[0, matrix.rows] as const];
  for (const [start, end] of ranges) {
    if (!(Number.isInteger(start) && Number.isInteger(end) && 0 <= start && start <= end && end <= matrix.rows)) throw new RangeError(`bad row range [${start}, ${end})`);
  }
  return ranges.filter(([start, end]) => end > start);
}

function excludedIn(exclude: ReadonlySet<number> | undefined, start: number, end: number): number {
  if (!exclude) return 0;
  let n = 0;
  for (const row of exclude) if (row >= start && row < end) n++;
  return n;
}

/** Top-k rows by inner product, best first (ties: lower row first). */
export function scanTopK(matrix: VectorMatrix, query: Float32Array, options: ScanOptions): ScoredRow[] {
  const ranges = checkInputs(matrix, query, options);
  const { k } = options;
  if (k === 0 || ranges.length === 0) return [];
  const backend = options.backend ?? defaultBackend();
  const usearch = backend === 'usearch' ? loadUsearch() : null;
  if (backend === 'usearch' && !usearch) throw new Error(`usearch is not available: ${usearchLoadError()}`);
  const int8 = options.int8;
  if (int8 && (int8.matrix.dims !== matrix.dims || int8.matrix.rows !== matrix.rows)) throw new RangeError('the int8 matrix does not match the float32 matrix');
  const prepared = int8 ? prepareQuery(int8.matrix, query) : null;
  const kernel = usearch ? usearchInt8Kernel(usearch) : jsInt8Kernel;
  const merged = new TopK(k);
  for (const [start, end] of ranges) {
    const full = () => (usearch ? usearchRange(usearch, matrix, query, k, start, end, options) : jsRange(matrix, query, k, start, end, options.exclude));
    const part =
      int8 && prepared
        ? certifiedRangeTopK(int8.matrix, prepared, {
            k,
            start,
            end,
            exclude: options.exclude,
            threads: options.threads ?? defaultThreads(end - start),
            candidates: int8.candidates ?? INT8_CANDIDATES,
            kernel,
            exact: (rows) => rows.map((row) => dotAt(matrix.data, row, query, matrix.dims)),
            fallback: full,
            ...(int8.stats ? { stats: int8.stats } : {}),
          })
        : full();
    for (const r of part) merged.push(r.row, r.score);
  }
  return merged.sorted();
}

/** Options of `scanQuantizedTopK()`: the int8 copy alone, with the exact score read per candidate. */
export interface QuantizedScanOptions {
  k: number;
  backend?: ScanBackend;
  exclude?: ReadonlySet<number>;
  threads?: number;
  /** First candidate count beyond k + excluded rows (default INT8_CANDIDATES). */
  candidates?: number;
  /** The canonical scores of rows, in order (`dotAt` over their float32 vectors, however fetched). */
  exact: (rows: readonly number[]) => ArrayLike<number>;
  stats?: Int8ScanStats;
}

/** The checks and the certified pass's settings both quantized scans share (null: nothing to scan). */
function quantizedScanSetup(q8: QuantizedMatrix, query: Float32Array, options: Omit<QuantizedScanOptions, 'exact'>) {
  if (query.length !== q8.dims) throw new RangeError(`query has ${query.length} dimensions, the matrix ${q8.dims}`);
  if (!Number.isInteger(options.k) || options.k < 0) throw new RangeError(`k must be a non-negative integer, got ${options.k}`);
  if (options.k === 0 || q8.rows === 0) return null;
  const backend = options.backend ?? defaultBackend();
  const usearch = backend === 'usearch' ? loadUsearch() : null;
  if (backend === 'usearch' && !usearch) throw new Error(`usearch is not available: ${usearchLoadError()}`);
  return {
    k: options.k,
    start: 0,
    end: q8.rows,
    exclude: options.exclude,
    threads: options.threads ?? defaultThreads(q8.rows),
    candidates: options.candidates ?? INT8_CANDIDATES,
    kernel: usearch ? usearchInt8Kernel(usearch) : jsInt8Kernel,
    ...(options.stats ? { stats: options.stats } : {}),
  };
}

/** Every row not excluded, in batches of 4,096 (the full scan when no certificate can be had cheaply). */
function* rowBatches(rows: number, exclude: ReadonlySet<number> | undefined): Generator<number[]> {
  for (let from = 0; from < rows; from += 4096) {
    const batch: number[] = [];
    for (let row = from; row < Math.min(rows, from + 4096); row++) if (!exclude?.has(row)) batch.push(row);
    yield batch;
  }
}

/**
 * Exact top-k over a matrix held only as its int8 copy: the certified first pass, with `exact`
 * called for the candidates only; when the certificate cannot be had cheaply, `exact` is called
 * for every row (the full scan). Same rows, scores and ties as `scanTopK` over the float32 rows.
 */
export function scanQuantizedTopK(q8: QuantizedMatrix, query: Float32Array, options: QuantizedScanOptions): ScoredRow[] {
  const setup = quantizedScanSetup(q8, query, options);
  if (!setup) return [];
  const { exact } = options;
  return certifiedRangeTopK(q8, prepareQuery(q8, query), {
    ...setup,
    exact,
    fallback: () => {
      const top = new TopK(setup.k);
      for (const rows of rowBatches(q8.rows, setup.exclude)) {
        const scores = exact(rows);
        rows.forEach((row, i) => top.push(row, scores[i]!));
      }
      return top.sorted();
    },
  });
}

/** Options of `scanQuantizedTopKAsync()`: as QuantizedScanOptions, with the exact scores read asynchronously. */
export interface AsyncQuantizedScanOptions extends Omit<QuantizedScanOptions, 'exact'> {
  /** The canonical scores of rows, in order (e.g. one database read of their stored vectors per batch). */
  exact: (rows: readonly number[]) => Promise<ArrayLike<number>>;
  /** Rows asked of `exact` per batch at least (fewer round trips; the result is the same). */
  minBatch?: number;
}

/** `scanQuantizedTopK` with asynchronous exact scores (a database read per batch): the same rows, scores and ties. */
export async function scanQuantizedTopKAsync(q8: QuantizedMatrix, query: Float32Array, options: AsyncQuantizedScanOptions): Promise<ScoredRow[]> {
  const setup = quantizedScanSetup(q8, query, options);
  if (!setup) return [];
  const { exact } = options;
  return certifiedRangeTopKAsync(q8, prepareQuery(q8, query), {
    ...setup,
    exact,
    ...(options.minBatch !== undefined ? { minBatch: options.minBatch } : {}),
    fallback: async () => {
      const top = new TopK(setup.k);
      for (const rows of rowBatches(q8.rows, setup.exclude)) {
        const scores = await exact(rows);
        rows.forEach((row, i) => top.push(row, scores[i]!));
      }
      return top.sorted();
    },
  });
}

/**
 * usearch's int8 inner product is an exact integer dot product d (measured: 2.26.2 returns 1 − d,
 * not a cosine), as a float32 distance. Below 2^23 that is exact; above, the value may be rounded,
 * so the kernel reports an upper bound (the certificate only needs the weakest candidate's dot
 * from above; it holds for unseen rows whose rounded distance tied with it too).
 */
export function usearchInt8Kernel(usearch: UsearchModule): Int8Kernel {
  return (codes, query, dims, count, threads) => {
    const found = usearch.exactSearch(codes, zeroOffsetView(query, 0, dims), dims, count, usearch.MetricKind.IP, threads);
    const rows = new Int32Array(found.keys.length);
    const dots = new Float64Array(found.keys.length);
    for (let i = 0; i < rows.length; i++) {
      rows[i] = Number(found.keys[i]);
      const d = 1 - found.distances[i]!;
      // Near 2^24 float32 rounding may also merge an unseen row's value with this one: 1.5 ulp + 2.
      dots[i] = Math.abs(d) < 2 ** 23 ? d : d + Math.abs(d) * 2 ** -22 + 2;
    }
    return { rows, dots };
  };
}

function jsRange(matrix: VectorMatrix, query: Float32Array, k: number, start: number, end: number, exclude: ReadonlySet<number> | undefined): ScoredRow[] {
  const top = new TopK(k);
  const { data, dims } = matrix;
  const skip = exclude && exclude.size > 0 ? exclude : null;
  for (let row = start; row < end; row++) {
    if (skip?.has(row)) continue;
    top.push(row, dotAt(data, row, query, dims));
  }
  return top.sorted();
}

/**
 * usearch 2.26.2's binding reads a typed array from the start of its ArrayBuffer and ignores
 * `byteOffset`, so a subarray that does not start at offset 0 would silently scan the wrong rows.
 * A prefix view is safe; anything else is copied (callers that scan segments keep each segment in
 * its own buffer to avoid the copy — see matrix-cache.ts).
 */
function zeroOffsetView<T extends Float32Array | Int8Array>(data: T, from: number, to: number): T {
  if (data.byteOffset === 0 && from === 0) return (to === data.length ? data : data.subarray(0, to)) as T;
  return data.slice(from, to) as T;
}

function usearchRange(usearch: UsearchModule, matrix: VectorMatrix, query: Float32Array, k: number, start: number, end: number, options: ScanOptions): ScoredRow[] {
  const { dims, data } = matrix;
  const n = end - start;
  const view = zeroOffsetView(data, start * dims, end * dims);
  const q = zeroOffsetView(query, 0, dims);
  const threads = options.threads ?? defaultThreads(n);
  const eps = scoreEpsilon(dims);
  let want = Math.min(n, k + excludedIn(options.exclude, start, end) + CANDIDATE_MARGIN);
  for (;;) {
    const found = usearch.exactSearch(view, q, dims, want, usearch.MetricKind.IP, threads);
    const top = new TopK(k);
    let weakest = Infinity;
    for (let i = 0; i < found.keys.length; i++) {
      const row = start + Number(found.keys[i]);
      weakest = Math.min(weakest, 1 - found.distances[i]!); // usearch's inner-product distance is 1 − dot
      if (options.exclude?.has(row)) continue;
      top.push(row, dotAt(data, row, query, dims));
    }
    const result = top.sorted();
    if (want >= n) return result;
    // Unseen rows score ≤ weakest + ε canonically; strictly below the k-th result means none can enter.
    if (result.length === k && result[k - 1]!.score > weakest + eps) return result;
    want = Math.min(n, want * 2);
  }
}

/** L2-normalise in place (zero vectors stay zero); returns the input. */
export function normalizeL2(v: Float32Array): Float32Array {
  let s = 0;
  for (const x of v) s += x * x;
  if (s > 0) {
    const inv = 1 / Math.sqrt(s);
    for (let i = 0; i < v.length; i++) v[i] = v[i]! * inv;
  }
  return v;
}

export { compareScored };
