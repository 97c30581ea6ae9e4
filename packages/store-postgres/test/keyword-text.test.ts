/**
 * The fast paths of keyword-text.ts (ASCII tokens skip normalisation, memoised lexemes, the
 * tsvector literal built without re-parsing positions) give exactly the output of their
 * definitions, for any text: the keyword rows written by a bulk ingest are the rows the slow path
 * wrote. No database: string functions only.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { documentText, lexeme, lexemeReference, tsvectorLiteral, type DocumentText } from '../src/keyword-text.js';

/** The literal as the previous implementation built it (positions kept as strings and re-parsed). */
function referenceLiteral(text: DocumentText): string {
  const positions = new Map<string, string[]>();
  let pos = 0;
  const add = (tokens: string, weight: 'A' | 'B'): void => {
    for (const lex of tokens.split(' ')) {
      if (lex === '') continue;
      pos++;
      let list = positions.get(lex);
      if (!list) positions.set(lex, (list = []));
      const at = Math.min(pos, 16_383);
      const last = list[list.length - 1];
      if (list.length < 256 && (last === undefined || Number.parseInt(last, 10) !== at)) list.push(`${at}${weight}`);
    }
  };
  add(text.body, 'A');
  add(text.cjk, 'B');
  const out: string[] = [];
  for (const [lex, list] of positions) out.push(`'${lex.replace(/\\/g, '\\\\').replace(/'/g, "''")}':${list.join(',')}`);
  return out.join(' ');
}

const pieces = ['running', 'Café', 'naïve', 'ÉCOLE', "it's", 'back\\slash', '番茄炒蛋', '数据库', '1e5hello', 'x', 'ﬁle', 'Ångström', 'straße', 'İstanbul', '  ', '\n', '。', 'retry', 'RETRIES'];
const text = fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 8 }), fc.string({ unit: 'grapheme', maxLength: 6 })), { maxLength: 40 }).map((xs) => xs.join(' '));

describe('keyword-text fast paths', () => {
  it('lexeme() equals lexemeReference() for every token, first call and memoised', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 6 })), (token) => {
        expect(lexeme(token)).toBe(lexemeReference(token));
        expect(lexeme(token)).toBe(lexemeReference(token));
      }),
      { numRuns: 2000 },
    );
  });

  it('tsvectorLiteral() equals the reference literal, including repeated and clamped positions', () => {
    fc.assert(
      fc.property(text, (t) => {
        const doc = documentText(t);
        expect(tsvectorLiteral(doc)).toBe(referenceLiteral(doc));
      }),
      { numRuns: 1000 },
    );
    const long: DocumentText = { body: Array.from({ length: 17_000 }, (_, i) => (i % 3 === 0 ? 'a' : `w${i % 400}`)).join(' '), cjk: '番 茄 番' };
    expect(tsvectorLiteral(long)).toBe(referenceLiteral(long));
  });
});
