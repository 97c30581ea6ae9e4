/**
 * The chunker: UTF-16 ranges that slice back to the chunk text, bounded size and overlap, cut
 * points at natural boundaries, CJK counted one token per character, payloads and binary skipped,
 * deterministic output.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { CHUNKER_VERSION, MAX_CHUNKS_PER_MESSAGE, chunkText, contentHash, estimateTokens, looksBinary, payloadRanges } from '../src/chunker.js';

const opts = { maxInputTokens: 64, charsPerToken: 3 };
const english = (n: number) => Array.from({ length: n }, (_, i) => `Sentence ${i} talks about the migration plan.`).join(' ');
const chinese = (n: number) => Array.from({ length: n }, (_, i) => `第${i}句讨论数据库迁移计划。`).join('');
const base64 = 'QUJD'.repeat(100) + 'ZGVm';

describe('chunkText', () => {
  test.each([
    ['empty', '', 0],
    ['whitespace only', ' \n\t  ', 0],
    ['short English', 'Hello there, how are you?', 1],
    ['long English', english(40), -1],
    ['long Chinese', chinese(40), -1],
    ['binary', '\u0000\u0001\u0002abc\ufffd\ufffd\u0003\u0004', 0],
    ['only a base64 payload', base64, 0],
  ])('%s → %s chunk(s) (-1 = several)', (_label, content, count) => {
    const chunks = chunkText(content, opts);
    if (count >= 0) expect(chunks).toHaveLength(count);
    else expect(chunks.length).toBeGreaterThan(1);
  });

  test.each([
    ['English', english(60)],
    ['Chinese', chinese(60)],
    ['mixed with emoji', `${english(10)} 😀😀😀 ${chinese(10)} 𠀀𠀁𠀂 ${english(10)}`],
    ['no whitespace at all', 'ab,'.repeat(400)],
  ])('%s: ranges slice back to the text, fit the budget, overlap boundedly, cover everything', (_label, content) => {
    const chunks = chunkText(content, opts);
    let covered = 0;
    for (const [i, c] of chunks.entries()) {
      expect(c.index).toBe(i);
      expect(content.slice(c.start, c.end)).toBe(c.text);
      expect(estimateTokens(content, 3, c.start, c.end)).toBeLessThanOrEqual(opts.maxInputTokens - 8 + 1e-9);
      // never starts or ends inside a surrogate pair
      expect(content.charCodeAt(c.start) >= 0xdc00 && content.charCodeAt(c.start) <= 0xdfff).toBe(false);
      expect(content.charCodeAt(c.end - 1) >= 0xd800 && content.charCodeAt(c.end - 1) <= 0xdbff).toBe(false);
      if (i > 0) {
        const prev = chunks[i - 1]!;
        expect(c.start).toBeGreaterThan(prev.start);
        expect(estimateTokens(content, 3, c.start, Math.max(c.start, prev.end))).toBeLessThanOrEqual(48);
      }
      expect(c.start).toBeLessThanOrEqual(covered + 1);
      covered = Math.max(covered, c.end);
    }
    expect(content.slice(covered).trim()).toBe('');
  });

  test('CJK counts one token per character, Latin charsPerToken characters per token', () => {
    expect(estimateTokens('数据库迁移', 3)).toBe(5);
    expect(estimateTokens('abcdef', 3)).toBe(2);
    const zh = chunkText(chinese(40), opts);
    const en = chunkText('a'.repeat(zh[0]!.text.length) + ' ' + english(40), opts);
    expect(en[0]!.text.length).toBeGreaterThan(zh[0]!.text.length);
  });

  test.each([
    ['a sentence end', english(60), /\.$/],
    ['a Chinese sentence end', chinese(60), /。$/],
  ])('prefers cutting at %s', (_label, content, re) => {
    const chunks = chunkText(content, opts);
    for (const c of chunks.slice(0, -1)) expect(c.text).toMatch(re);
  });

  test('payloads inside a message are skipped, the text around them is kept', () => {
    const content = `Here is the screenshot: data:image/png;base64,${base64} and the caption after it.`;
    expect(payloadRanges(content)).toHaveLength(1);
    const chunks = chunkText(content, { maxInputTokens: 512, charsPerToken: 3 });
    expect(chunks.map((c) => c.text)).toEqual(['Here is the screenshot:', 'and the caption after it.']);
  });

  test('a huge message is bounded to MAX_CHUNKS_PER_MESSAGE chunks', () => {
    expect(chunkText('word '.repeat(200_000), { maxInputTokens: 16, charsPerToken: 3 })).toHaveLength(MAX_CHUNKS_PER_MESSAGE);
  });

  test('deterministic for any string (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 600 }), fc.integer({ min: 16, max: 200 }), (content, maxInputTokens) => {
        const a = chunkText(content, { maxInputTokens, charsPerToken: 3 });
        expect(chunkText(content, { maxInputTokens, charsPerToken: 3 })).toEqual(a);
        for (const c of a) {
          expect(content.slice(c.start, c.end)).toBe(c.text);
          expect(c.text.trim()).not.toBe('');
        }
      }),
      { numRuns: 200 },
    );
  });

  test('binary detection and content hash', () => {
    expect(looksBinary('normal text\nwith lines\tand tabs')).toBe(false);
    expect(looksBinary('\u0000'.repeat(5) + 'abc')).toBe(true);
    expect(contentHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(CHUNKER_VERSION).toBeGreaterThanOrEqual(1);
  });
});
