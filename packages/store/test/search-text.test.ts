/**
 * search-text.ts: how message text becomes index token text (CJK bigrams in `body`, unigrams in
 * `cjk`, Latin passed through after NFKC) and the word helpers the query parser uses.
 */
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  cjkBigrams,
  indexColumns,
  isStopword,
  latinUnits,
  MAX_INDEXED_CHARS,
  normalizeForSearch,
  porterStem,
  segmentWords,
  splitRuns,
  stripParticles,
} from '../src/search-text.js';

describe('indexColumns', () => {
  test.each([
    ['plain English', 'Fix the retry backoff', 'Fix the retry backoff', ''],
    ['CJK run becomes bigrams + unigrams', '清蒸鲈鱼', ' 清蒸 蒸鲈 鲈鱼 ', '清 蒸 鲈 鱼'],
    ['single CJK char stays a unigram', '鱼', ' 鱼 ', '鱼'],
    ['mixed text keeps runs apart', '修复 busy_timeout 问题', ' 修复  busy_timeout  问题 ', '修 复 问 题'],
    ['CJK glued to Latin is separated', '修复bug', ' 修复 bug', '修 复'],
    ['full-width Latin is NFKC-folded', 'ＡＢＣ１２３', 'ABC123', ''],
    ['kana and hangul are CJK', 'カタカナ 한국어', ' カタ タカ カナ   한국 국어 ', 'カ タ カ ナ 한 국 어'],
    ['surrogate-pair ideographs', '𠀀𠀁', ' 𠀀𠀁 ', '𠀀 𠀁'],
    ['empty', '', '', ''],
  ])('%s', (_name, input, body, cjk) => {
    expect(indexColumns(input)).toEqual({ body, cjk });
  });

  test('content beyond MAX_INDEXED_CHARS is not indexed', () => {
    const cols = indexColumns('a'.repeat(MAX_INDEXED_CHARS) + ' tailword');
    expect(cols.body).not.toContain('tailword');
  });
});

describe('word helpers', () => {
  test.each([
    ['清蒸鲈鱼', '清蒸 蒸鲈 鲈鱼'],
    ['鱼', '鱼'],
    ['蒸鱼', '蒸鱼'],
  ])('cjkBigrams(%j)', (input, expected) => {
    expect(cjkBigrams(input)).toBe(expected);
  });

  test('splitRuns alternates CJK and non-CJK', () => {
    expect(splitRuns('修复 busy_timeout 问题')).toEqual([
      { text: '修复', cjk: true },
      { text: ' busy_timeout ', cjk: false },
      { text: '问题', cjk: true },
    ]);
  });

  test.each([
    ['config.yaml', [{ text: 'config.yaml', parts: ['config', 'yaml'] }]],
    ['foo-bar', [{ text: 'foo-bar', parts: ['foo', 'bar'] }]],
    ['busy_timeout', [{ text: 'busy_timeout', parts: ['busy', 'timeout'] }]],
    ['e_conn_reset!', [{ text: 'e_conn_reset', parts: ['e', 'conn', 'reset'] }]],
    ['v1.2.3 done', [{ text: 'v1.2.3', parts: ['v1', '2', '3'] }, { text: 'done', parts: ['done'] }]],
    ['(a AND b) OR "c"', [{ text: 'a', parts: ['a'] }, { text: 'AND', parts: ['AND'] }, { text: 'b', parts: ['b'] }, { text: 'OR', parts: ['OR'] }, { text: 'c', parts: ['c'] }]],
    ['%_*^:', []],
  ])('latinUnits(%j)', (input, expected) => {
    expect(latinUnits(input)).toEqual(expected);
  });

  test.each([
    ['说的', '说'],
    ['好吗', '好'],
    ['的', '的'],
    ['蒸鱼', '蒸鱼'],
  ])('stripParticles(%j) = %j', (input, expected) => {
    expect(stripParticles(input)).toBe(expected);
  });

  test.each([
    ['the', true],
    ['what', true],
    ['backoff', false],
    ['什么', true],
    ['上次', true],
    ['蒸', false],
    ['鱼', false],
  ])('isStopword(%j) = %s', (word, expected) => {
    expect(isStopword(word)).toBe(expected);
  });

  test('segmentWords splits a Chinese question into words', () => {
    const words = segmentWords('我上次说的那道蒸鱼要蒸多久');
    expect(words.join('')).toBe('我上次说的那道蒸鱼要蒸多久');
    expect(words).toContain('上次');
  });

  test('normalizeForSearch folds width and case', () => {
    expect(normalizeForSearch('ＢＵＳＹ_Timeout')).toBe('busy_timeout');
  });
});

describe('porterStem agrees with FTS5 porter', () => {
  /** FTS5's own stems, read back through an fts5vocab table. */
  function fts5Stems(words: readonly string[]): string[] {
    const db = new Database(':memory:');
    try {
      db.exec("create virtual table f using fts5(t, tokenize = 'porter ascii'); create virtual table v using fts5vocab(f, 'instance');");
      const insert = db.prepare('insert into f (rowid, t) values (?, ?)');
      words.forEach((w, i) => insert.run(i + 1, w));
      const byDoc = new Map((db.prepare('select doc, term from v').all() as { doc: number; term: string }[]).map((r) => [r.doc, r.term]));
      return words.map((_, i) => byDoc.get(i + 1)!);
    } finally {
      db.close();
    }
  }

  test.each([
    ['caresses', 'caress'],
    ['ponies', 'poni'],
    ['agreed', 'agre'],
    ['hopping', 'hop'],
    ['filing', 'file'],
    ['happy', 'happi'],
    ['relational', 'relat'],
    ['decided', 'decid'],
    ['decide', 'decid'],
    ['retries', 'retri'],
    ['retrying', 'retri'],
    ['generalization', 'gener'],
    ['ab', 'ab'],
  ])('%s → %s', (word, stem) => {
    expect(porterStem(word)).toBe(stem);
  });

  test('random lower-case words stem exactly like FTS5', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z]{3,14}$/), { minLength: 1, maxLength: 200 }), (words) => {
        expect(words.map(porterStem)).toEqual(fts5Stems(words));
      }),
      { numRuns: 50 },
    );
  });
});
