/**
 * The reranking seam: the blending formula (table), and the tool with test-only rerankers (scripted
 * scores, counted calls) — a strong rank 1 survives, close calls are decided by the reranker, a
 * failing or slow reranker leaves the fused order with a note, keyword mode and scopes the reranker
 * does not allow send nothing. The HTTP client and its loopback server tests live in @recall/semantic.
 */
import { describe, expect, test } from 'vitest';
import { appendMessages, createProject, createSession } from '@recall/store';
import { createSessionSearchTool, type Reranker, type SemanticHit, type SemanticSource } from '../src/index.js';
import { blendRerank, retrievalWeight } from '../src/internal.js';
import { tempDb } from './support/temp-db.js';

describe('blendRerank', () => {
  test.each([
    // fused scores (best first), reranker scores, expected order
    { name: 'a dominant rank 1 survives a reranker that prefers the last', fused: [1.18, 0.18, 0.17, 0.16], rerank: [0, 0.2, 0.5, 9], order: [0, 3, 2, 1] },
    { name: 'close fused scores: the reranker decides', fused: [0.2, 0.19, 0.18], rerank: [0.1, 0.3, 0.9], order: [2, 1, 0] },
    { name: 'equal reranker scores keep the fused order', fused: [0.2, 0.19, 0.18], rerank: [5, 5, 5], order: [0, 1, 2] },
    { name: 'agreeing reranker keeps the order', fused: [0.2, 0.19, 0.18], rerank: [3, 2, 1], order: [0, 1, 2] },
    { name: 'non-finite scores count as the lowest', fused: [0.2, 0.2, 0.2], rerank: [Number.NaN, 1, 0], order: [1, 0, 2] },
    { name: 'empty', fused: [], rerank: [], order: [] },
  ])('$name', ({ fused, rerank, order }) => {
    expect(blendRerank(fused, rerank)).toEqual(order);
  });

  test('weights are high for the top ranks and fall off', () => {
    expect([1, 3, 4, 10, 11, 50].map(retrievalWeight)).toEqual([0.75, 0.75, 0.6, 0.6, 0.4, 0.4]);
  });

  test('the top candidate is never passed by one whose retrieval score is at most 2/3 of it (ranks 2-3), 7/12 (4-10), 3/8 (beyond)', () => {
    const bound = (p: number) => (p <= 3 ? 2 / 3 : p <= 10 ? 7 / 12 : 3 / 8);
    for (let trial = 0; trial < 200; trial++) {
      const n = 2 + (trial % 20);
      const fused = [1, ...Array.from({ length: n - 1 }, (_, i) => bound(i + 2) * (1 - i / (n * 4)))];
      const rerank = Array.from({ length: n }, (_, i) => (i === 0 ? 0 : ((trial * 7919 + i * 104729) % 1000) / 10));
      expect(blendRerank(fused, rerank)[0]).toBe(0);
    }
  });
});

function world() {
  const db = tempDb();
  const p = createProject(db, { name: 'P' });
  const q = createProject(db, { name: 'Q' });
  const sessions = ['a', 'b', 'c'].map((t) => createSession(db, { projectId: p.id, title: t }));
  const [a] = appendMessages(db, sessions[0]!.id, [{ role: 'user', content: 'backoff backoff backoff for the uploader' }]).messages;
  const [b] = appendMessages(db, sessions[1]!.id, [{ role: 'user', content: 'backoff mentioned once in a long message about many other things entirely' }]).messages;
  const [c] = appendMessages(db, sessions[2]!.id, [{ role: 'user', content: 'wait longer after every failed attempt' }]).messages;
  const caller = createSession(db, { projectId: p.id });
  const other = createSession(db, { projectId: q.id });
  return { db, p, q, caller, other, ids: { a: a!.id, b: b!.id, c: c!.id } };
}

function source(db: ReturnType<typeof world>['db'], ids: number[]): SemanticSource {
  return {
    status: () => ({ status: 'ready', coverage: { indexed: 3, total: 3 } }),
    search: async () =>
      ids.map((id, i): SemanticHit => ({ messageId: id, sessionId: db.raw.prepare('select session_id from messages where id = ?').pluck().get(id) as string, score: 0.9 - i / 100 })),
  };
}

/** Scores texts by a table of substrings; counts calls and texts; may fail or hang. */
function scriptedReranker(scores: Record<string, number>, behaviour: 'ok' | 'fail' | 'hang' = 'ok', allowed = true): Reranker & { calls: number; texts: string[][] } {
  const r = {
    topN: 10,
    calls: 0,
    texts: [] as string[][],
    allows: () => (allowed ? { allowed: true as const } : { allowed: false as const, reason: 'not switched on' }),
    rerank: (_q: string, texts: readonly string[], options: { signal: AbortSignal }) => {
      r.calls++;
      r.texts.push([...texts]);
      if (behaviour === 'fail') return Promise.reject(new Error('the reranker answered HTTP 500'));
      if (behaviour === 'hang') return new Promise<number[]>((_, reject) => options.signal.addEventListener('abort', () => reject(new Error('aborted'))));
      return Promise.resolve(texts.map((t) => Object.entries(scores).find(([k]) => t.includes(k))?.[1] ?? 0));
    },
  };
  return r;
}

describe('session_search with a reranker', () => {
  test('hybrid: keyword rank 1 (with its fusion bonus) stays first although the reranker prefers another', async () => {
    const w = world();
    const reranker = scriptedReranker({ wait: 10, 'once in': 5, uploader: 0 });
    const tool = createSessionSearchTool({ db: w.db, semantic: source(w.db, [w.ids.c, w.ids.b]), reranker });
    const r = await tool.execute({ query: 'backoff', window: 0 }, { currentSessionId: w.caller.id });
    expect(reranker.calls).toBe(1);
    expect(r.results.map((x) => x.message_id)).toEqual([w.ids.a, w.ids.c, w.ids.b]);
    expect(r.notes.join(' ')).not.toMatch(/not reranked/);
  });

  test('semantic mode: close semantic scores are reordered by the reranker', async () => {
    const w = world();
    const reranker = scriptedReranker({ wait: 10 });
    const tool = createSessionSearchTool({ db: w.db, semantic: source(w.db, [w.ids.b, w.ids.a, w.ids.c]), reranker });
    const r = await tool.execute({ query: 'retry politely', search_mode: 'semantic', window: 0 }, { currentSessionId: w.caller.id });
    expect(r.results.map((x) => x.message_id)[0]).toBe(w.ids.c);
    const plain = await createSessionSearchTool({ db: w.db, semantic: source(w.db, [w.ids.b, w.ids.a, w.ids.c]) }).execute({ query: 'retry politely', search_mode: 'semantic', window: 0 }, { currentSessionId: w.caller.id });
    expect(plain.results.map((x) => x.message_id)).toEqual([w.ids.b, w.ids.a, w.ids.c]);
  });

  test.each([
    { behaviour: 'fail' as const, note: /not reranked: the reranker failed \(the reranker answered HTTP 500\)/ },
    { behaviour: 'hang' as const, note: /not reranked: the reranker did not answer before the search deadline/ },
  ])('a reranker that does $behaviour leaves the fused results with a note', async ({ behaviour, note }) => {
    const w = world();
    const args = { query: 'backoff', window: 0 };
    const expected = await createSessionSearchTool({ db: w.db, semantic: source(w.db, [w.ids.c, w.ids.b]) }).execute(args, { currentSessionId: w.caller.id });
    const r = await createSessionSearchTool({ db: w.db, semantic: source(w.db, [w.ids.c, w.ids.b]), reranker: scriptedReranker({}, behaviour), deadlineMs: 300 }).execute(args, { currentSessionId: w.caller.id });
    expect(r.error).toBeUndefined();
    expect(r.used_mode).toBe('hybrid');
    expect(r.results.map((x) => x.message_id)).toEqual(expected.results.map((x) => x.message_id));
    expect(r.notes.join(' ')).toMatch(note);
  });

  test.each([
    { name: 'keyword mode', args: { query: 'backoff', search_mode: 'keyword' as const }, allowed: true },
    { name: 'a scope the reranker does not allow', args: { query: 'backoff' }, allowed: false },
  ])('$name sends nothing to the reranker', async ({ args, allowed }) => {
    const w = world();
    const reranker = scriptedReranker({ wait: 10 }, 'ok', allowed);
    const r = await createSessionSearchTool({ db: w.db, semantic: source(w.db, [w.ids.c]), reranker }).execute({ ...args, window: 0 }, { currentSessionId: w.caller.id });
    expect(r.results.length).toBeGreaterThan(0);
    expect(reranker.calls).toBe(0);
  });

  test('only anchors of the caller project reach the reranker, even when the semantic source names a foreign message', async () => {
    const w = world();
    const [foreign] = appendMessages(w.db, w.other.id, [{ role: 'user', content: 'foreign backoff secret' }]).messages;
    const reranker = scriptedReranker({});
    await createSessionSearchTool({ db: w.db, semantic: source(w.db, [foreign!.id, w.ids.c]), reranker }).execute({ query: 'backoff', window: 0 }, { currentSessionId: w.caller.id });
    expect(reranker.calls).toBe(1);
    expect(reranker.texts.flat().join('\n')).not.toContain('foreign');
  });
});
