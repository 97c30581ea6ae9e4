/**
 * Ranking paths of keywordSearch added for paraphrases and dense projects: the relaxation that
 * also fires when the best exact hits share few of a Chinese question's words, and the ranked
 * window (rank inside FTS5, then the JOIN on the best candidates only), which must return exactly
 * what the full JOIN-then-rank query returns whenever the match fits in RANK_WINDOW, and say so when
 * it does not.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { appendMessages, bulkWrite, createProject, createSession, deleteMessage, keywordSearch, RANK_WINDOW } from '../src/index.js';
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
