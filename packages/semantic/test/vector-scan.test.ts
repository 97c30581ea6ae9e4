/**
 * The scan kernel: the bounded heap against a full sort, and every backend against the pure-JS
 * reference on random unit vectors, exact duplicates (ties at the top-k boundary), row ranges and
 * exclusions. The certified int8 pass has its own properties in int8-scan.property.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { loadUsearch, normalizeL2, scanTopK, TopK, type ScanBackend, type VectorMatrix } from '../src/internal.js';
import { compareScored, dotAt } from '../src/vector-scan.js';

function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return ((s >>> 0) / 2 ** 32) * 2 - 1;
  };
}

function randomMatrix(rows: number, dims: number, seed: number, duplicates = 0): VectorMatrix {
  const r = rng(seed);
  const data = new Float32Array(rows * dims);
  for (let row = 0; row < rows; row++) {
    const v = data.subarray(row * dims, (row + 1) * dims);
    for (let i = 0; i < dims; i++) v[i] = r();
    normalizeL2(v);
  }
  // copy row 0 over `duplicates` later rows: identical scores for any query
  for (let d = 1; d <= duplicates && d < rows; d++) data.copyWithin(((d * 7) % rows) * dims, 0, dims);
  return { dims, rows, data };
}

function reference(m: VectorMatrix, q: Float32Array, k: number, ranges?: Array<[number, number]>, exclude?: Set<number>) {
  const all = [];
  for (const [s, e] of ranges ?? [[0, m.rows]]) for (let row = s!; row < e!; row++) if (!exclude?.has(row)) all.push({ row, score: dotAt(m.data, row, q, m.dims) });
  return all.sort(compareScored).slice(0, k);
}

const backends: ScanBackend[] = loadUsearch() ? ['js', 'usearch'] : ['js'];

describe('TopK', () => {
  test('keeps the k best of a stream, best first, ties by lower row (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -5, max: 5 }), { maxLength: 200 }), fc.integer({ min: 0, max: 20 }), (scores, k) => {
        const top = new TopK(k);
        scores.forEach((s, row) => top.push(row, s));
        const expected = scores.map((score, row) => ({ row, score })).sort(compareScored).slice(0, k);
        expect(top.sorted()).toEqual(expected);
      }),
    );
  });
});

describe('scanTopK', () => {
  test('the usearch binary loads on this machine (the fast path is really exercised)', () => {
    expect(loadUsearch()).not.toBeNull();
  });

  test.each(backends)('%s equals the reference on random unit vectors, with duplicates, ranges and exclusions', (backend) => {
    const m = randomMatrix(3_000, 48, 7, 40);
    for (let t = 0; t < 20; t++) {
      const q = t % 4 === 0 ? m.data.slice(0, m.dims) : randomMatrix(1, 48, 100 + t).data; // t%4==0: the duplicated row itself
      const k = [1, 5, 10, 37][t % 4]!;
      const ranges: Array<[number, number]> | undefined = t % 3 === 0 ? [[0, 900], [1_500, 3_000]] : undefined;
      const exclude = t % 2 === 0 ? new Set([0, 7, 14, 21, 2_999]) : undefined;
      const got = scanTopK(m, q, { k, backend, ...(ranges ? { ranges } : {}), ...(exclude ? { exclude } : {}) });
      expect(got).toEqual(reference(m, q, k, ranges, exclude));
    }
  });

  test.each(backends)('%s: more duplicates than k at the boundary still picks the lowest rows', (backend) => {
    const dims = 16;
    const m = randomMatrix(500, dims, 3, 200);
    const q = m.data.slice(0, dims);
    const got = scanTopK(m, q, { k: 10, backend, threads: 2 });
    expect(got).toEqual(reference(m, q, 10));
    expect(new Set(got.map((r) => r.score)).size).toBe(1);
  });

  test.each(backends)('%s: a query or matrix that is a view into a larger buffer scans the right rows', (backend) => {
    const big = randomMatrix(400, 16, 9);
    const m: VectorMatrix = { dims: 16, rows: 300, data: big.data.subarray(100 * 16) };
    const q = big.data.subarray(150 * 16, 151 * 16);
    expect(scanTopK(m, q, { k: 5, backend })).toEqual(reference(m, q, 5));
    expect(scanTopK(m, q, { k: 5, backend })[0]!.row).toBe(50);
  });

  test.each(backends)('%s: k larger than the allowed rows returns them all; empty ranges return nothing', (backend) => {
    const m = randomMatrix(12, 8, 5);
    const q = randomMatrix(1, 8, 6).data;
    expect(scanTopK(m, q, { k: 50, backend, ranges: [[2, 6]] }).map((r) => r.row).sort((a, b) => a - b)).toEqual([2, 3, 4, 5]);
    expect(scanTopK(m, q, { k: 5, backend, ranges: [[3, 3]] })).toEqual([]);
    expect(scanTopK(m, q, { k: 5, backend, ranges: [[0, 3]], exclude: new Set([0, 1, 2]) })).toEqual([]);
  });

  test.each([
    ['wrong query dims', () => scanTopK(randomMatrix(4, 8, 1), new Float32Array(7), { k: 1 })],
    ['range past the end', () => scanTopK(randomMatrix(4, 8, 1), new Float32Array(8), { k: 1, ranges: [[0, 5]] })],
    ['negative k', () => scanTopK(randomMatrix(4, 8, 1), new Float32Array(8), { k: -1 })],
  ])('rejects %s', (_name, run) => {
    expect(run).toThrow(RangeError);
  });
});
