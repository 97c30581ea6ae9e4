/**
 * The designed fusion on hand-computed examples: weighted RRF scores, the similarity floor, the
 * keyword-first form, match sources, per-model hints and their bounds.
 */
import { describe, expect, test } from 'vitest';
import { FUSION_DEFAULTS, fuseRankings, fusionParamsFor, keywordConfidence, type FusionParams } from '../src/fusion.js';

const rrf = (k: number, keywordWeight: number, semanticWeight = 1, similarityFloor = 0): FusionParams => ({ form: 'weighted-rrf', k, keywordWeight, semanticWeight, similarityFloor });
const sem = (...pairs: Array<[number, number]>) => pairs.map(([key, score]) => ({ key, score }));

describe('fuseRankings', () => {
  test.each([
    {
      name: 'k=10, keyword weight 2: a semantic-only top hit (1/11) ties keyword rank 12 (2/22) and, appearing later, follows it',
      keyword: Array.from({ length: 12 }, (_, i) => i + 1),
      semantic: sem([99, 0.9]),
      params: rrf(10, 2),
      expected: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 99],
    },
    {
      name: 'equal-weight k=60: the same semantic hit ties keyword rank 1 and keeps first appearance after it',
      keyword: [1, 2, 3],
      semantic: sem([99, 0.9]),
      params: rrf(60, 1),
      expected: [1, 99, 2, 3],
    },
    {
      name: 'agreement: keyword rank 3 + semantic rank 1 = 2/13 + 1/11 = 0.245 beats keyword rank 1 alone (2/11 = 0.182)',
      keyword: [1, 2, 3],
      semantic: sem([3, 0.8]),
      params: rrf(10, 2),
      expected: [3, 1, 2],
    },
    {
      name: 'the floor drops weak semantic hits before ranking (8 is not counted, so 9 is semantic rank 1)',
      keyword: [1],
      semantic: sem([8, 0.2], [9, 0.5]),
      params: rrf(10, 2, 1, 0.3),
      expected: [1, 9],
    },
    {
      name: 'keyword-first never reorders keyword and appends semantic rescues in semantic order',
      keyword: [1, 2, 3],
      semantic: sem([3, 0.9], [7, 0.8], [6, 0.7]),
      params: { ...rrf(10, 2), form: 'keyword-first' as const },
      expected: [1, 2, 3, 7, 6],
    },
  ])('$name', ({ keyword, semantic, params, expected }) => {
    expect(fuseRankings(keyword, semantic, params).map((f) => f.key)).toEqual(expected);
  });

  test('scores, ranks and sources are reported per item', () => {
    const out = fuseRankings([1, 2], sem([2, 0.7], [5, 0.6]), rrf(10, 2));
    expect(out).toEqual([
      { key: 2, score: 2 / 12 + 1 / 11, source: 'both', ranks: { keyword: 2, semantic: 1 } },
      { key: 1, score: 2 / 11, source: 'keyword', ranks: { keyword: 1 } },
      { key: 5, score: 1 / 12, source: 'semantic', ranks: { semantic: 2 } },
    ]);
  });

  test('a key repeated in one list counts once, at its best rank', () => {
    expect(fuseRankings([4, 4, 5], sem([6, 0.9], [6, 0.8]), rrf(10, 2)).map((f) => [f.key, f.ranks])).toEqual([
      [4, { keyword: 1 }],
      [5, { keyword: 3 }],
      [6, { semantic: 1 }],
    ]);
  });

  test.each([
    [undefined, FUSION_DEFAULTS],
    [{ semanticWeight: 2 }, { ...FUSION_DEFAULTS, semanticWeight: 2 }],
    [{ similarityFloor: 0.45 }, { ...FUSION_DEFAULTS, similarityFloor: 0.45 }],
    [{ semanticWeight: -3, similarityFloor: 7 }, { ...FUSION_DEFAULTS, semanticWeight: 0, similarityFloor: 1 }],
    [{ semanticWeight: Number.NaN }, FUSION_DEFAULTS],
  ])('per-model hints %j → bounded parameters', (hints, expected) => {
    expect(fusionParamsFor(hints)).toEqual(expected);
  });
});

describe('rank bonus of keyword rank 1', () => {
  const kw = ['k1', 'k2', 'k3'];
  const sem = [{ key: 'k2', score: 0.9 }, { key: 's1', score: 0.8 }];
  test.each([
    [{ ...FUSION_DEFAULTS }, 1, ['k1', 'k2', 'k3', 's1']],
    [{ ...FUSION_DEFAULTS, keywordTopBonus: 0 }, 1, ['k2', 'k1', 'k3', 's1']],
    [{ ...FUSION_DEFAULTS, keywordTopMinGap: 0.5 }, 0.2, ['k2', 'k1', 'k3', 's1']],
    [{ ...FUSION_DEFAULTS, keywordTopMinGap: 0.5 }, 0.6, ['k1', 'k2', 'k3', 's1']],
    [{ ...FUSION_DEFAULTS, keywordTopRanks: 2 }, 1, ['k1', 'k2', 'k3', 's1']],
  ])('%j with lead %f → %j', (params, lead, expected) => {
    expect(fuseRankings(kw, sem, params, lead).map((c) => c.key)).toEqual(expected);
  });
  test('no bonus without a semantic list (keyword order either way)', () => {
    expect(fuseRankings(kw, [], FUSION_DEFAULTS).map((c) => c.key)).toEqual(kw);
  });
  test.each([
    [[], 0],
    [[{ score: 5 }], 1],
    [[{ score: 10 }, { score: 5 }], 0.5],
    [[{ score: 0 }, { score: 0 }], 0],
  ])('keywordConfidence(%j) = %f', (hits, expected) => {
    expect(keywordConfidence(hits)).toBe(expected);
  });
});
