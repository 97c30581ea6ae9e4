/**
 * Question → reply credit (keyword-pairs.ts): a reply that matches the query itself shares the score
 * of the question directly before it, so the anchor of "how long will you stay?" / "two weeks in
 * Spain" is the reply — while a reply matching nothing ("yes") never takes the question's place,
 * a hit holding the whole query is never passed on credit, and only the adjacent message of the
 * other role in the same session counts. Chinese and English, on real SQLite files.
 */
import { describe, expect, test } from 'vitest';
import { appendMessages, createProject, createSession, keywordSearch } from '../src/index.js';
import { creditReplies, endsWithQuestion, type PairCandidate } from '../src/internal.js';
import { tempDb } from './support/temp-db.js';

describe('endsWithQuestion', () => {
  test.each([
    ['你打算花多长时间旅行？', true],
    ['Should I use busy_timeout?', true],
    ['要蒸多久？😊', true],
    ['He asked: "really?"', true],
    ['真的吗？听起来很不错！', false],
    ['Should I? I think so.', false],
    ['How long (roughly)', false],
    ['', false],
  ])('%j → %s', (text, expected) => {
    expect(endsWithQuestion(text)).toBe(expected);
  });
});

type Hit = PairCandidate & { text: string };
const hit = (messageId: number, role: string, score: number, text: string, extra: Partial<Hit> = {}): Hit => ({ messageId, sessionId: 's1', role, score, automated: false, text, ...extra });

describe('creditReplies: the order contract (always best first; sorted input comes back as it is)', () => {
  const q = (id: number, score: number, extra: Partial<Hit> = {}) => hit(id, 'assistant', score, 'a statement.', extra);
  test.each<[string, Hit[], number, number[]]>([
    ['sorted, nothing credited: as it came', [q(1, 3), q(5, 2), q(9, 1)], 0.5, [1, 5, 9]],
    ['unsorted, nothing credited: sorted by score', [q(9, 1), q(1, 3), q(5, 2)], 0.5, [1, 5, 9]],
    ['unsorted, credit 0: sorted by score', [q(9, 1), q(1, 3)], 0, [1, 9]],
    ['ties keep input order', [q(9, 2), q(1, 2), q(5, 3)], 0.5, [5, 9, 1]],
    ['sorted with automated last: as it came', [q(1, 1), q(5, 3, { automated: true }), q(9, 2, { automated: true })], 0.5, [1, 5, 9]],
    ['unsorted with automated last: each part by score, automated still last', [q(1, 1), q(5, 3), q(9, 2, { automated: true }), q(7, 4, { automated: true })], 0.5, [5, 1, 7, 9]],
    ['unsorted, a reply credited: sorted with the credit', [hit(2, 'user', 0.6, '两周'), q(7, 0.1), hit(1, 'assistant', 1, '玩多久？')], 0.5, [2, 1, 7]],
    ['one hit', [q(4, 1)], 0.5, [4]],
  ])('%s', (_name, hits, credit, order) => {
    const out = creditReplies(hits, { textOf: (h) => h.text, credit });
    expect(out.map((h) => h.messageId)).toEqual(order);
    expect(out).not.toBe(hits);
    // Sorted input that earns no credit is returned element for element (same objects, same order).
    if (order.join() === hits.map((h) => h.messageId).join()) out.forEach((h, i) => expect(h).toBe(hits[i]));
  });
});

describe('creditReplies', () => {
  test.each<[string, Hit[], number[]]>([
    ['a reply after a question passes it', [hit(1, 'assistant', 1, '玩多久？'), hit(2, 'user', 0.6, '两周')], [2, 1]],
    ['a reply after a statement gets nothing', [hit(1, 'assistant', 1, '玩两周。'), hit(2, 'user', 0.6, '两周')], [1, 2]],
    ['same role: no pair', [hit(1, 'user', 1, '玩多久？'), hit(2, 'user', 0.6, '两周')], [1, 2]],
    ['another session: no pair', [hit(1, 'assistant', 1, '玩多久？'), hit(2, 'user', 0.6, '两周', { sessionId: 's2' })], [1, 2]],
    ['not adjacent (a message in between): no pair', [hit(1, 'assistant', 1, '玩多久？'), hit(3, 'user', 0.6, '两周')], [1, 3]],
    ['a tool message is no reply', [hit(1, 'assistant', 1, 'run it?'), hit(2, 'tool', 0.9, 'ok')], [1, 2]],
    ['a too weak reply stays below', [hit(1, 'assistant', 1, '玩多久？'), hit(2, 'user', 0.4, '两周')], [1, 2]],
    ['the question keeps its own score (no chain)', [hit(1, 'user', 1, 'a?'), hit(2, 'assistant', 0.8, 'b?'), hit(3, 'user', 0.7, 'c')], [2, 3, 1]],
  ])('%s', (_name, hits, order) => {
    const out = creditReplies(hits, { textOf: (h) => h.text, credit: 0.5 });
    expect(out.map((h) => h.messageId)).toEqual(order);
    expect(out.map((h) => h.score)).toEqual([...out.map((h) => h.score)].sort((a, b) => b - a));
  });

  test('a hit holding the whole query is never passed on credit; a whole reply may pass', () => {
    const hits = [hit(9, 'user', 1, 'whole'), hit(1, 'assistant', 0.95, 'q?'), hit(2, 'user', 0.7, 'part')];
    const whole = (h: Hit) => h.text === 'whole';
    expect(creditReplies(hits, { textOf: (h) => h.text, credit: 0.5, whole }).map((h) => h.messageId)).toEqual([9, 2, 1]);
    expect(creditReplies(hits, { textOf: (h) => h.text, credit: 0.5, whole: (h) => whole(h) || h.messageId === 2 }).map((h) => h.messageId)).toEqual([2, 9, 1]);
  });

  test('automated hits stay after interactive ones', () => {
    const hits = [hit(5, 'user', 1, 'x'), hit(1, 'assistant', 3, 'q?', { automated: true }), hit(2, 'user', 2, 'a', { automated: true })];
    expect(creditReplies(hits, { textOf: (h) => h.text, credit: 1 }).map((h) => h.messageId)).toEqual([5, 2, 1]);
  });
});

interface Conversation {
  name: string;
  query: string;
  /** The conversation, in order; `filler` messages are added to other sessions so BM25's IDF is meaningful. */
  turns: { role: 'user' | 'assistant'; content: string }[];
  /** Index in `turns` of the expected first hit. */
  first: number;
  /** Indexes of turns that must not be hits at all. */
  absent?: number[];
}

const CONVERSATIONS: Conversation[] = [
  {
    name: 'zh: the user’s answer to the assistant’s question',
    query: '西班牙打算玩多久',
    turns: [
      { role: 'user', content: '我下个月想去西班牙旅行。' },
      { role: 'assistant', content: '那听起来非常棒，西班牙是一个充满活力的地方。你打算花多长时间旅行？' },
      { role: 'user', content: '我计划在西班牙待两周左右。' },
    ],
    first: 2,
  },
  {
    name: 'zh: a reply that matches nothing does not steal the anchor',
    query: '西班牙打算玩多久',
    turns: [
      { role: 'assistant', content: '你打算在西班牙玩多久？' },
      { role: 'user', content: '好的。' },
    ],
    first: 0,
    absent: [1],
  },
  {
    name: 'zh: a message holding the whole query stays above a credited partial reply',
    query: '健身房训练计划',
    turns: [
      { role: 'user', content: '我把健身房训练计划写好了，每周三次。' },
      { role: 'assistant', content: '你的训练计划怎么安排？' },
      { role: 'user', content: '每周练三次训练。' },
    ],
    first: 0,
  },
  {
    name: 'en: the answer that repeats the question’s words',
    query: 'busy_timeout sqlite connection',
    turns: [
      { role: 'user', content: 'Should I set busy_timeout on the SQLite connection?' },
      { role: 'assistant', content: 'Yes, set busy_timeout to 5000 ms on each SQLite connection.' },
    ],
    first: 1,
  },
  {
    name: 'en: "yes" matches nothing and never takes the question’s place',
    query: 'should I use busy_timeout',
    turns: [
      { role: 'user', content: 'should I use busy_timeout?' },
      { role: 'assistant', content: 'yes' },
    ],
    first: 0,
    absent: [1],
  },
];

const FILLER = ['今天天气不错，我们去公园散步吧。', '晚饭做了红烧肉和青菜。', 'We moved the build to a faster runner.', 'The release notes are in the wiki.'];

describe('keywordSearch credits a matching reply with its question', () => {
  test.each(CONVERSATIONS)('$name', (c) => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    for (let i = 0; i < 6; i++) {
      const other = createSession(db, { projectId: p.id });
      appendMessages(db, other.id, FILLER.map((content, j) => ({ role: j % 2 === 0 ? ('user' as const) : ('assistant' as const), content })));
    }
    const s = createSession(db, { projectId: p.id });
    const ids = appendMessages(db, s.id, c.turns).messages.map((m) => m.id);
    const scope = { kind: 'project' as const, projectId: p.id };
    const on = keywordSearch(db, scope, c.query, { limit: 10 });
    expect(on.hits[0]?.messageId).toBe(ids[c.first]);
    for (const a of c.absent ?? []) expect(on.hits.map((h) => h.messageId)).not.toContain(ids[a]);
    // Same candidates either way: the credit only re-orders what the search found.
    const off = keywordSearch(db, scope, c.query, { limit: 10, replyCredit: false });
    expect(new Set(on.hits.map((h) => h.messageId))).toEqual(new Set(off.hits.map((h) => h.messageId)));
  });

  test.each([0, 3])('without the credit, case %i puts the question first (BM25 alone does not find the reply)', (i) => {
    const c = CONVERSATIONS[i]!;
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    for (let k = 0; k < 6; k++) appendMessages(db, createSession(db, { projectId: p.id }).id, FILLER.map((content) => ({ role: 'user' as const, content })));
    const ids = appendMessages(db, createSession(db, { projectId: p.id }).id, c.turns).messages.map((m) => m.id);
    const scope = { kind: 'project' as const, projectId: p.id };
    expect(keywordSearch(db, scope, c.query, { limit: 10, replyCredit: false }).hits[0]?.messageId).toBe(ids[c.first - 1]);
    expect(keywordSearch(db, scope, c.query, { limit: 10 }).hits[0]?.messageId).toBe(ids[c.first]);
  });
});
