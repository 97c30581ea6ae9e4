/**
 * Anchor hit@k: is one of the first k anchors an evidence message? Unlike anchor recall@k it does
 * not cap a question labelled with two turns at 0.5 (an anchor is one message).
 */
import { describe, expect, it } from 'vitest';
import { anchorHitAtK, recallAtK, type RankedResult } from '../src/metrics.js';

const r = (anchor: string[], other: string[] = []): RankedResult => ({ anchorUnits: anchor, otherUnits: other });

describe('anchorHitAtK', () => {
  const table: Array<[name: string, units: string[], results: RankedResult[], k: number, hit: number, anchorRecall: number]> = [
    ['two labelled turns, the first anchor holds one', ['a', 'b'], [r(['a'])], 1, 1, 0.5],
    ['evidence only in other ids is no anchor hit', ['a'], [r([], ['a'])], 1, 0, 0],
    ['anchor hit at rank 2 counts at k 5, not at k 1', ['a'], [r(['x']), r(['a'])], 1, 0, 0],
    ['… and at k 5', ['a'], [r(['x']), r(['a'])], 5, 1, 1],
    ['no results', ['a'], [], 5, 0, 0],
  ];
  it.each(table)('%s', (_name, units, results, k, hit, anchorRecall) => {
    expect(anchorHitAtK(units, results, k)).toBe(hit);
    expect(recallAtK(units, results, k, true)).toBe(anchorRecall);
  });
  it('a question without evidence is not scored', () => {
    expect(anchorHitAtK([], [r(['a'])], 1)).toBeNaN();
  });
});
