/**
 * The certified int8 scan returns exactly the float32 scan's top-k — rows, canonical scores (bit
 * for bit: both come from `dotAt`) and tie order (score desc, then lower row) — on random and
 * adversarial matrices: many exact ties, duplicated rows, near-equal scores, zero rows and queries,
 * columns whose magnitudes differ by 10^5, non-unit rows, with exclusions, row ranges and tiny first
 * candidate counts that force the widening and the fallback. Both int8 kernels (usearch's SIMD and
 * the pure-JS one) are checked. A control shows the properties can fail: with the error bound ε
 * set to 0 the same generator finds a wrong answer.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { loadUsearch, normalizeL2, quantizeMatrix, scanTopK, type Int8ScanStats, type ScanBackend, type VectorMatrix } from '../src/internal.js';
import { certifiedRangeTopK, jsInt8Kernel, prepareQuery, quantizesTo } from '../src/int8-scan.js';
import { compareScored, dotAt } from '../src/vector-scan.js';

function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

const KINDS = ['random', 'ties', 'near-equal', 'zeros', 'spread', 'integers'] as const;
type Kind = (typeof KINDS)[number];

interface Case {
  kind: Kind;
  rows: number;
  dims: number;
  seed: number;
  k: number;
  candidates: number;
  query: 'random' | 'row' | 'zero';
  excludeEvery: number;
  split: boolean;
}

/** Builds the matrix and query of a case (deterministic in the seed). */
function build(c: Case): { m: VectorMatrix; q: Float32Array } {
  const r = rng(c.seed);
  const { rows, dims } = c;
  const data = new Float32Array(rows * dims);
  const pool = Array.from({ length: 3 }, () => normalizeL2(Float32Array.from({ length: dims }, () => r() * 2 - 1)));
  const spread = Float32Array.from({ length: dims }, () => 10 ** (r() * 5 - 4)); // 1e-4 … 10
  for (let row = 0; row < rows; row++) {
    const v = data.subarray(row * dims, (row + 1) * dims);
    switch (c.kind) {
      case 'random':
        for (let j = 0; j < dims; j++) v[j] = r() * 2 - 1;
        normalizeL2(v);
        break;
      case 'ties': // a handful of distinct rows, each duplicated many times
        v.set(pool[Math.floor(r() * pool.length)]!);
        break;
      case 'near-equal': // one direction, perturbed in the 5th-7th decimal: scores within 1e-6 of each other
        for (let j = 0; j < dims; j++) v[j] = pool[0]![j]! + (r() - 0.5) * 10 ** -(5 + Math.floor(r() * 3));
        break;
      case 'zeros': // a third of the rows are zero vectors (score 0 for every query)
        if (r() < 0.66) {
          for (let j = 0; j < dims; j++) v[j] = r() * 2 - 1;
          normalizeL2(v);
        }
        break;
      case 'spread': // columns of very different magnitudes, rows not unit length
        for (let j = 0; j < dims; j++) v[j] = (r() * 2 - 1) * spread[j]!;
        break;
      case 'integers': // small integers: many exact ties among different rows
        for (let j = 0; j < dims; j++) v[j] = Math.floor(r() * 3) - 1;
        break;
    }
  }
  let q: Float32Array;
  if (c.query === 'zero') q = new Float32Array(dims);
  else if (c.query === 'row') {
    const row = Math.floor(r() * rows);
    q = data.slice(row * dims, (row + 1) * dims);
  }
  else {
    q = Float32Array.from({ length: dims }, () => r() * 2 - 1);
    if (c.kind !== 'spread') normalizeL2(q);
  }
  return { m: { dims, rows, data }, q: q.slice() };
}

function reference(m: VectorMatrix, q: Float32Array, k: number, ranges: Array<[number, number]>, exclude: Set<number>) {
  const all = [];
  for (const [s, e] of ranges) for (let row = s; row < e; row++) if (!exclude.has(row)) all.push({ row, score: dotAt(m.data, row, q, m.dims) });
  return all.sort(compareScored).slice(0, k);
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  kind: fc.constantFrom(...KINDS),
  rows: fc.integer({ min: 1, max: 600 }),
  dims: fc.integer({ min: 1, max: 40 }),
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  k: fc.integer({ min: 1, max: 25 }),
  candidates: fc.constantFrom(0, 1, 4, 64),
  query: fc.constantFrom('random' as const, 'row' as const, 'zero' as const),
  excludeEvery: fc.constantFrom(0, 3, 11),
  split: fc.boolean(),
});

function rangesOf(c: Case): Array<[number, number]> {
  if (!c.split || c.rows < 4) return [[0, c.rows]];
  const a = Math.floor(c.rows / 3);
  return [[0, a], [a + 1, c.rows]];
}

function excludeOf(c: Case): Set<number> {
  const out = new Set<number>();
  if (c.excludeEvery > 0) for (let row = 0; row < c.rows; row += c.excludeEvery) out.add(row);
  return out;
}

const backends: ScanBackend[] = loadUsearch() ? ['js', 'usearch'] : ['js'];

describe('certified int8 scan', () => {
  test('usearch loads here, so its int8 kernel is really exercised', () => {
    expect(loadUsearch()).not.toBeNull();
  });

  test.each(backends)('%s int8 kernel: identical to the float32 scan on random and adversarial matrices (property)', (backend) => {
    const stats: Int8ScanStats = { passes: 0, rescored: 0, fellBack: 0 };
    const kinds = new Set<Kind>();
    let certifiedFirstPass = 0;
    let widened = 0;
    fc.assert(
      fc.property(caseArb, (c) => {
        const { m, q } = build(c);
        const q8 = quantizeMatrix(m.data, m.rows, m.dims);
        const ranges = rangesOf(c);
        const exclude = excludeOf(c);
        const before = { ...stats };
        const got = scanTopK(m, q, { k: c.k, backend, ranges, exclude, int8: { matrix: q8, candidates: c.candidates, stats } });
        expect(got).toEqual(reference(m, q, c.k, ranges, exclude));
        // and the plain float32 path agrees too (the list the int8 pass must reproduce)
        expect(got).toEqual(scanTopK(m, q, { k: c.k, backend, ranges, exclude }));
        kinds.add(c.kind);
        const passes = stats.passes - before.passes;
        if (stats.fellBack === before.fellBack && passes === ranges.length && m.rows > c.k + 20) certifiedFirstPass++;
        if (passes > ranges.length) widened++;
      }),
      { numRuns: 250, seed: backend === 'js' ? 2201 : 2202 },
    );
    expect(kinds.size).toBe(KINDS.length);
    // Both branches of the certificate ran: certified at once, and widened.
    expect(certifiedFirstPass).toBeGreaterThan(10);
    expect(widened).toBeGreaterThan(10);
  });

  test.each(backends)('%s: thousands of tied rows at the boundary hand the range to the full float32 scan, same answer', (backend) => {
    for (const kind of ['ties', 'integers'] as const) {
      const c: Case = { kind, rows: 6_000, dims: kind === 'ties' ? 12 : 3, seed: 77, k: 10, candidates: 64, query: 'row', excludeEvery: 7, split: false };
      const { m, q } = build(c);
      const stats: Int8ScanStats = { passes: 0, rescored: 0, fellBack: 0 };
      const exclude = excludeOf(c);
      const got = scanTopK(m, q, { k: 10, backend, exclude, int8: { matrix: quantizeMatrix(m.data, m.rows, m.dims), stats } });
      expect(got).toEqual(reference(m, q, 10, [[0, m.rows]], exclude));
      // 2,000 copies of the query's row: no candidate list short of a quarter of the rows certifies
      if (kind === 'ties') expect(stats.fellBack).toBe(1);
    }
  });

  test.each(backends)('%s: larger unit matrices are certified by the first pass with few rescored rows', (backend) => {
    const c: Case = { kind: 'random', rows: 20_000, dims: 64, seed: 5, k: 10, candidates: 64, query: 'random', excludeEvery: 0, split: false };
    const { m } = build(c);
    const q8 = quantizeMatrix(m.data, m.rows, m.dims);
    const stats: Int8ScanStats = { passes: 0, rescored: 0, fellBack: 0 };
    for (let t = 0; t < 10; t++) {
      const q = m.data.slice(t * 64, t * 64 + 64); // a stored row: a clear best match
      expect(scanTopK(m, q, { k: 10, backend, int8: { matrix: q8, stats } })).toEqual(reference(m, q, 10, [[0, m.rows]], new Set()));
    }
    expect(stats.fellBack).toBe(0);
    expect(stats.rescored).toBeLessThan(20_000); // far fewer than the rows of the 10 scans
  });

  test('control: with ε = 0 the same generator finds a wrong top-k (the bound is what makes it exact)', () => {
    const wrong = fc.check(
      fc.property(caseArb, (c) => {
        const { m, q } = build(c);
        const q8 = quantizeMatrix(m.data, m.rows, m.dims);
        const prepared = { ...prepareQuery(q8, q), epsilon: 0 };
        const got = certifiedRangeTopK(q8, prepared, {
          k: c.k, start: 0, end: m.rows, exclude: undefined, threads: 1, candidates: 0, kernel: jsInt8Kernel,
          exact: (rows) => rows.map((row) => dotAt(m.data, row, q, m.dims)),
          fallback: () => reference(m, q, c.k, [[0, m.rows]], new Set()),
        });
        expect(got).toEqual(reference(m, q, c.k, [[0, m.rows]], new Set()));
      }),
      { numRuns: 300, seed: 2203 },
    );
    expect(wrong.failed).toBe(true);
  });

  test('quantisation: codes within ±127, each row re-quantises to its codes, residual within the stored bound', () => {
    const { m } = build({ kind: 'spread', rows: 200, dims: 24, seed: 9, k: 1, candidates: 0, query: 'random', excludeEvery: 0, split: false });
    const q8 = quantizeMatrix(m.data, m.rows, m.dims);
    for (let row = 0; row < m.rows; row++) {
      const v = m.data.subarray(row * m.dims, (row + 1) * m.dims);
      expect(quantizesTo(q8, row, v)).toBe(true);
      let r2 = 0;
      for (let j = 0; j < m.dims; j++) r2 += (v[j]! * q8.scales[j]! - q8.codes[row * m.dims + j]!) ** 2;
      expect(Math.sqrt(r2)).toBeLessThanOrEqual(q8.maxResidualNorm);
    }
    expect(Math.max(...q8.codes.map(Math.abs))).toBe(127);
    expect(quantizesTo(q8, 0, m.data.subarray(m.dims, 2 * m.dims))).toBe(false);
  });
});
