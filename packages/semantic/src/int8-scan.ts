/**
 * The default exact scan: an int8 first pass over a quantised copy of the matrix, float32 rescoring
 * of its best candidates with the canonical score, and a certificate that no row outside the
 * rescored candidates can reach the result. The answer is therefore the float32 scan's answer,
 * rows, scores and tie order included; the int8 pass only decides which rows are worth rescoring.
 *
 * Quantisation (per matrix, per column j): `code[i][j] = round(x[i][j] · scale[j])`, with
 * `scale[j] = 127 / max_i |x[i][j]|`. Write the rounding residual `e[i][j] = x[i][j] · scale[j] −
 * code[i][j]` (|e| ≤ ½). For a query q, let `q'[j] = q[j] / scale[j]`, quantise it with its own
 * scale T (`qc = round(q' · T)`, residual `f = q' · T − qc`). Then, exactly in real numbers,
 *
 *     q · x_i = (qc · code_i) / T  +  (f · code_i) / T  +  q' · e_i
 *
 * so with the approximate score `a_i = (qc · code_i) / T` (an integer dot product — what the int8
 * kernel ranks by) and Cauchy–Schwarz,
 *
 *     |q · x_i − a_i|  ≤  ‖f‖ · ‖code_i‖ / T  +  ‖q'‖ · ‖e_i‖  ≤  ‖f‖ · maxCodeNorm / T + ‖q'‖ · maxResidualNorm  =  ε.
 *
 * The int8 pass returns the M rows with the largest integer dot products, best first; every other
 * row has `a ≤ a_M`, hence an exact score `≤ a_M + ε`. Candidates are rescored exactly in that
 * order, a few at a time; as soon as the k-th exact score is strictly greater than `a_next + ε` (the
 * best approximate score not rescored yet, plus a tiny slack for float64 rounding), no other row can
 * enter the top k — not even as a tie that would win on the lower row. If the list runs out first,
 * M grows (×4) and the pass repeats (scores already read are reused); past a quarter of the rows the
 * caller's full scan runs instead.
 */
import { TopK, type ScoredRow } from './topk.js';

/** A matrix quantised per column to int8, with the norms the exactness certificate needs. */
export interface QuantizedMatrix {
  readonly dims: number;
  readonly rows: number;
  /** rows × dims codes, row-major, in a buffer of its own (usearch ignores byteOffset). */
  readonly codes: Int8Array;
  /** Per column: code = round(x · scale). */
  readonly scales: Float64Array;
  /** max over rows of ‖x · scale − code‖₂ (rounded up). */
  readonly maxResidualNorm: number;
  /** max over rows of ‖code‖₂. */
  readonly maxCodeNorm: number;
  /** max over rows of ‖x‖₂ (scales the float64 rounding slack). */
  readonly maxRowNorm: number;
}

/** The int8 candidate kernel: top-`count` rows of `codes` by integer dot product with `query`, best first. */
export type Int8Kernel = (codes: Int8Array, query: Int8Array, dims: number, count: number, threads: number) => { rows: Int32Array; dots: Float64Array };

const ROUND_UP = 1 + 1e-12;

/** Per-column symmetric int8 quantisation of a row-major float32 matrix (see the module header). */
export function quantizeMatrix(data: Float32Array, rows: number, dims: number): QuantizedMatrix {
  const colMax = new Float64Array(dims);
  for (let row = 0; row < rows; row++) {
    const o = row * dims;
    for (let j = 0; j < dims; j++) {
      const v = Math.abs(data[o + j]!);
      if (v > colMax[j]!) colMax[j] = v;
    }
  }
  const scales = new Float64Array(dims);
  for (let j = 0; j < dims; j++) scales[j] = colMax[j]! > 0 && Number.isFinite(colMax[j]!) ? 127 / colMax[j]! : 1;
  const codes = new Int8Array(rows * dims);
  let maxResidual = 0;
  let maxCode = 0;
  let maxRow = 0;
  for (let row = 0; row < rows; row++) {
    const o = row * dims;
    let r2 = 0;
    let c2 = 0;
    let x2 = 0;
    for (let j = 0; j < dims; j++) {
      const x = data[o + j]!;
      const scaled = x * scales[j]!;
      const code = toCode(scaled);
      codes[o + j] = code;
      const e = scaled - code;
      r2 += e * e;
      c2 += code * code;
      x2 += x * x;
    }
    // A NaN or infinite component makes the row's norms NaN/∞: ε becomes ∞ and the scan falls back.
    if (!(r2 <= maxResidual)) maxResidual = Number.isNaN(r2) ? Infinity : r2;
    if (!(c2 <= maxCode)) maxCode = Number.isNaN(c2) ? Infinity : c2;
    if (!(x2 <= maxRow)) maxRow = Number.isNaN(x2) ? Infinity : x2;
  }
  return { dims, rows, codes, scales, maxResidualNorm: Math.sqrt(maxResidual) * ROUND_UP + 1e-12, maxCodeNorm: Math.sqrt(maxCode) * ROUND_UP, maxRowNorm: Math.sqrt(maxRow) * ROUND_UP };
}

/**
 * Round to the nearest integer (halves up) for |scaled| ≤ 127 + rounding — |x| never exceeds its
 * column's max — as `floor(scaled + 128.5) − 128` through an int32 truncation: several times faster
 * than Math.round in V8. Any rounding would do (the bound uses the actual residuals); this one must
 * only be the same everywhere (`quantizesTo`). NaN/∞ give −128 with a NaN/∞ residual.
 */
function toCode(scaled: number): number {
  return ((scaled + 128.5) | 0) - 128;
}

/** True when `vector` quantises to exactly row `row` of `q8` (a cheap staleness check). */
export function quantizesTo(q8: QuantizedMatrix, row: number, vector: Float32Array): boolean {
  const o = row * q8.dims;
  for (let j = 0; j < q8.dims; j++) {
    if (q8.codes[o + j] !== toCode(vector[j]! * q8.scales[j]!)) return false;
  }
  return true;
}

/** A query prepared against one quantised matrix: its int8 codes, T and the error bound ε. */
export interface PreparedQuery {
  codes: Int8Array;
  /** Approximate score = integer dot / t. */
  t: number;
  /** |exact − approximate| ≤ epsilon for every row of the matrix. */
  epsilon: number;
}

export function prepareQuery(q8: QuantizedMatrix, query: Float32Array): PreparedQuery {
  const { dims, scales } = q8;
  const qp = new Float64Array(dims);
  let max = 0;
  let qp2 = 0;
  let q2 = 0;
  for (let j = 0; j < dims; j++) {
    qp[j] = query[j]! / scales[j]!;
    max = Math.max(max, Math.abs(qp[j]!));
    qp2 += qp[j]! ** 2;
    q2 += query[j]! ** 2;
  }
  const t = max > 0 ? 127 / max : 1;
  const codes = new Int8Array(dims);
  let f2 = 0;
  for (let j = 0; j < dims; j++) {
    const scaled = qp[j]! * t;
    const code = Math.max(-127, Math.min(127, Math.round(scaled)));
    codes[j] = code;
    f2 += (scaled - code) ** 2;
  }
  const bound = (Math.sqrt(f2) * q8.maxCodeNorm) / t + Math.sqrt(qp2) * q8.maxResidualNorm;
  // Slack for float64 rounding in the scales, the bound itself and the canonical score.
  const slack = 1e-9 * (1 + Math.sqrt(q2) * q8.maxRowNorm) + bound * 1e-9;
  return { codes, t, epsilon: bound + slack };
}

/** The pure-JS int8 kernel: exact integer dot products, ties by lower row (same order as TopK). */
export const jsInt8Kernel: Int8Kernel = (codes, query, dims, count) => {
  const rows = codes.length / dims;
  const top = new TopK(Math.min(count, rows));
  for (let row = 0; row < rows; row++) {
    const o = row * dims;
    let s = 0;
    for (let j = 0; j < dims; j++) s += codes[o + j]! * query[j]!;
    top.push(row, s);
  }
  const sorted = top.sorted();
  return { rows: Int32Array.from(sorted, (r) => r.row), dots: Float64Array.from(sorted, (r) => r.score) };
};

/** What certified scans did, accumulated over calls (for the bench and the tests). */
export interface Int8ScanStats {
  /** int8 passes run (one per range when the first candidate list was certified). */
  passes: number;
  /** Candidates rescored in float32, over all passes. */
  rescored: number;
  /** Ranges where the certificate never held cheaply and the full float32 scan answered. */
  fellBack: number;
}

export interface CertifiedRangeOptions {
  k: number;
  start: number;
  end: number;
  exclude: ReadonlySet<number> | undefined;
  threads: number;
  /** First candidate count (before excluded rows are added). */
  candidates: number;
  kernel: Int8Kernel;
  /** The canonical exact scores of rows (absolute indices), in order — one call per pass, so a reader can batch. */
  exact: (rows: readonly number[]) => ArrayLike<number>;
  /** The full exact scan of the range, when the certificate cannot be had cheaply. */
  fallback: () => ScoredRow[];
  stats?: Int8ScanStats;
}

/** usearch-style view rule: codes of [start, end) in a buffer that starts at offset 0. */
function rangeCodes(codes: Int8Array, from: number, to: number): Int8Array {
  if (codes.byteOffset === 0 && from === 0) return to === codes.length ? codes : codes.subarray(0, to);
  return codes.slice(from, to);
}

/** The steps of a certified scan: yields the rows whose exact scores it needs (in order), receives them; returns the top k, or FALLBACK. */
type CertifiedSteps = Generator<readonly number[], ScoredRow[] | typeof FALLBACK, ArrayLike<number>>;
const FALLBACK = Symbol('fallback');

/** Exact top-k of rows [start, end) through the int8 pass, certified (see the module header). */
export function certifiedRangeTopK(q8: QuantizedMatrix, prepared: PreparedQuery, o: CertifiedRangeOptions): ScoredRow[] {
  const steps = certifiedSteps(q8, prepared, o);
  let next = steps.next();
  while (!next.done) next = steps.next(o.exact(next.value));
  return next.value === FALLBACK ? o.fallback() : next.value;
}

/** Options of `certifiedRangeTopKAsync()`: as CertifiedRangeOptions, with exact scores and the fallback read asynchronously. */
export interface AsyncCertifiedRangeOptions extends Omit<CertifiedRangeOptions, 'exact' | 'fallback'> {
  /** The canonical exact scores of rows (absolute indices), in order (e.g. one database read per batch). */
  exact: (rows: readonly number[]) => Promise<ArrayLike<number>>;
  /** The full exact scan of the range, when the certificate cannot be had cheaply. */
  fallback: () => Promise<ScoredRow[]>;
  /** Rows asked of `exact` per batch at least (fewer round trips; default as the synchronous scan). */
  minBatch?: number;
}

/** `certifiedRangeTopK` with asynchronous exact scores: the same steps, rows and result. */
export async function certifiedRangeTopKAsync(q8: QuantizedMatrix, prepared: PreparedQuery, o: AsyncCertifiedRangeOptions): Promise<ScoredRow[]> {
  const steps = certifiedSteps(q8, prepared, { ...o, exact: () => [], fallback: () => [] });
  let next = steps.next();
  while (!next.done) next = steps.next(await o.exact(next.value));
  return next.value === FALLBACK ? o.fallback() : next.value;
}

function* certifiedSteps(q8: QuantizedMatrix, prepared: PreparedQuery, o: CertifiedRangeOptions & { minBatch?: number }): CertifiedSteps {
  const { dims } = q8;
  const n = o.end - o.start;
  let excluded = 0;
  if (o.exclude) for (const row of o.exclude) if (row >= o.start && row < o.end) excluded++;
  const stats = o.stats ?? { passes: 0, rescored: 0, fellBack: 0 };
  const view = rangeCodes(q8.codes, o.start * dims, o.end * dims);
  const minBatch = o.minBatch ?? 0;
  let want = Math.min(n, o.k + excluded + o.candidates);
  const scored = new Map<number, number>(); // exact scores survive a widening (they may be database reads)
  for (;;) {
    if (want < n && want > Math.max(1024, n / 4)) {
      stats.fellBack++;
      return FALLBACK;
    }
    stats.passes++;
    const found = o.kernel(view, prepared.codes, dims, want, o.threads);
    const m = found.rows.length;
    // bound[i]: no candidate from position i on, and no unseen row, has a larger integer dot.
    const bound = new Float64Array(m + 1);
    bound[m] = m >= n ? -Infinity : found.dots[m - 1]!;
    for (let i = m - 1; i >= 0; i--) bound[i] = Math.max(found.dots[i]!, bound[i + 1]!);
    const top = new TopK(o.k);
    // Rescore in the int8 order, in small batches, and stop as soon as the k-th exact score beats
    // everything not rescored yet: usually far fewer rows than the candidate list holds.
    let i = 0;
    for (;;) {
      if (top.length === o.k && top.threshold > bound[i]! / prepared.t + prepared.epsilon) return top.sorted();
      if (i >= m) break;
      const batch: number[] = [];
      const size = Math.max(minBatch, top.length < o.k ? o.k - top.length + 8 : 16);
      for (; i < m && batch.length < size; i++) {
        const row = o.start + found.rows[i]!;
        if (o.exclude?.has(row)) continue;
        const known = scored.get(row);
        if (known !== undefined) top.push(row, known);
        else batch.push(row);
      }
      if (batch.length > 0) {
        const scores: ArrayLike<number> = yield batch;
        batch.forEach((row, j) => {
          scored.set(row, scores[j]!);
          top.push(row, scores[j]!);
        });
        stats.rescored += batch.length;
      }
    }
    if (m >= n) return top.sorted(); // every row was rescored
    want = Math.min(n, want * 4);
  }
}
