import { describe, expect, test } from 'vitest';
import { reciprocalRankFusion, RRF_K } from '../src/rrf.js';

describe('reciprocalRankFusion', () => {
  test.each([
    {
      name: 'agreement beats a single list top item',
      lists: [
        { source: 'keyword', keys: [1, 2, 3] },
        { source: 'semantic', keys: [2, 4, 1] },
      ],
      expected: [2, 1, 4, 3],
    },
    { name: 'one list keeps its order', lists: [{ source: 'keyword', keys: [5, 3, 9] }], expected: [5, 3, 9] },
    { name: 'no lists, no items', lists: [], expected: [] },
    {
      name: 'ties keep first appearance',
      lists: [
        { source: 'keyword', keys: [1] },
        { source: 'semantic', keys: [2] },
      ],
      expected: [1, 2],
    },
    { name: 'a repeated key counts once at its best rank', lists: [{ source: 'keyword', keys: [7, 8, 7] }], expected: [7, 8] },
  ])('$name', ({ lists, expected }) => {
    expect(reciprocalRankFusion(lists).map((f) => f.key)).toEqual(expected);
  });

  test('scores are sums of 1/(k + rank) and ranks are reported per source', () => {
    const [top] = reciprocalRankFusion([
      { source: 'keyword', keys: ['a'] },
      { source: 'semantic', keys: ['b', 'a'] },
    ]);
    expect(top).toEqual({ key: 'a', score: 1 / (RRF_K + 1) + 1 / (RRF_K + 2), ranks: { keyword: 1, semantic: 2 } });
  });
});
