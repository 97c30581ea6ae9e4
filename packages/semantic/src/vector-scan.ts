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
 * - `int8` (optional, approximate) — an int8 first pass through usearch over a quantised copy,
 *   then float32 rescoring of `rescore × k` candidates. Recall against exact is measured by
 *   `pnpm bench:vector`, never assumed.
 *
 * simsimd was measured as a row-at-a-time kernel in the same bench; its per-call N-API cost makes
 * it slower than usearch's batched scan at every size we care about, so it is not a backend here.
 * Row ranges let a caller scan several contiguous segments (e.g. one per role) of one matrix
 * without copying; `exclude` removes rows (the caller's own live messages) with a proven over-fetch.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
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

/** A matrix quantised to int8 (`quantizeInt8`), for an approximate first pass before an exact rescore. */
export interface Int8Matrix {
  readonly dims: number;
  readonly rows: number;
  readonly data: Int8Array;
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
  /** Approximate int8 first pass (needs a quantised copy of the matrix) + float32 rescore. */
  int8?: { matrix: Int8Matrix; rescore?: number };
}

/** Extra candidates asked of usearch beyond k + excluded rows, so the boundary check rarely retries. */
const CANDIDATE_MARGIN = 16;
/** Below this many rows a second thread costs more to start than it saves (see docs/benchmarks.md). */
export const PARALLEL_MIN_ROWS = 65_536;
/** Default int8 candidates per wanted result before float32 rescoring (recall measured by bench:vector). */
export const INT8_RESCORE = 8;

interface UsearchModule {
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
  const merged = new TopK(k);
  for (const [start, end] of ranges) {
    const part = usearch
      ? options.int8
        ? int8Range(usearch, matrix, options.int8, query, k, start, end, options)
        : usearchRange(usearch, matrix, query, k, start, end, options)
      : jsRange(matrix, query, k, start, end, options.exclude);
    for (const r of part) merged.push(r.row, r.score);
  }
  return merged.sorted();
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

function int8Range(usearch: UsearchModule, matrix: VectorMatrix, q8: { matrix: Int8Matrix; rescore?: number }, query: Float32Array, k: number, start: number, end: number, options: ScanOptions): ScoredRow[] {
  const { dims } = matrix;
  if (q8.matrix.dims !== dims || q8.matrix.rows !== matrix.rows) throw new RangeError('the int8 matrix does not match the float32 matrix');
  const n = end - start;
  const want = Math.min(n, k * (q8.rescore ?? INT8_RESCORE) + excludedIn(options.exclude, start, end));
  const found = usearch.exactSearch(zeroOffsetView(q8.matrix.data, start * dims, end * dims), quantizeQuery(query), dims, want, usearch.MetricKind.IP, options.threads ?? defaultThreads(n));
  const top = new TopK(k);
  for (let i = 0; i < found.keys.length; i++) {
    const row = start + Number(found.keys[i]);
    if (options.exclude?.has(row)) continue;
    top.push(row, dotAt(matrix.data, row, query, dims));
  }
  return top.sorted();
}

/**
 * Symmetric int8 quantisation with one scale for the whole matrix (127 / largest |component|): unit
 * vectors share a range, and one scale keeps inner products comparable across rows.
 */
export function quantizeInt8(matrix: VectorMatrix): Int8Matrix {
  const n = matrix.rows * matrix.dims;
  let max = 0;
  for (let i = 0; i < n; i++) max = Math.max(max, Math.abs(matrix.data[i]!));
  const scale = max > 0 ? 127 / max : 1;
  const out = new Int8Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.round(matrix.data[i]! * scale);
  return { dims: matrix.dims, rows: matrix.rows, data: out };
}

/** The query gets its own scale: a positive factor on the query does not change the ranking. */
function quantizeQuery(query: Float32Array): Int8Array {
  let max = 0;
  for (const x of query) max = Math.max(max, Math.abs(x));
  const scale = max > 0 ? 127 / max : 1;
  return Int8Array.from(query, (x) => Math.round(x * scale));
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
