/**
 * The keyword ranking of the two backends on the same rows (issue 19, item 4: `pnpm eval` equal
 * within 0.02). Each case writes one project through the storage ports into a fresh SQLite file
 * (one project per file: FTS5's statistics are then the project's, as PostgreSQL's are) and into a
 * fresh PostgreSQL database, asks the same question on both and compares the answers: the same
 * messages in the same order with the same BM25 scores. Each case is a difference the eval found:
 *
 * - document length: FTS5 counts the row's project token (the `scope` column) in its length, so a
 *   message of n words is n + 1 long; PostgreSQL's tsvector holds no such lexeme;
 * - the candidate window: the GIN query returns at most 500 rows best by ts_rank, and a question
 *   matching more messages than that lost the one BM25 ranks first (a rare word in a long message
 *   behind hundreds of short messages repeating a common one);
 * - document frequencies: FTS5 counts every message holding a phrase, including those the search
 *   filters out (another role, the caller's own session) and those not matching a required phrase.
 */
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KeywordQueryOptions, KeywordQueryScope, Storage } from '@recall/storage-ports';
import { openSqliteStorage } from '@recall/store';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openPostgresStorage } from '../src/index.js';
import { useCluster } from './cluster.js';

const cluster = useCluster();
const dirs: string[] = [];
const open: Storage[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

type Fixture = Array<{ session: string; messages: Array<{ role: 'user' | 'assistant'; content: string }> }>;

/** The same project on both backends, written in the same order (so the message ids agree). */
async function bothBackends(fixture: Fixture): Promise<{ sqlite: Storage; postgres: Storage }> {
  const dir = mkdtempSync(join(tmpdir(), 'recall-parity-'));
  dirs.push(dir);
  const sqlite = await openSqliteStorage({ kind: 'sqlite', path: join(dir, 'recall.db') });
  open.push(sqlite);
  const postgres = await openPostgresStorage({ kind: 'postgres', url: cluster.freshUrl() });
  open.push(postgres);
  for (const s of [sqlite, postgres]) {
    await s.projects.create({ id: 'p_parity', name: 'Parity' });
    await s.sessions.create({ id: 'asker', projectId: 'p_parity', messages: [] });
    for (const session of fixture) await s.sessions.create({ id: session.session, projectId: 'p_parity', messages: session.messages });
  }
  return { sqlite, postgres };
}

async function answers(b: { sqlite: Storage; postgres: Storage }, query: string, options: KeywordQueryOptions, scope: KeywordQueryScope = { kind: 'project', projectId: 'p_parity', excludeSessionIds: ['asker'] }) {
  const [s, p] = await Promise.all([b.sqlite.keyword.search(scope, query, options), b.postgres.keyword.search(scope, query, options)]);
  const rows = (hits: typeof s.hits) => hits.map((h) => ({ id: h.messageId, score: h.score, snippet: h.snippet }));
  return { sqlite: rows(s.hits), postgres: rows(p.hits) };
}

function expectSameRanking(a: { sqlite: Array<{ id: number; score: number }>; postgres: Array<{ id: number; score: number }> }): void {
  expect(a.sqlite.length).toBeGreaterThan(0);
  expect(a.postgres.map((h) => h.id)).toEqual(a.sqlite.map((h) => h.id));
  a.postgres.forEach((h, i) => expect(h.score).toBeCloseTo(a.sqlite[i]!.score, 9));
}

const talk: Fixture = [
  {
    session: 's1',
    messages: [
      { role: 'user', content: 'Caroline: I went to the LGBTQ support group yesterday and it was so powerful.' },
      { role: 'assistant', content: 'Melanie: That sounds amazing! What did the support group talk about?' },
      { role: 'user', content: 'Caroline: Transgender stories, mostly. I felt accepted.' },
      { role: 'assistant', content: 'Melanie: I painted a sunrise over the lake last week.' },
    ],
  },
  {
    session: 's2',
    messages: [
      { role: 'user', content: 'Caroline: The adoption agency called back about the interview.' },
      { role: 'assistant', content: 'Melanie: My kids loved the camping trip, we roasted marshmallows by the lake.' },
      { role: 'user', content: 'Caroline: Support from friends matters so much.' },
      { role: 'assistant', content: 'Melanie: Pottery class is my favourite part of the week.' },
    ],
  },
];

const chinese: Fixture = [
  {
    session: 'c1',
    messages: [
      { role: 'user', content: '我想学做番茄炒蛋，番茄要先炒吗？' },
      { role: 'assistant', content: '番茄炒蛋要先炒蛋再放番茄，最后加一点糖。' },
      { role: 'user', content: '今天去公园散步，看到番茄花开了。' },
      { role: 'assistant', content: '公园里的花真好看，你拍照了吗？' },
    ],
  },
  {
    session: 'c2',
    messages: [
      { role: 'user', content: '周末打算去西班牙旅行，你觉得待多久合适？' },
      { role: 'assistant', content: '我计划在西班牙待两周左右，先去巴塞罗那。' },
      { role: 'user', content: '炒菜的时候火要大一点。' },
    ],
  },
];

describe('keyword ranking: SQLite (one project per file) and PostgreSQL rank alike', () => {
  it.each([
    ['番茄炒蛋怎么做', true],
    ['上次说的番茄炒蛋和番茄', true],
    ['西班牙旅行待多久', true],
    ['番茄炒蛋怎么做', false],
  ])('same scores for a Chinese question, the character relaxation as the SQLite search builds it: %s (partial %s)', async (query, partialCjk) => {
    const b = await bothBackends(chinese);
    expectSameRanking(await answers(b, query, { limit: 20, partialCjk }));
  });

  it.each([
    ['When did Caroline go to the LGBTQ support group?'],
    ['What did Melanie paint?'],
    ['lake camping kids'],
    ['support'],
  ])('same scores, project token counted in the length: %s', async (query) => {
    const b = await bothBackends(talk);
    expectSameRanking(await answers(b, query, { limit: 20 }));
  });

  it('same document frequencies with a role filter, a required phrase and a matching message of the caller', async () => {
    const b = await bothBackends([...talk, { session: 'asker2', messages: [{ role: 'user', content: 'Caroline: support group support group lake' }] }]);
    const scope: KeywordQueryScope = { kind: 'project', projectId: 'p_parity', excludeSessionIds: ['asker2'] };
    expectSameRanking(await answers(b, 'support group lake', { limit: 20, roles: ['user'] }, scope));
    expectSameRanking(await answers(b, '"support group" Caroline', { limit: 20 }, scope));
  });

  it('every match is ranked when the question matches more messages than one GIN call returns', async () => {
    // 700 short messages repeating a common word, then one long message holding the rare one:
    // ts_rank puts it last, BM25 first.
    const filler = Array.from({ length: 120 }, (_, i) => `word${i % 40}`).join(' ');
    const common = Array.from({ length: 700 }, (_, i) => ({ role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant', content: `deploy deploy deploy note ${i}` }));
    const b = await bothBackends([
      { session: 'rare', messages: [{ role: 'user', content: `${filler} the zephyr rollout finished and we deploy later ${filler}` }] },
      { session: 'common', messages: common },
    ]);
    const a = await answers(b, 'zephyr deploy', { limit: 10 });
    expectSameRanking(a);
    expect(a.sqlite[0]!.snippet).toContain('«zephyr»');
    expect(a.sqlite).toHaveLength(10);
  });
});

describe('the part reads of a question matching more than one GIN call (property)', () => {
  const VOCAB = ['deploy', 'rollback', 'zephyr', 'kiln', 'corgi', 'timeout', 'retry'] as const;
  it('never return a message of another project, and fill the limit from the asking project', async () => {
    const storage = await openPostgresStorage({ kind: 'postgres', url: cluster.freshUrl() });
    open.push(storage);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 3 }), { minLength: 110, maxLength: 160 }),
        fc.array(fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 3 }), { minLength: 110, maxLength: 160 }),
        fc.uniqueArray(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 12 }),
        async (mine, theirs, words, limit) => {
          run++;
          const [a, b] = [`p_a${run}`, `p_b${run}`];
          for (const [project, texts] of [[a, mine], [b, theirs]] as const) {
            await storage.projects.create({ id: project, name: project });
            // Every message says "deploy" once more, so the question matches more than one call returns.
            await storage.sessions.create({ id: `${project}-s`, projectId: project, messages: texts.map((w) => ({ role: 'user' as const, content: `deploy ${w.join(' ')}` })) });
          }
          const answer = await storage.keyword.search({ kind: 'project', projectId: a, excludeSessionIds: [] }, `deploy ${words.join(' ')}`, { limit });
          expect(answer.hits.every((h) => h.sessionId === `${a}-s`)).toBe(true);
          expect(answer.hits).toHaveLength(Math.min(limit, mine.length));
          // Best first.
          const scores = answer.hits.map((h) => h.score);
          expect([...scores].sort((x, y) => y - x)).toEqual(scores);
        },
      ),
      { numRuns: 8 },
    );
  });
});
