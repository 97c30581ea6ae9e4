/**
 * Coverage re-ranking of CJK keyword candidates (keyword-coverage.ts): which units a question
 * contributes, and that keywordSearch puts the message holding most of a paraphrased question
 * above one that BM25 prefers for a single rare character — while English questions keep BM25's order.
 */
import { describe, expect, test } from 'vitest';
import { appendMessages, createProject, createSession, keywordSearch } from '../src/index.js';
import { coverage, coverageUnits, rerankByCoverage } from '../src/internal.js';
import { tempDb } from './support/temp-db.js';

describe('coverageUnits', () => {
  test.each([
    // question, units that must be there, units that must not
    ['我上次说的那道蒸鱼要蒸多久？', ['蒸', '鱼', '蒸鱼'], ['我', '上次', '多久']],
    ['去欧洲那个斗牛国家待多长时间', ['欧洲', '斗牛', '国家', '牛国'], ['那个', '洲那']],
    ['busy_timeout 是什么', ['busy timeout'], ['什么']],
  ])('%s', (query, present, absent) => {
    const units = coverageUnits(query, new Set()).map((u) => u.text);
    for (const p of present) expect(units).toContain(p);
    for (const a of absent) expect(units).not.toContain(a);
  });

  test('an English question has no units (BM25 order is kept)', () => {
    expect(coverageUnits('ownership problem with returned slices', new Set())).toEqual([]);
  });

  test('common characters weigh less', () => {
    const units = coverageUnits('蒸鱼', new Set(['鱼']));
    expect(units.find((u) => u.text === '鱼')!.weight).toBeLessThan(units.find((u) => u.text === '蒸')!.weight);
  });
});

describe('rerankByCoverage', () => {
  test.each([
    // rows (BM25 score, text), expected order of texts
    [[{ score: 10, text: '鲈' }, { score: 6, text: '清蒸鲈鱼要蒸八分钟' }], ['清蒸鲈鱼要蒸八分钟', '鲈']],
    [[{ score: 10, text: '清蒸鲈鱼' }, { score: 9, text: '清蒸鲈鱼' }], ['清蒸鲈鱼', '清蒸鲈鱼']],
  ])('%j', (rows, order) => {
    const units = coverageUnits('清蒸鲈鱼蒸几分钟', new Set());
    const out = rerankByCoverage(rows, units);
    expect(out.map((r) => r.text)).toEqual(order);
    expect(out.map((r) => r.score)).toEqual([...out.map((r) => r.score)].sort((a, b) => b - a));
  });

  test('coverage is the weighted share found', () => {
    const units = [{ text: 'ab', weight: 1, latin: true }, { text: '蒸', weight: 3, latin: false }];
    expect(coverage('蒸 x', units)).toBe(0.75);
    expect(coverage('none', units)).toBe(0);
  });
});

describe('keywordSearch re-ranks CJK candidates by coverage', () => {
  test('the message holding most of the question outranks a single rare character', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const s = createSession(db, { projectId: p.id });
    const [rare, full] = appendMessages(db, s.id, [
      { role: 'user', content: '鲈' },
      { role: 'user', content: '今天中午做了红烧鱼，酱汁放了糖和醋，鱼要先煎再烧' },
    ]).messages;
    appendMessages(db, s.id, Array.from({ length: 20 }, (_, i) => ({ role: 'assistant' as const, content: `第${i}次聊天：今天天气不错，鱼和汁都很好` })));
    const scope = { kind: 'project' as const, projectId: p.id };
    const q = '中午做的那道酱汁鲈鱼';
    const on = keywordSearch(db, scope, q, { limit: 5 });
    const off = keywordSearch(db, scope, q, { limit: 5, coverageRerank: false });
    expect(on.hits[0]!.messageId).toBe(full!.id);
    expect(off.hits.map((h) => h.messageId)).toContain(rare!.id);
    expect(new Set(on.hits.map((h) => h.messageId))).toEqual(new Set(off.hits.map((h) => h.messageId)));
  });
});
