/**
 * The test knobs of the keyword modules (test-knob.ts): a set returns the previous override, so a
 * test can restore it, and each knob is its own (setting one leaves the other as it was).
 */
import { describe, expect, it } from 'vitest';
import { setPhraseReadMax } from '../src/keyword-kept.js';
import { setSmallScoreMax } from '../src/keyword-small.js';
import { testKnob } from '../src/test-knob.js';

describe('testKnob', () => {
  it('starts unset, reads what was set and returns the previous override', () => {
    const knob = testKnob<number>();
    expect(knob.get()).toBeNull();
    expect(knob.set(3)).toBeNull();
    expect(knob.get()).toBe(3);
    expect(knob.set(0)).toBe(3);
    expect(knob.get()).toBe(0);
    expect(knob.set(null)).toBe(0);
    expect(knob.get()).toBeNull();
  });

  it('keeps setSmallScoreMax and setPhraseReadMax apart', () => {
    const small = setSmallScoreMax(7);
    const read = setPhraseReadMax(11);
    try {
      expect(setSmallScoreMax(8)).toBe(7);
      expect(setPhraseReadMax(12)).toBe(11);
    } finally {
      expect(setPhraseReadMax(read)).toBe(12);
      expect(setSmallScoreMax(small)).toBe(8);
    }
  });
});
