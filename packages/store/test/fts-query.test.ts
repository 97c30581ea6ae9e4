/**
 * fts-query.ts: any user string becomes a safe FTS5 expression (or a literal LIKE needle). The
 * property tests run every generated expression against a real messages_fts table created by the
 * real migrations, so "never an FTS error" is checked by SQLite itself, not by a mock.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { MAX_QUERY_CHARS, MAX_QUERY_TERMS, parseQuery, termRegExp } from '../src/fts-query.js';
import { normalizeForSearch } from '../src/search-text.js';
import { tempDb } from './support/temp-db.js';

describe('parseQuery', () => {
  test.each([
    {
      input: 'what did we decide about the retry backoff?',
      terms: ['decide', 'retry', 'backoff'],
      stopwords: ['what', 'did', 'we', 'about', 'the'],
      match: 'body : "decide" OR body : "retry" OR body : "backoff"',
    },
    { input: 'busy_timeout', terms: ['busy_timeout'], stopwords: [], match: 'body : "busy timeout"' },
    { input: 'config.yaml foo-bar', terms: ['config.yaml', 'foo-bar'], stopwords: [], match: 'body : "config yaml" OR body : "foo bar"' },
    { input: 'E_CONN_RESET', terms: ['e_conn_reset'], stopwords: [], match: 'body : "e conn reset"' },
    {
      input: '"retry backoff" policy',
      terms: ['retry backoff', 'policy'],
      stopwords: [],
      match: 'body : "retry backoff" AND (body : "retry backoff" OR body : "policy")',
    },
    { input: '“清蒸鲈鱼”', terms: ['清蒸鲈鱼'], stopwords: [], match: 'body : "清蒸 蒸鲈 鲈鱼"' },
    { input: '"鱼"', terms: ['鱼'], stopwords: [], match: 'cjk : "鱼"' },
    { input: '鱼', terms: ['鱼'], stopwords: [], match: 'cjk : "鱼"' },
    { input: '蒸鱼', terms: ['蒸鱼'], stopwords: [], match: 'body : "蒸鱼"' },
    { input: '清蒸鲈鱼', terms: ['清蒸', '鲈鱼'], stopwords: [], match: 'body : "清蒸" OR body : "鲈鱼"' },
    { input: '互联网', terms: ['互联网'], stopwords: [], match: '(body : "互联 联网" OR body : "互联" OR body : "联网")' },
    { input: '"retry backoff', terms: ['retry', 'backoff'], stopwords: [], match: 'body : "retry" OR body : "backoff"' },
    { input: 'NEAR(retry backoff)', terms: ['near', 'retry', 'backoff'], stopwords: [], match: 'body : "near" OR body : "retry" OR body : "backoff"' },
    { input: 'retry* ^backoff -foo', terms: ['retry', 'backoff', 'foo'], stopwords: [], match: 'body : "retry" OR body : "backoff" OR body : "foo"' },
    { input: 'col:retry', terms: ['col:retry'], stopwords: [], match: 'body : "col retry"' },
    { input: 'the', terms: ['the'], stopwords: [], match: 'body : "the"' },
    { input: 'AND OR NOT', terms: ['and', 'or', 'not'], stopwords: [], match: 'body : "and" OR body : "or" OR body : "not"' },
  ])('$input', ({ input, terms, stopwords, match }) => {
    const parsed = parseQuery(input);
    expect(parsed.terms.map((t) => t.text)).toEqual(terms);
    expect(parsed.stopwords).toEqual(stopwords);
    expect(parsed.match).toBe(match);
    expect(parsed.likeNeedle).toBeNull();
  });

  test('a Chinese question ORs its useful words and drops the filler', () => {
    const parsed = parseQuery('我上次说的那道蒸鱼要蒸多久？');
    const terms = parsed.terms.map((t) => t.text);
    expect(terms).toEqual(expect.arrayContaining(['蒸鱼', '蒸']));
    expect(terms).not.toContain('上次');
    expect(terms).not.toContain('我');
    expect(parsed.stopwords).toEqual(expect.arrayContaining(['我', '上次']));
    expect(parsed.match).toContain(' OR ');
    expect(parsed.match).not.toContain(' AND ');
  });

  test('mixed Latin/CJK keeps both scripts', () => {
    const parsed = parseQuery('修复 busy_timeout 问题');
    expect(parsed.terms.map((t) => t.text)).toEqual(['修复', 'busy_timeout', '问题']);
  });

  test.each([
    ['->', '->'],
    ['%', '%'],
    ['_', '_'],
    ['🙂', '🙂'],
    ['  %_%  ', '%_%'],
  ])('no searchable word in %j: literal needle %j', (input, needle) => {
    const parsed = parseQuery(input);
    expect(parsed.match).toBeNull();
    expect(parsed.likeNeedle).toBe(needle);
  });

  test.each(['', '   ', '\n\t'])('blank %j searches nothing', (input) => {
    const parsed = parseQuery(input);
    expect(parsed.match).toBeNull();
    expect(parsed.likeNeedle).toBeNull();
  });

  test('10 kB of text is truncated and capped, not rejected', () => {
    const words = Array.from({ length: 2000 }, (_, i) => `word${i}`).join(' ');
    const parsed = parseQuery(words);
    expect(parsed.truncated).toBe(true);
    expect(parsed.terms.length).toBe(MAX_QUERY_TERMS);
    expect(parsed.input.length).toBeGreaterThan(MAX_QUERY_CHARS);
    expect(parsed.notes.length).toBeGreaterThan(0);
  });
});

test.each([
  ['none', 'body : "蒸鱼"'],
  ['bigram', 'body : "蒸鱼"'],
  ['unigram', '(body : "蒸鱼" OR cjk : "蒸" OR cjk : "鱼")'],
] as const)('cjkBackoff %s', (cjkBackoff, match) => {
  expect(parseQuery('蒸鱼', { cjkBackoff }).match).toBe(match);
});

describe('termRegExp', () => {
  const find = (query: string, text: string): boolean => {
    const term = parseQuery(query).terms[0]!;
    return termRegExp(term).test(normalizeForSearch(text));
  };
  test.each([
    ['busy_timeout', 'set BUSY_TIMEOUT to 5s', true],
    ['busy_timeout', 'busy timeout', true],
    ['busy_timeout', 'busytimeout', false],
    ['retry', 'retrying', false],
    ['config.yaml', 'edit config.yaml now', true],
    ['蒸鱼', '我会蒸鱼', true],
    ['bug', '修复bug了', true],
    ['ＡＢＣ', 'abc', true],
  ])('%j in %j: %s', (query, text, expected) => {
    expect(find(query, text)).toBe(expected);
  });
});

describe('any string is a valid query (property)', () => {
  const operatorSoup = fc
    .array(fc.constantFrom('AND', 'OR', 'NOT', 'NEAR', '(', ')', '"', '*', '^', ':', '-', '+', '%', '_', '{', '}', "'", '\\', ' ', 'a', '鱼', '蒸鱼', '🙂', 'body', 'cjk', 'scope', '\u0000'), {
      maxLength: 40,
    })
    .map((parts) => parts.join(''));
  const anyString = fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 }), operatorSoup);

  test('parseQuery never throws and SQLite accepts every MATCH expression', () => {
    const db = tempDb();
    db.raw.prepare("insert into messages_fts (rowid, body, cjk, scope) values (1, 'retry backoff a', '鱼', 'x')").run();
    const run = db.raw.prepare('select rowid from messages_fts where messages_fts match ?');
    fc.assert(
      fc.property(anyString, (input) => {
        const parsed = parseQuery(input);
        if (parsed.match !== null) run.all(parsed.match);
        expect(parsed.match === null || parsed.likeNeedle === null).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
