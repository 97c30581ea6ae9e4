/**
 * BM25 with the scope's own statistics (keyword-scope-stats.ts, migration 0008): a project's
 * keyword ranking in a file shared with other projects equals its ranking in a file of its own —
 * what project B holds changes nothing in project A's order or scores (table-driven cases and a
 * fast-check property), for a project-less conversation's own history too; the per-project totals
 * stay those of a fresh build after edits, deletes and moves; and a candidate window deeper than
 * the first read still gives the full scoped ranking.
 */
import type { RecallDatabase } from '@recall/schema';
import fc from 'fast-check';
import { describe, expect, onTestFinished, test } from 'vitest';
import { rebuildKeywordIndex } from '../src/fts-index.js';
import { parseQuery } from '../src/fts-query.js';
import { setPhraseReadMax } from '../src/keyword-kept.js';
import { scopedRanking } from '../src/keyword-scope-stats.js';
import { keywordSearch, type KeywordScope } from '../src/keyword-search.js';
import { scopeParams } from '../src/keyword-sql.js';
import { appendMessages, deleteMessage, editMessage } from '../src/messages.js';
import { setSessionProject } from '../src/moves.js';
import { createProject } from '../src/projects.js';
import { createSession } from '../src/sessions.js';
import { openAgain, tempDb } from './support/temp-db.js';

function fill(db: RecallDatabase, projectId: string | null, sessionId: string, texts: readonly string[]): void {
  if (projectId !== null && !db.raw.prepare('select 1 from projects where id = ?').get(projectId)) createProject(db, { id: projectId, name: projectId });
  createSession(db, { id: sessionId, projectId });
  appendMessages(db, sessionId, texts.map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content, createdAt: 1_000 + i })));
}

/** The hits as (text, score): message ids differ between files, texts are unique per case. */
function ranking(db: RecallDatabase, scope: KeywordScope, query: string, limit = 10): Array<[string, number]> {
  const text = db.raw.prepare('select content from messages where id = ?').pluck();
  return keywordSearch(db, scope, query, { limit, replyCredit: false, coverageRerank: false }).hits.map((h) => [text.get(h.messageId) as string, h.score]);
}

function expectSame(shared: Array<[string, number]>, alone: Array<[string, number]>): void {
  expect(shared.map(([t]) => t)).toEqual(alone.map(([t]) => t));
  shared.forEach(([, s], i) => expect(s).toBeCloseTo(alone[i]![1], 9));
}

const A = [
  'the deploy failed because the cache was cold',
  'deploy the cache warmer before the release',
  'release notes mention the cache twice: cache cache',
  'we talked about the garden and the deploy',
  'nothing relevant here, only lunch plans',
  '部署失败是因为缓存是冷的',
  '发布之前先部署缓存预热',
  '我们聊了花园和部署的事情',
];

const CASES: Array<{ name: string; query: string; other: readonly string[] }> = [
  { name: 'B makes a word of the question very common', query: 'deploy cache', other: Array.from({ length: 40 }, (_, i) => `cache entry ${i} cache hit cache miss`) },
  { name: 'B makes a word rare in A common', query: 'garden deploy release', other: Array.from({ length: 30 }, (_, i) => `garden bed ${i} in the garden`) },
  { name: 'B holds long messages (mean length)', query: 'cache release', other: Array.from({ length: 10 }, (_, i) => `${'word '.repeat(300)} number ${i}`) },
  { name: 'Chinese: B repeats a character and a word', query: '部署缓存', other: Array.from({ length: 25 }, (_, i) => `缓存缓存第${i}条部署记录`) },
  { name: 'Chinese paraphrase by characters', query: '花园里部署了什么', other: Array.from({ length: 20 }, (_, i) => `花园${i}号的花`) },
];

describe('a project ranks as in a file of its own', () => {
  test.each(CASES)('$name', ({ query, other }) => {
    const alone = tempDb();
    fill(alone, 'p_a', 'a1', A);
    const shared = tempDb();
    // B before and after A: its rows change the whole table's statistics, never A's order.
    fill(shared, 'p_b', 'b0', other.slice(0, Math.ceil(other.length / 2)));
    fill(shared, 'p_a', 'a1', A);
    fill(shared, 'p_b', 'b1', other.slice(Math.ceil(other.length / 2)));
    const scope: KeywordScope = { kind: 'project', projectId: 'p_a' };
    const expected = ranking(alone, scope, query);
    expect(expected.length).toBeGreaterThan(1);
    // In a file of one project the scope's statistics are the table's: the TypeScript scores equal FTS5's bm25().
    const result = keywordSearch(alone, scope, query, { replyCredit: false, coverageRerank: false });
    const fts = new Map(
      (alone.raw.prepare('select rowid as id, -bm25(messages_fts, 1.0, 0.5, 0.0) as score from messages_fts where messages_fts match ?').all(result.query.match) as { id: number; score: number }[]).map((r) => [r.id, r.score]),
    );
    for (const h of result.hits) expect(h.score).toBeCloseTo(fts.get(h.messageId)!, 9);
    expectSame(ranking(shared, scope, query), expected);
    // Forced through the scope-token path (every match "many") as well.
    const token = keywordSearch(shared, scope, query, { scopeTokenMinMatches: 0, replyCredit: false, coverageRerank: false }).hits.map((h) => h.score);
    token.forEach((s, i) => expect(s).toBeCloseTo(expected[i]![1], 9));
  });

  test.each(CASES)('own history of a project-less conversation: $name', ({ query, other }) => {
    const alone = tempDb();
    fill(alone, null, 'own', A);
    const shared = tempDb();
    fill(shared, null, 'other', other);
    fill(shared, null, 'own', A);
    fill(shared, 'p_b', 'b1', other);
    const scope: KeywordScope = { kind: 'sessions', sessionIds: ['own'] };
    expectSame(ranking(shared, scope, query), ranking(alone, scope, query));
  });

  test('a deep candidate window: the scoped best are found past the first read', () => {
    // 300 matches in A; B makes "alpha" (in A's best messages) common in the whole table, so
    // FTS5's whole-table order puts A's "beta" messages first and A's best lie deeper.
    const texts = Array.from({ length: 300 }, (_, i) => (i % 30 === 0 ? `alpha gamma ${i}` : `beta filler text number ${i} beta`));
    const other = Array.from({ length: 2_000 }, (_, i) => `alpha ${i}`);
    const alone = tempDb();
    fill(alone, 'p_a', 'a1', texts);
    const shared = tempDb();
    fill(shared, 'p_b', 'b1', other);
    fill(shared, 'p_a', 'a1', texts);
    const scope: KeywordScope = { kind: 'project', projectId: 'p_a' };
    for (const limit of [3, 10]) expectSame(ranking(shared, scope, 'alpha beta', limit), ranking(alone, scope, 'alpha beta', limit));
  });
});

describe('per-project totals', () => {
  test('edits, deletes and moves leave the totals of a fresh build', () => {
    const db = tempDb();
    fill(db, 'p_a', 'a1', A);
    fill(db, 'p_b', 'b1', ['one two three', 'four five']);
    fill(db, null, 'n1', ['loose words here']);
    const first = db.raw.prepare("select id from messages where session_id = 'a1' order by id").pluck().all() as number[];
    editMessage(db, first[0]!, 'an edited and much longer text than before, with more words in it');
    deleteMessage(db, first[1]!);
    setSessionProject(db, 'b1', 'p_a');
    setSessionProject(db, 'n1', 'p_b');
    const totals = () => db.raw.prepare('select project_id, messages, tokens from keyword_scope_totals order by project_id').all();
    const kept = totals();
    rebuildKeywordIndex(db.raw);
    expect(kept).toEqual(totals());
    // p_a, p_b and '' (rows without a project: only its revision is used, keyword-scope-stats.ts).
    expect(kept.length).toBe(3);
  });
});

describe('counts kept across writes', () => {
  // A connection keeps its phrase counts while only new messages are added (then reads the rows
  // above them); any other change anywhere drops them. Each search must equal a fresh connection's.
  // Multi-token phrases too: an identifier (`busy timeout`) and a CJK bigram chain (`部署 署缓 缓存`).
  const word = fc.constantFrom('deploy', 'cache', 'garden', 'release', '部署', '缓存', 'busy_timeout', 'timeout', '部署缓存');
  const text = fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.join(' '));
  const step = fc.oneof(
    fc.record({ op: fc.constantFrom('append a', 'append b', 'append none', 'edit b', 'edit none', 'delete a', 'delete b', 'move b'), text }),
    fc.record({ op: fc.constant('search'), text: fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join(' ')) }),
  );
  // Phrases counted by reading their rows (the default at this size), and by FTS5's scope-token count.
  test.each([
    ['rows read', null],
    ['FTS5 scope count', 0],
  ])('a kept connection ranks as a fresh one after appends, edits, deletes and moves (%s)', (_name, readMax) => {
    const previous = setPhraseReadMax(readMax);
    onTestFinished(() => void setPhraseReadMax(previous));
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 14 }), (steps) => {
        const db = tempDb();
        fill(db, 'p_a', 'a1', A);
        fill(db, 'p_b', 'b1', ['cache cache deploy', 'garden release']);
        fill(db, null, 'n1', ['deploy garden']);
        const scope: KeywordScope = { kind: 'project', projectId: 'p_a' };
        const last = (session: string) => db.raw.prepare('select max(id) from messages where session_id = ? and visibility = \'live\'').pluck().get(session) as number | null;
        let moved = false;
        for (const s of [...steps, { op: 'search', text: 'deploy cache 部署' }]) {
          if (s.op === 'append a') appendMessages(db, 'a1', [{ role: 'user', content: s.text }]);
          else if (s.op === 'append b') appendMessages(db, 'b1', [{ role: 'user', content: s.text }]);
          else if (s.op === 'append none') appendMessages(db, 'n1', [{ role: 'user', content: s.text }]);
          else if (s.op === 'edit b' || s.op === 'edit none') { const id = last(s.op === 'edit b' ? 'b1' : 'n1'); if (id !== null) editMessage(db, id, s.text); }
          else if (s.op === 'delete a' || s.op === 'delete b') { const id = last(s.op === 'delete a' ? 'a1' : 'b1'); if (id !== null) deleteMessage(db, id); }
          else if (s.op === 'move b') { setSessionProject(db, 'b1', moved ? 'p_b' : 'p_a'); moved = !moved; }
          else {
            const fresh = openAgain(db.path);
            try {
              expectSame(ranking(db, scope, s.text), ranking(fresh, scope, s.text));
              // The counts themselves (the whole table's only bound the window, rarely visible in a ranking).
              const stats = (d: RecallDatabase) => {
                const r = scopedRanking(d, scopeParams(d, scope)!, parseQuery(s.text, { cjkBackoff: 'unigram' }).match!)!;
                return { df: r.scoped.documentFrequency, bound: r.bound(3) };
              };
              const kept = stats(db);
              // The fresh connection counts by reading the phrases' rows whatever the variant.
              const knob = setPhraseReadMax(null);
              const cold = stats(fresh);
              setPhraseReadMax(knob);
              expect(kept.df).toEqual(cold.df);
              expect(kept.bound).toBeCloseTo(cold.bound, 9);
              const forced = (d: RecallDatabase) => keywordSearch(d, scope, s.text, { scopeTokenMinMatches: 0, replyCredit: false, coverageRerank: false }).hits.map((h) => h.score);
              forced(db).forEach((x, i) => expect(x).toBeCloseTo(forced(fresh)[i]!, 9));
            } finally {
              fresh.close();
            }
          }
        }
      }),
      { numRuns: 30 },
    );
  });
});

describe('counts kept across moves (keyword_scope_moves, migration 0009)', () => {
  // The kept connection applies each logged move to its row set and phrase counts (the moved
  // session's rows in or out) instead of counting again; every step must equal a fresh connection.
  const query = 'deploy cache 部署 busy_timeout';
  const steps: Array<[string, (db: RecallDatabase) => void]> = [
    ['b1 moves into A', (db) => void setSessionProject(db, 'b1', 'p_a')],
    ['an append to the moved session', (db) => void appendMessages(db, 'b1', [{ role: 'user', content: 'deploy again, busy_timeout 部署' }])],
    ['b1 moves back out of A', (db) => void setSessionProject(db, 'b1', 'p_b')],
    ['c1 moves between two other projects', (db) => void setSessionProject(db, 'c1', 'p_b')],
    ['a2 leaves A for no project', (db) => void setSessionProject(db, 'a2', null)],
    ['n1 (no project) joins A', (db) => void setSessionProject(db, 'n1', 'p_a')],
    ['b1 moves in and out again before the next search', (db) => { setSessionProject(db, 'b1', 'p_a'); setSessionProject(db, 'b1', 'p_c'); setSessionProject(db, 'b1', 'p_a'); }],
    ['an edit (counted again)', (db) => void editMessage(db, db.raw.prepare("select max(id) from messages where session_id = 'b1'").pluck().get() as number, 'cache only')],
    ['a move after the edit', (db) => void setSessionProject(db, 'a2', 'p_a')],
  ];
  test('each step ranks and counts as a fresh connection', () => {
    const db = tempDb();
    fill(db, 'p_a', 'a1', A);
    fill(db, 'p_a', 'a2', ['deploy cache on the second session', '缓存 部署 又一次']);
    fill(db, 'p_b', 'b1', ['cache cache deploy', 'busy_timeout was 部署 too low', 'garden release']);
    fill(db, 'p_c', 'c1', ['deploy the garden', '缓存']);
    fill(db, null, 'n1', ['deploy garden busy_timeout']);
    const scope: KeywordScope = { kind: 'project', projectId: 'p_a' };
    const stats = (d: RecallDatabase) => scopedRanking(d, scopeParams(d, scope)!, parseQuery(query, { cjkBackoff: 'unigram' }).match!)!;
    stats(db);
    for (const [name, act] of steps) {
      act(db);
      const fresh = openAgain(db.path);
      try {
        const kept = stats(db);
        const cold = stats(fresh);
        expect(kept.scoped.documentFrequency, name).toEqual(cold.scoped.documentFrequency);
        expect(kept.scoped.messages, name).toBe(cold.scoped.messages);
        expectSame(ranking(db, scope, query), ranking(fresh, scope, query));
      } finally {
        fresh.close();
      }
    }
  });
});

describe('property: another project never changes a project’s ranking', () => {
  const word = fc.constantFrom('deploy', 'cache', 'garden', 'release', 'cold', 'warm', '部署', '缓存', '花园');
  const text = fc.array(word, { minLength: 1, maxLength: 8 }).map((w) => w.join(' '));
  test('one file holding A and B ranks A as A alone', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(text, { minLength: 1, maxLength: 12 }),
        fc.array(text, { maxLength: 20 }),
        fc.array(word, { minLength: 1, maxLength: 3 }),
        (a, b, q) => {
          const alone = tempDb();
          fill(alone, 'p_a', 'a1', a);
          const shared = tempDb();
          if (b.length > 0) fill(shared, 'p_b', 'b1', b);
          fill(shared, 'p_a', 'a1', a);
          const scope: KeywordScope = { kind: 'project', projectId: 'p_a' };
          const query = q.join(' ');
          expectSame(ranking(shared, scope, query), ranking(alone, scope, query));
        },
      ),
      { numRuns: 25 },
    );
  });
});
