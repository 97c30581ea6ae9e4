/**
 * Which message of a question/reply exchange anchors a CJK keyword search (keyword-exchanges.ts):
 * the reply reads its question, a reply to a follow-up question may pass the statement before that
 * question, an echo never passes what it echoes — and the rules only re-order a session's own hits
 * (each session keeps its places in the credited ranking). Pure rules, table-driven, plus the same
 * conversations through keywordSearch on real SQLite files.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { appendMessages, createProject, createSession, keywordSearch } from '../src/index.js';
import { closingQuestion, coverageUnits, creditReplies, normalizeForSearch, rankExchanges, REPLY_CREDIT_COVERAGE, type ExchangeCandidate } from '../src/internal.js';
import { tempDb } from './support/temp-db.js';

describe('closingQuestion', () => {
  test.each([
    ['厦门很漂亮。你觉得哪个景点是你最喜欢的呢？', '你觉得哪个景点是你最喜欢的呢？'],
    ['你去过吗？你喜欢吗？', '你去过吗？你喜欢吗？'],
    ['听起来不错！你是怎么做的呢？能不能分享一下？', '你是怎么做的呢？能不能分享一下？'],
    ['Nice. How long will you stay? 😊', ' How long will you stay? 😊'],
    ['真的吗？听起来很不错！', ''],
    ['没有问题。', ''],
    ['', ''],
  ])('%j → %j', (text, expected) => {
    expect(closingQuestion(normalizeForSearch(text))).toBe(normalizeForSearch(expected));
  });
});

type Row = ExchangeCandidate & { name: string };
/** Messages of one session in order (ids 1, 2, …), each with a BM25 score (larger is better). */
const session = (turns: [role: string, text: string, score?: number][], sessionId = 's1', first = 1): Row[] =>
  turns.map(([role, text, score], i) => ({ messageId: first + i, sessionId, role, score: score ?? 1, text: normalizeForSearch(text), automated: false, name: `${sessionId}#${i}` }));

interface Case {
  name: string;
  query: string;
  rows: Row[];
  /** The expected first hit (its `name`). */
  first: string;
  /** The rule expected to have moved it, if any. */
  rule?: string;
}

const CASES: Case[] = [
  {
    name: 'rule 1: the reply to a question that holds the query’s words anchors',
    query: '你推荐的美食节目叫什么',
    rows: session([
      ['assistant', '我也想学做美食。你有没有推荐的美食节目？'],
      ['user', '可以看看《回家吃饭》，还有美食博主的视频。', 0.5],
    ]),
    first: 's1#1',
    rule: 'reply-reads-question',
  },
  {
    name: 'rule 1: the question’s own statements match more of the query — it stays first',
    query: '清蒸鲈鱼要蒸几分钟',
    rows: session([
      ['assistant', '清蒸鲈鱼大火蒸八分钟就好。你通常搭配什么菜？'],
      ['user', '我一般配西兰花，很清爽。', 0.5],
    ]),
    first: 's1#0',
  },
  {
    name: 'rule 1: same role, another session or a message in between — no exchange',
    query: '你推荐的美食节目叫什么',
    rows: [
      ...session([['assistant', '你有没有推荐的美食节目？']]),
      ...session([['user', '可以看看美食博主的视频。', 0.5]], 's2', 2),
      ...session([['assistant', '美食博主的视频也很好。', 0.5]], 's1', 3),
    ],
    first: 's1#0',
  },
  {
    name: 'rule 1 (chain): the reply to a follow-up question passes the statement before it',
    query: '去新西兰探险我最想看什么',
    rows: session([
      ['user', '我喜欢去探险，最近计划去新西兰。'],
      ['assistant', '新西兰很美。你是想去探险看看山川，还是去滑雪呢？'],
      ['user', '想去看看那里的冰川和瀑布，探险一定很壮观。', 0.6],
    ]),
    first: 's1#2',
    rule: 'reply-reads-question',
  },
  {
    name: 'rule 1 (chain): a reply matching little of the query does not pass the statement',
    query: '我喜欢巴赫的哪部作品',
    rows: session([
      ['user', '我喜欢巴赫的管弦乐组曲，还爱听肖邦的钢琴曲。'],
      ['assistant', '真有意思。你有没有想过出版自己的作品呢？', 0.5],
      ['user', '有考虑过，不过写作总差点灵感。', 0.3],
    ]),
    first: 's1#0',
  },
  {
    name: 'rule 1 (chain): a statement that itself answers a question is not passed by the reply to the next one',
    query: '我面试通过的那家公司做什么',
    rows: session([
      ['assistant', '恭喜你！请问是哪家公司的面试呢？'],
      ['user', '是一家新兴的互联网公司，业务很有潜力。', 0.5],
      ['assistant', '真为你高兴。你准备好下一轮面试了吗？', 0.4],
      ['user', '我还要和公司沟通职位细节，准备面试需要的技能。', 0.9],
    ]),
    first: 's1#1',
    rule: 'reply-reads-question',
  },
  {
    name: 'rule 2: an echo never passes what it echoes (however short)',
    query: '糖醋排骨做法',
    rows: session([
      ['assistant', '糖醋排骨的做法：排骨炸至金黄，再加糖、醋和盐翻炒。'],
      ['user', '谢谢，这个做法我会试试，做糖醋排骨。', 1.3],
    ]),
    first: 's1#0',
  },
  {
    name: 'rule 2: a reply that adds a word of the query is no echo',
    query: '糖醋排骨做法',
    rows: session([
      ['assistant', '糖醋排骨很好吃。'],
      ['user', '糖醋排骨的做法：先炸再炒。', 1.3],
    ]),
    first: 's1#1',
  },
];

describe('rankExchanges', () => {
  test.each(CASES)('$name', (c) => {
    const out = rankExchanges(c.rows, coverageUnits(c.query, new Set()));
    expect(out.map((r) => r.name)[0]).toBe(c.first);
    expect(out[0]!.rule).toBe(c.rule);
    expect(new Set(out.map((r) => r.messageId))).toEqual(new Set(c.rows.map((r) => r.messageId)));
  });

  test('a reply never passes a third message holding the whole query (its own question it may pass)', () => {
    const query = '你推荐的美食节目叫什么';
    const rows = session([
      ['user', '我推荐的美食节目叫《回家吃饭》。', 0.01],
      ['assistant', '你推荐的美食节目叫什么名字来着？', 1],
      ['user', '还有美食博主的视频。', 0.2],
    ]);
    const out = rankExchanges(rows, coverageUnits(query, new Set()));
    // The question itself follows the statement it repeats (rule 2); without the guard the reply would rank first.
    expect(out.map((r) => r.name)).toEqual(['s1#0', 's1#1', 's1#2']);
  });

  test('no CJK units or a single row: BM25’s order, unchanged', () => {
    const rows = session([['user', 'a?'], ['assistant', 'b', 2]]);
    expect(rankExchanges(rows, []).map((r) => r.messageId)).toEqual([1, 2]);
    expect(rankExchanges(rows.slice(0, 1), coverageUnits('美食', new Set())).map((r) => r.messageId)).toEqual([1]);
  });

  test('property: the rules only re-order a session’s own hits — each session keeps its places and their scores', () => {
    const texts = ['你推荐的美食节目？', '可以看美食博主。', '清蒸鲈鱼蒸八分钟。', '谢谢，我会试试清蒸鲈鱼。', '你喜欢什么节目？', '好的。', '美食节目很多。'];
    const units = coverageUnits('你推荐的美食节目叫什么，清蒸鲈鱼蒸几分钟', new Set());
    fc.assert(
      fc.property(
        fc.array(fc.record({ session: fc.constantFrom('a', 'b', 'c'), role: fc.constantFrom('user', 'assistant', 'tool'), text: fc.constantFrom(...texts), score: fc.double({ min: 0.01, max: 5, noNaN: true }) }), { minLength: 2, maxLength: 12 }),
        (spec) => {
          const rows: ExchangeCandidate[] = spec
            .map((s, i) => ({ messageId: i + 1, sessionId: s.session, role: s.role, score: s.score, text: normalizeForSearch(s.text), automated: false }))
            .sort((x, y) => y.score - x.score);
          const out = rankExchanges(rows, units);
          // The places: the coverage blend and the plain credit, as the search ranked before the rules.
          const best = Math.max(...rows.map((r) => r.score));
          // Sorted as the coverage re-rank sorts them (ties in input order): without a credited reply
          // the credit keeps its input order, so unsorted input would keep BM25's order.
          const blended = rows
            .map((r, i) => ({ r: { ...r, score: 0.2 * (r.score / best) + 0.8 * coverageOf(r.text, units) }, i }))
            .sort((a, b) => b.r.score - a.r.score || a.i - b.i)
            .map(({ r }) => r);
          const places = creditReplies(blended, { textOf: (r) => r.text, credit: REPLY_CREDIT_COVERAGE, whole: (r) => coverageOf(r.text, units) >= 1 - 1e-9 });
          expect(out.map((r) => r.sessionId)).toEqual(places.map((r) => r.sessionId));
          expect(out.map((r) => r.score)).toEqual(places.map((r) => r.score));
          expect(new Set(out.map((r) => r.messageId))).toEqual(new Set(rows.map((r) => r.messageId)));
        },
      ),
      { numRuns: 200 },
    );
  });
});

function coverageOf(text: string, units: ReturnType<typeof coverageUnits>): number {
  let total = 0;
  let found = 0;
  for (const u of units) {
    total += u.weight;
    if (text.includes(u.text)) found += u.weight;
  }
  return total > 0 ? found / total : 0;
}

interface Conversation {
  name: string;
  query: string;
  turns: { role: 'user' | 'assistant'; content: string }[];
  /** Index in `turns` of the expected first hit. */
  first: number;
}

/** The same rules through keywordSearch (FTS5 BM25, the coverage blend, the credit) on a real SQLite file. */
const CONVERSATIONS: Conversation[] = [
  {
    name: 'the user’s reply to the assistant’s question that holds the query’s words',
    query: '你推荐的美食节目叫什么',
    turns: [
      { role: 'user', content: '最近我在学做菜。' },
      { role: 'assistant', content: '我也想学做美食。不知道你有没有推荐的美食节目呢？' },
      { role: 'user', content: '你可以看看中央电视台的《回家吃饭》，还有美食博主分享的视频。' },
    ],
    first: 2,
  },
  {
    name: 'the reply to a follow-up question passes the statement before it',
    query: '去新西兰探险我最想看什么',
    turns: [
      { role: 'user', content: '我非常喜欢户外活动，尤其是去探险。最近我在计划去新西兰玩儿。' },
      { role: 'assistant', content: '新西兰是一个很美丽的地方。你是想去探险看看那里的山川河流，还是去滑雪呢？' },
      { role: 'user', content: '打算去探险，尤其是想去看看那里的冰川和瀑布，听说非常壮观。' },
    ],
    first: 2,
  },
  {
    name: 'an echo does not pass the recipe it thanks for',
    query: '糖醋排骨做法',
    turns: [
      { role: 'user', content: '请你推荐一些有趣的食谱吧。' },
      { role: 'assistant', content: '我觉得糖醋排骨很不错，做法如下：将排骨油炸至金黄色，备用；加入适量的糖、醋和盐，翻炒均匀。' },
      { role: 'user', content: '哇，这个做法听着很美味，我会尝试做糖醋排骨的。' },
    ],
    first: 1,
  },
];

const FILLER = ['今天天气不错，我们去公园散步吧。', '晚饭做了红烧肉和青菜。', 'We moved the build to a faster runner.', 'The release notes are in the wiki.'];

describe('keywordSearch: which message of an exchange anchors', () => {
  test.each(CONVERSATIONS)('$name', (c) => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    for (let i = 0; i < 6; i++) {
      const other = createSession(db, { projectId: p.id });
      appendMessages(db, other.id, FILLER.map((content, j) => ({ role: j % 2 === 0 ? ('user' as const) : ('assistant' as const), content })));
    }
    const ids = appendMessages(db, createSession(db, { projectId: p.id }).id, c.turns).messages.map((m) => m.id);
    const scope = { kind: 'project' as const, projectId: p.id };
    const on = keywordSearch(db, scope, c.query, { limit: 10 });
    expect(on.hits[0]?.messageId).toBe(ids[c.first]);
    // Without the rules (and the credit) the first hit is another message of the exchange: the rule decides.
    const off = keywordSearch(db, scope, c.query, { limit: 10, replyCredit: false });
    expect(off.hits[0]?.messageId).not.toBe(ids[c.first]);
    expect(new Set(on.hits.map((h) => h.messageId))).toEqual(new Set(off.hits.map((h) => h.messageId)));
  });
});
