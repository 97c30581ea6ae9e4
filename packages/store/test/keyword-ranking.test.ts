/**
 * Ranking paths of keywordSearch added for paraphrases and dense projects: the relaxation that
 * also fires when the best exact hits share few of a Chinese question's words, and the ranked
 * window (rank inside FTS5, then the JOIN on the best candidates only), which must return exactly
 * what the full JOIN-then-rank query returns whenever the match fits in RANK_WINDOW, and say so when
 * it does not.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { appendMessages, bulkWrite, createProject, createSession, deleteMessage, keywordSearch } from '../src/index.js';
import { COMMON_CHARACTER_MIN_DOCS, RANK_WINDOW } from '../src/internal.js';
import { matchBounds, splitPhrases } from '../src/keyword-rank.js';
import { tempDb } from './support/temp-db.js';

describe('paraphrase relaxation', () => {
  test('a question sharing one common word with many messages still reaches the message that shares its characters', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const s = createSession(db, { projectId: p.id });
    appendMessages(db, s.id, Array.from({ length: 12 }, (_, i) => ({ role: 'user' as const, content: `今天的火候第${i}次不太对，再试一次火候` })));
    const [target] = appendMessages(db, s.id, [{ role: 'assistant', content: '清蒸鲈鱼大概八分钟就好' }]).messages;
    const scope = { kind: 'project' as const, projectId: p.id };
    const exactOnly = keywordSearch(db, scope, '蒸鱼的火候', { limit: 5, cjkBackoff: 'bigram' });
    expect(exactOnly.hits.map((h) => h.messageId)).not.toContain(target!.id);
    const auto = keywordSearch(db, scope, '蒸鱼的火候', { limit: 5 });
    expect(auto.hits.map((h) => h.messageId)).toContain(target!.id);
    expect(auto.notes.join(' ')).toMatch(/share few of the question/);
  });

  test('an exact question whose words a hit contains is not relaxed', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const s = createSession(db, { projectId: p.id });
    appendMessages(db, s.id, Array.from({ length: 8 }, () => ({ role: 'user' as const, content: '蒸鱼的火候要看鱼的大小' })));
    const r = keywordSearch(db, { kind: 'project', projectId: p.id }, '蒸鱼的火候', { limit: 5 });
    expect(r.hits).toHaveLength(5);
    expect(r.notes.join(' ')).not.toMatch(/character by character/);
  });
});

describe('common characters', () => {
  // COMMON_CHARACTER_MIN_DOCS messages holding 一 make it common in this index; 般 and 配 stay rare.
  function commonDb() {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const ids: Record<string, number> = {};
    bulkWrite(db, () => {
      const s = createSession(db, { projectId: p.id });
      appendMessages(db, s.id, Array.from({ length: COMMON_CHARACTER_MIN_DOCS + 10 }, (_, i) => ({ role: 'user' as const, content: `第${i}次试一试 ok` })));
      const t = createSession(db, { projectId: p.id });
      const [exact, scattered, onlyCommon] = appendMessages(db, t.id, [
        { role: 'user', content: '鲈鱼一般搭配姜丝' },
        { role: 'user', content: '这道菜配上一点姜，味道很般' },
        { role: 'user', content: '这个一字很独特 zz' },
      ]).messages;
      Object.assign(ids, { exact: exact!.id, scattered: scattered!.id, onlyCommon: onlyCommon!.id });
    });
    return { db, scope: { kind: 'project' as const, projectId: p.id }, ids };
  }

  test.each([
    ['common character left out of the character match', 0.02, false],
    ['share 1: every character is matched', 1, true],
  ])('%s', (_name, share, withCommon) => {
    const { db, scope, ids } = commonDb();
    const r = keywordSearch(db, scope, '一般搭配', { limit: 2, titleLimit: 0, commonCharacterShare: share });
    expect(r.query.match).toContain('cjk : "般"');
    expect(r.query.match!.includes('cjk : "一"')).toBe(withCommon);
    // The message holding the exact words ranks above the one holding scattered characters.
    expect(r.hits.map((h) => h.messageId)).toEqual([ids.exact, ids.scattered]);
  });

  test('when the rare words under-fill the list, the common characters are matched too', () => {
    const { db, scope, ids } = commonDb();
    const r = keywordSearch(db, scope, '独一', { limit: 5, titleLimit: 0 });
    expect(r.query.match).toContain('cjk : "一"');
    expect(r.hits.map((h) => h.messageId)).toContain(ids.onlyCommon);
  });
});

describe('ranked window', () => {
  const WORDS = ['alpha', 'beta', 'gamma', 'delta', '数据', '迁移', '超时', 'cron'];
  test('equals the full query (JOIN before ranking) below the window, whatever the rows', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ project: fc.integer({ min: 0, max: 1 }), source: fc.constantFrom('desktop', 'cron'), words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }), del: fc.boolean() }), {
          minLength: 1,
          maxLength: 40,
        }),
        fc.subarray(WORDS, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 12 }),
        (rows, query, limit) => {
          const db = tempDb();
          const projects = [createProject(db, { name: 'A' }).id, createProject(db, { name: 'B' }).id];
          for (const r of rows) {
            const s = createSession(db, { projectId: projects[r.project]!, source: r.source });
            const [m] = appendMessages(db, s.id, [{ role: 'user', content: r.words.join(' ') }]).messages;
            if (r.del) deleteMessage(db, m!.id);
          }
          const scope = { kind: 'project' as const, projectId: projects[0]! };
          const opts = { limit, scopeTokenMinMatches: 0, titleLimit: 0, cjkBackoff: 'none' as const };
          const windowed = keywordSearch(db, scope, query.join(' '), opts).hits.map((h) => h.messageId);
          const full = keywordSearch(db, scope, query.join(' '), { ...opts, topFirst: false }).hits.map((h) => h.messageId);
          expect(windowed).toEqual(full);
        },
      ),
      { numRuns: 40 },
    );
  });

  test('a match larger than the window ranks the newest RANK_WINDOW matches and says so', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    let oldest = 0;
    bulkWrite(db, () => {
      const first = createSession(db, { projectId: p.id });
      oldest = appendMessages(db, first.id, [{ role: 'user', content: 'zebra zebra zebra zebra zebra' }]).messages[0]!.id;
      const s = createSession(db, { projectId: p.id });
      appendMessages(db, s.id, Array.from({ length: RANK_WINDOW + 50 }, (_, i) => ({ role: 'user' as const, content: `zebra number ${i} with some padding words` })));
    });
    const r = keywordSearch(db, { kind: 'project', projectId: p.id }, 'zebra', { limit: 10 });
    expect(r.hits).toHaveLength(10);
    expect(r.notes.join(' ')).toMatch(/most recent matching messages were ranked/);
    expect(r.hits.map((h) => h.messageId)).not.toContain(oldest);
    const full = keywordSearch(db, { kind: 'project', projectId: p.id }, 'zebra', { limit: 10, topFirst: false });
    expect(full.hits[0]!.messageId).toBe(oldest);
  });
});

describe('a match larger than the window: the messages holding several of its words', () => {
  test.each([
    ['two words', 'body : "alpha" OR body : "beta"', '(body : "alpha") AND (body : "beta")'],
    ['a CJK word and its characters, then a word', '(body : "清蒸 蒸鱼" OR cjk : "清" OR cjk : "蒸" OR cjk : "鱼") OR body : "x"', '(body : "清蒸 蒸鱼" OR cjk : "蒸" OR body : "x") AND (cjk : "清" OR cjk : "鱼")'],
    ['one phrase: nothing to split', 'body : "alpha"', null],
    ['required phrases keep their own rule', 'body : "a b" AND (body : "a b" OR body : "c")', null],
    ['an operator word inside a phrase is text', 'body : "and" OR body : "not"', '(body : "and") AND (body : "not")'],
  ])('splitPhrases: %s', (_name, match, expected) => {
    expect(splitPhrases(match)).toBe(expected);
  });

  test.each([
    ['phrases joined by OR: the largest … the sum', 'body : "alpha" OR body : "beta" OR cjk : "蒸"', [40, 7, 3], { atLeast: 40, atMost: 50 }],
    ['grouping changes nothing', '(body : "清蒸 蒸鱼" OR cjk : "清") OR body : "x"', [2, 9, 1], { atLeast: 9, atMost: 12 }],
    ['a repeated phrase is one leaf', 'body : "a" OR (body : "a" OR body : "b")', [5, 6], { atLeast: 6, atMost: 11 }],
    ['required phrases: no lower bound', 'body : "a b" AND (body : "a b" OR body : "c")', [4, 30], { atLeast: 0, atMost: 34 }],
    ['NOT: no lower bound', 'body : "a" NOT body : "b"', [8, 2], { atLeast: 0, atMost: 10 }],
    ['an operator word inside a phrase is text', 'body : "and" OR body : "not"', [1, 2], { atLeast: 2, atMost: 3 }],
    ['NEAR is not understood: unknown', 'NEAR(body : "a" body : "b", 3)', [1, 1], { atLeast: 0, atMost: Infinity }],
    ['a prefix query is not understood: unknown', 'body : "retr" *', [3], { atLeast: 0, atMost: Infinity }],
    ['a phrase of another column: unknown', 'body : "a" OR scope : "p1"', [3], { atLeast: 0, atMost: Infinity }],
    ['counts that do not fit the phrases: unknown', 'body : "a" OR body : "b"', [3], { atLeast: 0, atMost: Infinity }],
  ])('matchBounds: %s', (_name, match, frequencies, expected) => {
    expect(matchBounds(match, frequencies)).toEqual(expected);
  });

  /** `old` holds both query words; then `window + 50` newer messages hold one of them each. */
  function dense(extra: { rankWindow: number; otherProject?: boolean }) {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const other = createProject(db, { name: 'Other' });
    let old = 0;
    let foreign = 0;
    bulkWrite(db, () => {
      const first = createSession(db, { projectId: p.id });
      old = appendMessages(db, first.id, [{ role: 'user', content: 'the walrus ate the kelp' }]).messages[0]!.id;
      const o = createSession(db, { projectId: other.id });
      foreign = appendMessages(db, o.id, [{ role: 'user', content: 'walrus kelp walrus kelp' }]).messages[0]!.id;
      const s = createSession(db, { projectId: p.id });
      appendMessages(db, s.id, Array.from({ length: extra.rankWindow + 50 }, (_, i) => ({ role: 'user' as const, content: `${i % 2 ? 'walrus' : 'kelp'} note ${i} with padding words` })));
    });
    return { db, scope: { kind: 'project' as const, projectId: p.id }, old, foreign };
  }

  test('an old message holding both words is ranked (the newest-window cut never reached it), and the notes say how the match was cut', () => {
    const { db, scope, old, foreign } = dense({ rankWindow: 200 });
    // One message holds both words: a limit of 1 is filled by the messages holding several.
    const opts = { limit: 1, titleLimit: 0, rankWindow: 200, scopeTokenMinMatches: 0 };
    const r = keywordSearch(db, scope, 'walrus kelp', opts);
    expect(r.hits[0]!.messageId).toBe(old);
    expect(r.hits.map((h) => h.messageId)).not.toContain(foreign);
    expect(r.notes.join(' ')).toMatch(/only messages holding several of them were ranked/);
    // The full ranking (JOIN first, every match) agrees on the first hit and its score.
    const full = keywordSearch(db, scope, 'walrus kelp', { ...opts, topFirst: false });
    expect(full.hits[0]!.messageId).toBe(old);
    expect(r.hits[0]!.score).toBeCloseTo(full.hits[0]!.score, 9);
    // One word alone cannot be split: the newest window, as before, and its note.
    const single = keywordSearch(db, scope, 'walrus', { ...opts, limit: 10, rankWindow: 100 });
    expect(single.notes.join(' ')).toMatch(/only the 100 most recent matching messages were ranked/);
    expect(single.hits.map((h) => h.messageId)).not.toContain(old);
  });

  test('when the messages holding several words leave the list short, the newest window fills it', () => {
    const { db, scope, old } = dense({ rankWindow: 200 });
    const r = keywordSearch(db, scope, 'walrus kelp', { limit: 30, titleLimit: 0, rankWindow: 200, scopeTokenMinMatches: 0 });
    expect(r.hits).toHaveLength(30);
    expect(r.hits[0]!.messageId).toBe(old);
    expect(r.notes.join(' ')).toMatch(/200 most recent matching messages were ranked/);
  });

  test('rows the cut admits keep the order and scores of the full ranking; no row of another project', () => {
    const WORDS = ['alpha', 'beta', 'gamma', '数据', '迁移'];
    fc.assert(
      fc.property(
        fc.array(fc.record({ project: fc.integer({ min: 0, max: 1 }), words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }) }), { minLength: 110, maxLength: 160 }),
        fc.subarray(WORDS, { minLength: 2, maxLength: 4 }),
        (rows, query) => {
          const db = tempDb();
          const projects = [createProject(db, { name: 'A' }).id, createProject(db, { name: 'B' }).id];
          const owner = new Map<string, string>();
          bulkWrite(db, () => {
            for (const r of rows) {
              const s = createSession(db, { projectId: projects[r.project]! });
              owner.set(s.id, projects[r.project]!);
              appendMessages(db, s.id, [{ role: 'user', content: r.words.join(' ') }]);
            }
          });
          const scope = { kind: 'project' as const, projectId: projects[0]! };
          const opts = { limit: 500, titleLimit: 0, scopeTokenMinMatches: 0, rankWindow: 100, cjkBackoff: 'none' as const, replyCredit: false, coverageRerank: false };
          const cut = keywordSearch(db, scope, query.join(' '), opts).hits;
          const full = keywordSearch(db, scope, query.join(' '), { ...opts, topFirst: false }).hits;
          expect(cut.every((h) => owner.get(h.sessionId) === projects[0])).toBe(true);
          const fullScore = new Map(full.map((h) => [h.messageId, h.score]));
          for (const h of cut) expect(h.score).toBeCloseTo(fullScore.get(h.messageId)!, 9);
          const order = full.map((h) => h.messageId).filter((id) => cut.some((h) => h.messageId === id));
          expect(cut.map((h) => h.messageId)).toEqual(order);
          db.close();
        },
      ),
      { numRuns: 15 },
    );
  });
});
