/**
 * The exact search's one rank order as a property (exact-search.ts `compareRanked`: score, then
 * message id, then chunk id): random allowed sets of several segments (roles, and a second segment of
 * a role as a MatrixCache tail is) whose rows take one of three vectors (so most scores tie exactly),
 * a message's chunks possibly split over segments, each segment's rows read in a shuffled order and
 * put in order by `orderSegment`; `searchAllowedSet` over them — float32, float32 + int8 first pass,
 * int8 only with the rescore read by chunk id, on each kernel — returns exactly the brute-force
 * ranking of every row in that order, collapsed to the first `limit` messages, whatever `limit`
 * (cuts inside tie groups included).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { MessageRole } from '@recall/rpc-contract';
import { orderSegment, type AllowedSegment, type AllowedSet } from '../src/allowed-set.js';
import { compareRanked, searchAllowedSet } from '../src/exact-search.js';
import { quantizeMatrix } from '../src/int8-scan.js';
import { dotAt, loadUsearch, type ScanBackend } from '../src/vector-scan.js';
import { seededUnitVector } from './support/seeded-vectors.js';

const DIMS = 6;
const VECTORS = [seededUnitVector(1, DIMS), seededUnitVector(2, DIMS), seededUnitVector(3, DIMS)];
const ROLES: MessageRole[] = ['user', 'assistant', 'user'];
const backends: ScanBackend[] = loadUsearch() ? ['js', 'usearch'] : ['js'];

type Row = { seg: number; messageId: number; vector: number; session: number };
const rowArb = fc.record({ seg: fc.nat(2), messageId: fc.integer({ min: 1, max: 12 }), vector: fc.nat(2), session: fc.nat(1) });

/** The set of `rows` (chunk ids by position), each segment's rows in the order `shuffle` gives. */
function buildSet(rows: readonly Row[], chunkIds: readonly number[], mode: 'float32' | 'int8' | 'int8-only', shuffle: (n: number) => number[]): AllowedSet {
  const blobs = new Map<number, Uint8Array>();
  const segments: AllowedSegment[] = [];
  for (let s = 0; s < ROLES.length; s++) {
    const mine = rows.map((r, i) => ({ ...r, chunkId: chunkIds[i]! })).filter((r) => r.seg === s);
    if (mine.length === 0) continue;
    const order = shuffle(mine.length);
    const n = mine.length;
    const data = new Float32Array(n * DIMS);
    const seg: AllowedSegment = { role: ROLES[s]!, rows: n, matrix: { dims: DIMS, rows: n, data }, chunkIds: new Float64Array(n), messageIds: new Float64Array(n), sessionIdx: new Int32Array(n), start: new Int32Array(n), end: new Int32Array(n), live: new Uint8Array(n) };
    order.forEach((from, to) => {
      const r = mine[from]!;
      data.set(VECTORS[r.vector]!, to * DIMS);
      seg.chunkIds[to] = r.chunkId;
      seg.messageIds[to] = r.messageId;
      seg.sessionIdx[to] = r.session;
      seg.start[to] = r.chunkId * 10;
      seg.end[to] = r.chunkId * 10 + 5;
      seg.live[to] = 1;
      blobs.set(r.chunkId, new Uint8Array(Float32Array.from(VECTORS[r.vector]!).buffer));
    });
    orderSegment(seg);
    for (let i = 1; i < n; i++) expect(compareRanked(0, seg.messageIds[i - 1]!, seg.chunkIds[i - 1]!, 0, seg.messageIds[i]!, seg.chunkIds[i]!)).toBeLessThan(0);
    // Every row kept its own anchors and vector through the sort.
    for (let i = 0; i < n; i++) {
      const r = mine.find((x) => x.chunkId === seg.chunkIds[i])!;
      expect([seg.messageIds[i], seg.sessionIdx[i], seg.start[i], [...seg.matrix!.data.subarray(i * DIMS, (i + 1) * DIMS)]]).toEqual([r.messageId, r.session, r.chunkId * 10, [...VECTORS[r.vector]!]]);
    }
    if (mode !== 'float32') seg.q8 = quantizeMatrix(seg.matrix!.data, n, DIMS);
    if (mode === 'int8-only') seg.matrix = null;
    segments.push(seg);
  }
  return {
    fingerprintId: 1,
    dims: DIMS,
    sessions: ['s0', 's1'],
    segments,
    rows: rows.length,
    bytes: 0,
    skipped: 0,
    readVectors: (ids) => new Map(ids.map((id) => [id, blobs.get(id)!])),
  };
}

describe('exact search: one rank order (score, message id, chunk id) over every segment', () => {
  test('equals the brute-force ranking for every limit, kernel and int8 mode (property)', () => {
    fc.assert(
      fc.property(fc.array(rowArb, { minLength: 1, maxLength: 40 }), fc.nat(3), fc.integer({ min: 1, max: 14 }), fc.integer(), (rows, queryPick, limit, seed) => {
        // Unique chunk ids in an order unrelated to the rows' (a message's later chunk may have the lower id).
        const chunkIds = rows.map((_, i) => ((i * 7919 + seed) >>> 0) % 100_003 + i * 100_003);
        let state = seed >>> 0;
        const shuffle = (n: number): number[] => {
          const a = Array.from({ length: n }, (_, i) => i);
          for (let i = n - 1; i > 0; i--) {
            state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
            const j = state % (i + 1);
            [a[i], a[j]] = [a[j]!, a[i]!];
          }
          return a;
        };
        const query = queryPick < 3 ? VECTORS[queryPick]! : seededUnitVector(seed, DIMS);
        const ranked = rows
          .map((r, i) => ({ ...r, chunkId: chunkIds[i]!, score: dotAt(VECTORS[r.vector]!, 0, query, DIMS) }))
          .sort((a, b) => compareRanked(a.score, a.messageId, a.chunkId, b.score, b.messageId, b.chunkId));
        const want: Array<{ messageId: number; sessionId: string; score: number; start: number; end: number }> = [];
        for (const r of ranked) {
          if (want.length === limit || want.some((h) => h.messageId === r.messageId)) continue;
          want.push({ messageId: r.messageId, sessionId: `s${r.session}`, score: r.score, start: r.chunkId * 10, end: r.chunkId * 10 + 5 });
        }
        for (const mode of ['float32', 'int8', 'int8-only'] as const) {
          for (const backend of backends) {
            const set = buildSet(rows, chunkIds, mode, shuffle);
            const got = searchAllowedSet(set, { kind: 'project', projectId: 'p', currentSessionId: null }, query, { limit, backend, int8: mode !== 'float32' });
            expect(got).toEqual(want);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
