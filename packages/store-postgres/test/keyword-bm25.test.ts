/**
 * keyword-bm25.ts: the tsvector text parser, phrase frequencies, and BM25 equal to SQLite FTS5's
 * own bm25() (same column weights) on the same documents and query phrases — the score the SQLite
 * path ranks by. No PostgreSQL: the tsvector text is the literal keyword-text.ts writes, which is
 * PostgreSQL's own output format.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { bm25, leafFrequency, parseTsvector } from '../src/adapter/keyword-bm25.js';
import { documentText, keywordQuery, tsvectorLiteral } from '../src/keyword-text.js';

describe('parseTsvector', () => {
  it.each([
    ["'a':1A,3A 'b':2B", { a: { A: [1, 3], B: [] }, b: { A: [], B: [2] } }, 3],
    ["'it''s':1A 'back\\\\slash':2A", { "it's": { A: [1], B: [] }, 'back\\slash': { A: [2], B: [] } }, 2],
    ["'x':4 'y':5B", { x: { A: [], B: [] }, y: { A: [], B: [5] } }, 2],
    ['', {}, 0],
  ])('%s', (text, positions, length) => {
    const doc = parseTsvector(text);
    expect(Object.fromEntries(doc.positions)).toEqual(positions);
    expect(doc.length).toBe(length);
  });
});

describe('leafFrequency', () => {
  const doc = parseTsvector(tsvectorLiteral(documentText('番茄炒蛋 and 番茄 soup, 番茄炒蛋 again')));
  it.each([
    ['"炒蛋 again"', 1],
    ['番茄', 3],
    ['soup', 1],
    ['"again soup"', 0],
    ['"番茄 soup"', 1],
  ])('%s occurs %i times as its first leaf', (query, n) => {
    const { leaves } = keywordQuery(query, { cjkUnigrams: true });
    expect(leafFrequency(doc, leaves[0]!)).toBe(n);
  });
});

describe('bm25 equals FTS5 bm25()', () => {
  const texts = [
    'How do I set busy_timeout in SQLite?',
    'Use busy_timeout with WAL mode; the timeout retries locked writes.',
    'WAL mode keeps readers off the writer.',
    '我想学做番茄炒蛋，番茄要先炒吗？',
    '番茄炒蛋要先炒蛋再放番茄。',
    '今天去公园散步，看到番茄花开了。',
    'Nothing relevant here at all, just a long message about other things entirely and more words.',
  ];
  const queries = ['busy_timeout WAL', 'timeout', '番茄炒蛋怎么做', '"WAL mode" readers', '番茄 公园'];
  it.each(queries)('%s', (query) => {
    const db = new Database(':memory:');
    db.exec("CREATE VIRTUAL TABLE t USING fts5(body, cjk, tokenize = 'unicode61 remove_diacritics 0')");
    const docs = texts.map((t) => documentText(t));
    const insert = db.prepare('INSERT INTO t(rowid, body, cjk) VALUES (?, ?, ?)');
    docs.forEach((d, i) => insert.run(i + 1, d.body, d.cjk));
    const { leaves } = keywordQuery(query, { cjkUnigrams: true });
    const fts = (l: (typeof leaves)[number]) => `${l.weight === 'A' ? 'body' : 'cjk'} : "${l.lexemes.join(' ')}"`;
    // Each leaf as often as the search's own FTS5 expression holds it (a required phrase twice: AND-ed, then OR-ed).
    const match = leaves.flatMap((l) => Array.from({ length: l.count ?? 1 }, () => fts(l))).join(' OR ');
    const expected = new Map((db.prepare('SELECT rowid AS id, -bm25(t, 1.0, 0.5) AS s FROM t WHERE t MATCH ?').all(match) as { id: number; s: number }[]).map((r) => [r.id, r.s]));
    expect(expected.size).toBeGreaterThan(0);
    const parsed = docs.map((d) => parseTsvector(tsvectorLiteral(d)));
    const stats = {
      messages: texts.length,
      documentFrequency: leaves.map((l) => parsed.filter((p) => leafFrequency(p, l) > 0).length),
      averageLength: parsed.reduce((s, p) => s + p.length, 0) / parsed.length,
    };
    for (const [id, score] of expected) expect(bm25(parsed[id - 1]!, leaves, stats)).toBeCloseTo(score, 9);
    db.close();
  });
});
