/**
 * Discover's ranking rules on real SQLite files: a title hit never beats a body hit that matches
 * more of the query's terms (table of title/body pairs, including issue 22's "ownership problem
 * with returned slices"), a title that matches at least as much still comes first, a title-matched
 * conversation is anchored at its best-matching message (not its first), and the other matches of a
 * conversation are listed with it; between a question and the reply directly after it, the reply
 * is the anchor when it matches the query itself (never a bare "yes").
 */
import { describe, expect, test } from 'vitest';
import { appendMessages, createProject, createSession } from '@recall/store';
import { createSessionSearchTool } from '../src/index.js';
import { mergeTitleAndBody } from '../src/discover.js';
import { tempDb } from './support/temp-db.js';

interface Pair {
  query: string;
  title: string;
  /** Text of the titled conversation (matches none of the query's terms). */
  titledBody: string;
  /** The untitled conversation's matching message. */
  body: string;
  first: 'title' | 'body';
}

const PAIRS: Pair[] = [
  {
    query: 'ownership problem with returned slices',
    title: 'Function returns',
    titledBody: 'we renamed a helper and moved on',
    body: 'The problem: the returned slice borrows from a local vector, so the borrow checker rejects it.',
    first: 'body',
  },
  { query: 'postgres connection pool timeout', title: 'Postgres notes', titledBody: 'nothing else here', body: 'the connection pool hit its timeout under load', first: 'body' },
  { query: 'retry policy for uploads', title: 'Retry policy for uploads', titledBody: 'we chose exponential backoff', body: 'the retry happens on uploads too', first: 'title' },
  { query: 'deploy script', title: 'Deploy script', titledBody: 'we use make', body: 'the deploy script failed on the runner', first: 'title' },
  { query: '数据库 超时 重试', title: '数据库', titledBody: '今天天气不错', body: '数据库连接超时以后要重试三次', first: 'body' },
];

describe('title hits against body hits', () => {
  test.each(PAIRS)('$query → $first first', async (pair) => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const titled = createSession(db, { projectId: p.id, title: pair.title, startedAt: 1_700_000_000_000 });
    appendMessages(db, titled.id, [{ role: 'user', content: pair.titledBody, createdAt: 1_700_000_000_000 }]);
    const plain = createSession(db, { projectId: p.id, startedAt: 1_700_000_100_000 });
    appendMessages(db, plain.id, [{ role: 'user', content: pair.body, createdAt: 1_700_000_100_000 }]);
    const me = createSession(db, { projectId: p.id });
    const r = await createSessionSearchTool({ db }).execute({ query: pair.query, search_mode: 'keyword' }, { currentSessionId: me.id });
    expect(r.error).toBeUndefined();
    expect(r.results.map((x) => x.session_id).slice(0, 2)).toEqual(pair.first === 'title' ? [titled.id, plain.id] : [plain.id, titled.id]);
    expect(r.results.find((x) => x.session_id === titled.id)?.match_field).toBe('title');
  });

  test.each([
    [[{ titleTerms: 1, bodyTerms: 0 }], [{ titleTerms: -1, bodyTerms: 3 }], [3, 1]],
    [[{ titleTerms: 3, bodyTerms: 0 }], [{ titleTerms: -1, bodyTerms: 3 }], [3, 3]],
    [[{ titleTerms: 1, bodyTerms: 2 }], [{ titleTerms: -1, bodyTerms: 2 }, { titleTerms: -1, bodyTerms: 1 }], [2, 2, 1]],
    [[], [{ titleTerms: -1, bodyTerms: 1 }], [1]],
  ])('merge %j with %j', (titles, bodies, expected) => {
    expect(mergeTitleAndBody(titles, bodies).map((g) => Math.max(g.titleTerms, g.bodyTerms))).toEqual(expected);
  });
});

describe('anchors', () => {
  test('a title-matched conversation is anchored at its best-matching message, the others listed', async () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const s = createSession(db, { projectId: p.id, title: 'Backoff discussion' });
    const [, weak, best] = appendMessages(db, s.id, [
      { role: 'user', content: 'hello, a new topic today' },
      { role: 'assistant', content: 'some backoff here' },
      { role: 'user', content: 'exponential backoff with jitter, capped at thirty seconds' },
    ]).messages;
    const me = createSession(db, { projectId: p.id });
    const r = await createSessionSearchTool({ db }).execute({ query: 'exponential backoff jitter', search_mode: 'keyword' }, { currentSessionId: me.id });
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toMatchObject({ session_id: s.id, message_id: best!.id, match_field: 'title', other_message_ids: [weak!.id] });
  });
});

describe('question and reply: which one is the anchor', () => {
  // The reply becomes the anchor when it matches the query itself (the store's question → reply
  // credit); a reply matching nothing ("yes", "好的") leaves the question as the anchor. Either way
  // the other message is in the window.
  const CASES = [
    {
      name: 'zh: the user’s answer to the assistant’s question',
      query: '西班牙打算玩多久',
      turns: ['我下个月想去西班牙旅行。', '那听起来非常棒，西班牙是一个充满活力的地方。你打算花多长时间旅行？', '我计划在西班牙待两周左右。'],
      anchor: 2,
    },
    { name: 'zh: "好的" does not take the question’s place', query: '西班牙打算玩多久', turns: ['我们聊聊旅行吧。', '你打算在西班牙玩多久？', '好的。'], anchor: 1 },
    {
      name: 'en: the answer repeating the question’s words',
      query: 'busy_timeout sqlite connection',
      turns: ['Should I set busy_timeout on the SQLite connection?', 'Yes, set busy_timeout to 5000 ms on each SQLite connection.'],
      anchor: 1,
    },
    { name: 'en: "yes" does not take the question’s place', query: 'should I use busy_timeout', turns: ['should I use busy_timeout?', 'yes'], anchor: 0 },
  ];
  test.each(CASES)('$name', async (c) => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    for (let k = 0; k < 6; k++) {
      const other = createSession(db, { projectId: p.id, startedAt: 1_600_000_000_000 + k });
      appendMessages(db, other.id, [
        { role: 'user', content: '今天天气不错，我们去公园散步吧。' },
        { role: 'assistant', content: 'We moved the build to a faster runner.' },
      ]);
    }
    const s = createSession(db, { projectId: p.id, startedAt: 1_700_000_000_000 });
    // Roles alternate so that the last turn is the assistant's (a user question, an assistant reply, or the other way round).
    const ids = appendMessages(db, s.id, c.turns.map((content, i) => ({ role: i % 2 === c.turns.length % 2 ? ('user' as const) : ('assistant' as const), content }))).messages.map((m) => m.id);
    const me = createSession(db, { projectId: p.id });
    const r = await createSessionSearchTool({ db }).execute({ query: c.query, search_mode: 'keyword', window: 1 }, { currentSessionId: me.id });
    expect(r.error).toBeUndefined();
    expect(r.results[0]).toMatchObject({ session_id: s.id, message_id: ids[c.anchor] });
    const other = c.anchor === c.turns.length - 1 ? c.anchor - 1 : c.anchor + 1;
    expect(r.results[0]!.window.map((w) => w.message_id)).toContain(ids[other]);
  });
});

describe('similarity floor', () => {
  function world(scores: number[], floor: number) {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const s = createSession(db, { projectId: p.id });
    const stored = appendMessages(db, s.id, scores.map((_, i) => ({ role: 'user' as const, content: `unrelated text number ${i}` }))).messages;
    const me = createSession(db, { projectId: p.id });
    const semantic = {
      fusion: { similarityFloor: floor },
      status: () => ({ status: 'ready' as const, coverage: 'unknown' as const }),
      search: async () => stored.map((m, i) => ({ messageId: m.id, sessionId: s.id, score: scores[i]! })),
    };
    return { tool: createSessionSearchTool({ db, semantic }), me, stored };
  }

  test.each([
    ['semantic', [0.12, 0.08], 0.25, 0, true],
    ['semantic', [0.4, 0.1], 0.25, 1, false],
    ['hybrid', [0.12, 0.08], 0.25, 0, false],
    ['semantic', [0.12, 0.08], 0, 1, false],
  ] as const)('%s mode, cosines %j, floor %f → %i result(s), no-match note %s', async (mode, scores, floor, count, noMatch) => {
    const { tool, me } = world([...scores], floor);
    const r = await tool.execute({ query: 'accelerate lookups', search_mode: mode }, { currentSessionId: me.id });
    expect(r.error).toBeUndefined();
    expect(r.results).toHaveLength(count);
    expect(r.notes.some((n) => n.startsWith('No semantic match'))).toBe(noMatch);
  });
});
