/**
 * Conformance: the keyword index finds the same messages on every adapter for a table of queries
 * (Chinese words, single characters, phrases, English stems and identifiers), only inside the
 * scope asked for, never hidden sessions or rewound/deleted messages, and the caller's own live
 * messages are skipped while its compacted ones stay findable.
 */
import { describe, expect, it } from 'vitest';
import type { Storage } from '../storage.js';
import { type OpenFreshStorage, useStorages } from './harness.js';

const CORPUS = {
  egg: { session: 's_cook', content: '先把鸡蛋炒好再放番茄，番茄炒蛋就做好了' },
  fish: { session: 's_cook', content: '清蒸鲈鱼要先腌十分钟' },
  noodles: { session: 's_cook2', content: '牛肉面的汤要熬四个小时' },
  retry: { session: 's_ops', content: 'We decided to retry with exponential backoff when busy_timeout expires.' },
  deploy: { session: 's_ops', content: 'The deploy rollback finished after the second deploy.' },
  eggOps: { session: 's_ops', content: '番茄炒蛋 in the ops channel' },
  hidden: { session: 's_hidden', content: '番茄炒蛋 hidden draft' },
  rewound: { session: 's_cook', content: '番茄炒蛋 rewound draft', visibility: 'rewound' as const },
} as const;
type Key = keyof typeof CORPUS;

/** Query → scope project → the messages it must find (as a set). */
const TABLE: Array<[query: string, project: string, expected: Key[]]> = [
  ['番茄炒蛋', 'p_cook', ['egg']],
  ['"番茄炒蛋"', 'p_cook', ['egg']],
  ['番茄炒蛋', 'p_ops', ['eggOps']],
  ['鱼', 'p_cook', ['fish']],
  // '做' (a single character of 做好了) relaxes into the egg message too: both engines rank it below the fish.
  ['上次说的鲈鱼怎么做', 'p_cook', ['egg', 'fish']],
  ['牛肉面', 'p_cook', ['noodles']],
  ['蒸鱼', 'p_cook', ['fish']],
  ['牛肉汤怎么熬', 'p_cook', ['noodles']],
  ['炒蛋', 'p_cook', ['egg']],
  ['番茄 retry', 'p_ops', ['eggOps', 'retry']],
  ['what did we decide about retries?', 'p_ops', ['retry']],
  ['busy_timeout', 'p_ops', ['retry']],
  ['deploy rollback', 'p_ops', ['deploy']],
  ['backoff', 'p_cook', []],
  ['"timeout busy"', 'p_ops', []],
  ['hidden draft', 'p_cook', []],
  ['rewound', 'p_cook', []],
  ['', 'p_cook', []],
  ["a & | ! <-> :* ( ' \\", 'p_cook', []],
];

/** Exchanges whose anchor the shared exchange rules decide (@recall/store keyword-exchanges.ts): query, turns, expected first hit. */
const EXCHANGES: Array<{ query: string; turns: Array<['user' | 'assistant', string]>; first: number }> = [
  {
    query: '你推荐的美食节目叫什么',
    turns: [
      ['user', '最近我在学做菜。'],
      ['assistant', '我也想学做美食。不知道你有没有推荐的美食节目呢？'],
      ['user', '你可以看看中央电视台的《回家吃饭》，还有美食博主分享的视频。'],
    ],
    first: 2,
  },
  {
    query: '去新西兰探险我最想看什么',
    turns: [
      ['user', '我非常喜欢户外活动，尤其是去探险。最近我在计划去新西兰玩儿。'],
      ['assistant', '新西兰是一个很美丽的地方。你是想去探险看看那里的山川河流，还是去滑雪呢？'],
      ['user', '打算去探险，尤其是想去看看那里的冰川和瀑布，听说非常壮观。'],
    ],
    first: 2,
  },
  {
    query: '糖醋排骨做法',
    turns: [
      ['user', '请你推荐一些有趣的食谱吧。'],
      ['assistant', '我觉得糖醋排骨很不错，做法如下：将排骨油炸至金黄色，备用；加入适量的糖、醋和盐，翻炒均匀。'],
      ['user', '哇，这个做法听着很美味，我会尝试做糖醋排骨的。'],
    ],
    first: 1,
  },
];
const EXCHANGE_FILLER = ['今天天气不错，我们去公园散步吧。', '晚饭做了红烧肉和青菜。', 'We moved the build to a faster runner.', 'The release notes are in the wiki.'];

async function seed(s: Storage): Promise<Record<Key, number>> {
  await s.projects.create({ id: 'p_cook', name: 'Cooking' });
  await s.projects.create({ id: 'p_ops', name: 'Ops' });
  await s.sessions.create({ id: 's_cook', projectId: 'p_cook', title: '番茄炒蛋的做法' });
  await s.sessions.create({ id: 's_cook2', projectId: 'p_cook' });
  await s.sessions.create({ id: 's_ops', projectId: 'p_ops', title: 'Retry policy' });
  await s.sessions.create({ id: 's_hidden', projectId: 'p_cook', hidden: true });
  const ids = {} as Record<Key, number>;
  for (const key of Object.keys(CORPUS) as Key[]) {
    const m = CORPUS[key];
    const out = await s.messages.append(m.session, [{ role: 'user', content: m.content, ...('visibility' in m ? { visibility: m.visibility } : {}) }]);
    ids[key] = out.messages[0]!.id;
  }
  return ids;
}

/** Registers the keyword conformance tests. */
export function describeKeywordConformance(open: OpenFreshStorage): void {
  const fresh = useStorages(open);
  describe('keyword index', () => {
    it('finds the same message set for each query of the table, inside the project only', async () => {
      const s = await fresh();
      const ids = await seed(s);
      for (const [query, projectId, expected] of TABLE) {
        const answer = await s.keyword.search({ kind: 'project', projectId }, query, { limit: 50 });
        expect({ query, projectId, ids: answer.hits.map((h) => h.messageId).sort((a, b) => a - b) }).toEqual({
          query,
          projectId,
          ids: expected.map((k) => ids[k]).sort((a, b) => a - b),
        });
        for (const hit of answer.hits) expect(hit.snippet.length).toBeGreaterThan(0);
      }
    });

    it('ranks the message matching more terms first; limit applies inside the project', async () => {
      const s = await fresh();
      await s.projects.create({ id: 'p_a', name: 'A' });
      await s.projects.create({ id: 'p_b', name: 'B' });
      await s.sessions.create({ id: 'sa', projectId: 'p_a' });
      await s.sessions.create({ id: 'sb', projectId: 'p_b' });
      const a = await s.messages.append('sa', [
        { role: 'user', content: 'the deploy finished' },
        { role: 'assistant', content: 'the deploy rollback finished after the deploy' },
      ]);
      await s.messages.append('sb', Array.from({ length: 30 }, (_, i) => ({ role: 'user' as const, content: `deploy rollback number ${i}` })));
      const answer = await s.keyword.search({ kind: 'project', projectId: 'p_a' }, 'deploy rollback', { limit: 5 });
      expect(answer.hits.map((h) => h.messageId)).toEqual([a.messages[1]!.id, a.messages[0]!.id]);
      const one = await s.keyword.search({ kind: 'project', projectId: 'p_a' }, 'deploy', { limit: 1 });
      expect(one.hits.map((h) => h.sessionId)).toEqual(['sa']);
      const roles = await s.keyword.search({ kind: 'project', projectId: 'p_a' }, 'deploy', { roles: ['assistant'] });
      expect(roles.hits.map((h) => h.messageId)).toEqual([a.messages[1]!.id]);
      expect(roles.hits[0]!.role).toBe('assistant');
    });

    it('question/reply exchanges: the same first hit on every adapter (the reply to a question, past a statement, not an echo)', async () => {
      const s = await fresh();
      await s.projects.create({ id: 'p_x', name: 'X' });
      for (let i = 0; i < 4; i++) {
        await s.sessions.create({ id: `filler${i}`, projectId: 'p_x' });
        await s.messages.append(`filler${i}`, EXCHANGE_FILLER.map((content, j) => ({ role: j % 2 === 0 ? ('user' as const) : ('assistant' as const), content })));
      }
      for (const [i, c] of EXCHANGES.entries()) {
        await s.sessions.create({ id: `x${i}`, projectId: 'p_x' });
        const ids = (await s.messages.append(`x${i}`, c.turns.map(([role, content]) => ({ role, content })))).messages.map((m) => m.id);
        const answer = await s.keyword.search({ kind: 'project', projectId: 'p_x' }, c.query, { limit: 10, titleLimit: 0 });
        expect({ query: c.query, first: answer.hits[0]?.messageId }).toEqual({ query: c.query, first: ids[c.first] });
      }
    });

    it("skips the caller's own live messages but keeps its compacted ones; sessions scope and titles", async () => {
      const s = await fresh();
      await s.projects.create({ id: 'p_a', name: 'A' });
      await s.sessions.create({ id: 'mine', projectId: 'p_a', title: 'Deploy checklist' });
      await s.sessions.create({ id: 'other', projectId: 'p_a' });
      const mine = await s.messages.append('mine', [
        { role: 'user', content: 'deploy old' },
        { role: 'user', content: 'deploy live' },
      ]);
      const other = await s.messages.append('other', [{ role: 'user', content: 'deploy elsewhere' }]);
      await s.messages.compact('mine', mine.messages[0]!.id);
      const scoped = await s.keyword.search({ kind: 'project', projectId: 'p_a', excludeSessionIds: ['mine'] }, 'deploy');
      expect(scoped.hits.map((h) => h.messageId).sort((a, b) => a - b)).toEqual([mine.messages[0]!.id, other.messages[0]!.id].sort((a, b) => a - b));
      expect(scoped.titleHits).toEqual([]);
      const own = await s.keyword.search({ kind: 'sessions', sessionIds: ['mine'] }, 'deploy');
      expect(own.hits.map((h) => h.messageId).sort((a, b) => a - b)).toEqual(mine.messages.map((m) => m.id).sort((a, b) => a - b));
      const titles = await s.keyword.search({ kind: 'project', projectId: 'p_a' }, 'checklist');
      expect(titles.titleHits.map((t) => t.sessionId)).toEqual(['mine']);
      const moved = await s.projects.create({ id: 'p_b', name: 'B' });
      await s.sessions.move('other', moved.id);
      expect((await s.keyword.search({ kind: 'project', projectId: 'p_a' }, 'elsewhere')).hits).toEqual([]);
      expect((await s.keyword.search({ kind: 'project', projectId: 'p_b' }, 'elsewhere')).hits.map((h) => h.messageId)).toEqual([other.messages[0]!.id]);
      await s.messages.edit(other.messages[0]!.id, 'renamed text');
      expect((await s.keyword.search({ kind: 'project', projectId: 'p_b' }, 'elsewhere')).hits).toEqual([]);
      expect((await s.keyword.search({ kind: 'project', projectId: 'p_b' }, 'renamed')).hits.length).toBe(1);
      await s.messages.delete(other.messages[0]!.id);
      expect((await s.keyword.search({ kind: 'project', projectId: 'p_b' }, 'renamed')).hits).toEqual([]);
    });
  });
}
