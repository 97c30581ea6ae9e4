/**
 * The tool's shapes against the review of stage A (issue 13): role_filter everywhere, paging inside
 * long messages, discover truncation, browse of logical conversations, lineage on results and
 * reading across compression segments, the "your own conversation matched" note, the bounded
 * substring fallback for identifier fragments, and the token economy (no repeated anchor text, a
 * per-call budget that trims windows before results). Real SQLite files, no mocks.
 */
import { describe, expect, test } from 'vitest';
import { SUBSTRING_SCAN_MESSAGES } from '@recall/store/internal';
import { appendMessage, appendMessages, createContinuation, createProject, createSession } from '@recall/store';
import { createSessionSearchTool, type SessionSearchResult } from '../src/index.js';
import { estimateTokens, RESULT_TOKEN_BUDGET, resultTokens } from '../src/budget.js';
import { tempDb } from './support/temp-db.js';

const T0 = 1_700_000_000_000;

function project() {
  const db = tempDb();
  const p = createProject(db, { name: 'P' });
  const q = createProject(db, { name: 'Q' });
  const caller = createSession(db, { projectId: p.id, title: 'now', startedAt: T0 + 9_000_000 });
  appendMessage(db, caller.id, { role: 'user', content: 'hello there', createdAt: T0 + 9_000_000 });
  return { db, p, q, caller, tool: createSessionSearchTool({ db }) };
}

const ids = (r: SessionSearchResult) => r.results.map((x) => x.message_id);

describe('role_filter applies to every shape', () => {
  function world() {
    const w = project();
    const titled = createSession(w.db, { projectId: w.p.id, title: 'Retry policy', startedAt: T0 });
    const [u1, a1, u2] = appendMessages(w.db, titled.id, [
      { role: 'user', content: 'first question', createdAt: T0 },
      { role: 'assistant', content: 'first answer', createdAt: T0 + 1 },
      { role: 'user', content: 'second question', createdAt: T0 + 2 },
    ]).messages;
    const userOnly = createSession(w.db, { projectId: w.p.id, title: 'Retry policy for users only', startedAt: T0 + 10 });
    appendMessage(w.db, userOnly.id, { role: 'user', content: 'only a user spoke here', createdAt: T0 + 10 });
    return { ...w, titled, userOnly, u1: u1!, a1: a1!, u2: u2! };
  }

  test('title hits are anchored at a message of the filtered roles, or left out', async () => {
    const w = world();
    const r = await w.tool.execute({ query: 'retry policy', search_mode: 'keyword', role_filter: ['assistant'] }, { currentSessionId: w.caller.id });
    expect(r.results.map((x) => [x.session_id, x.role, x.message_id])).toEqual([[w.titled.id, 'assistant', w.a1.id]]);
  });

  test.each([
    ['browse', {}, ['assistant'], (w: ReturnType<typeof world>) => [w.a1.id]],
    ['read', { session_id: 'titled' }, ['user'], (w: ReturnType<typeof world>) => [w.u1.id, w.u2.id]],
    ['scroll', { around_message_id: 'a1', window: 2 }, ['user'], (w: ReturnType<typeof world>) => [w.u1.id, w.a1.id, w.u2.id]],
    ['scroll (anchor of another role stays)', { around_message_id: 'u1', window: 2 }, ['assistant'], (w: ReturnType<typeof world>) => [w.u1.id, w.a1.id]],
  ] as const)('%s returns only messages of those roles', async (_label, rawArgs, roles, expected) => {
    const w = world();
    const args: Record<string, unknown> = { ...rawArgs, role_filter: roles };
    if (args.session_id === 'titled') args.session_id = w.titled.id;
    if (args.around_message_id === 'a1') args.around_message_id = w.a1.id;
    if (args.around_message_id === 'u1') args.around_message_id = w.u1.id;
    const r = await w.tool.execute(args, { currentSessionId: w.caller.id });
    expect(r.error).toBeUndefined();
    expect(ids(r)).toEqual(expected(w));
  });
});

describe('paging inside a long message', () => {
  test.each([
    ['scroll', (id: number, sid: string) => ({ around_message_id: id, window: 0, _s: sid })],
    ['read', (_id: number, sid: string) => ({ session_id: sid })],
  ])('%s shows 2000 characters, says where to continue, and offset pages to the end', async (_label, first) => {
    const w = project();
    const s = createSession(w.db, { projectId: w.p.id });
    const text = Array.from({ length: 520 }, (_, i) => `w${String(i).padStart(3, '0')}$ `).join('').slice(0, 5_000) + '尾';
    const m = appendMessage(w.db, s.id, { role: 'assistant', content: text });
    const { _s, ...args } = first(m.id, s.id) as Record<string, unknown>;
    void _s;
    const r = await w.tool.execute(args, { currentSessionId: w.caller.id });
    expect(r.results[0]).toMatchObject({ message_id: m.id, next_offset: 2_000, total_chars: text.length });
    expect(r.truncated).toBe(true);
    expect(r.notes.join(' ')).toContain(`around_message_id ${m.id} and offset 2000`);
    let got = r.results[0]!.snippet;
    let next = r.results[0]!.next_offset;
    let calls = 0;
    while (next !== undefined && calls++ < 10) {
      const page = await w.tool.execute({ around_message_id: m.id, offset: next }, { currentSessionId: w.caller.id });
      expect(page.results).toHaveLength(1);
      expect(page.results[0]!.text_offset).toBe(next);
      got += page.results[0]!.snippet;
      next = page.results[0]!.next_offset;
    }
    expect(got).toBe(text);
  });

  test('an offset past the end is an invalid_arguments result', async () => {
    const w = project();
    const s = createSession(w.db, { projectId: w.p.id });
    const m = appendMessage(w.db, s.id, { role: 'user', content: 'short' });
    const r = await w.tool.execute({ around_message_id: m.id, offset: 50 }, { currentSessionId: w.caller.id });
    expect(r.error?.code).toBe('invalid_arguments');
  });
});

describe('discover reports truncation', () => {
  test('when one chatty conversation fills the candidate list and fewer than limit conversations come back', async () => {
    const w = project();
    const chatty = createSession(w.db, { projectId: w.p.id, startedAt: T0 });
    appendMessages(w.db, chatty.id, Array.from({ length: 60 }, () => ({ role: 'user' as const, content: 'zeppelin zeppelin zeppelin' })));
    for (let i = 0; i < 4; i++) {
      const s = createSession(w.db, { projectId: w.p.id, startedAt: T0 + i });
      appendMessage(w.db, s.id, { role: 'user', content: `a long message that mentions a zeppelin only once among many other words number ${i}` });
    }
    const r = await w.tool.execute({ query: 'zeppelin', search_mode: 'keyword', limit: 3, window: 0 }, { currentSessionId: w.caller.id });
    expect(r.results.length).toBeLessThan(3);
    expect(r.truncated).toBe(true);
    expect(r.notes.join(' ')).toMatch(/more matching conversations may exist/);
  });

  test('when more conversations match than limit', async () => {
    const w = project();
    for (let i = 0; i < 4; i++) appendMessage(w.db, createSession(w.db, { projectId: w.p.id }).id, { role: 'user', content: `marzipan ${i}` });
    const r = await w.tool.execute({ query: 'marzipan', search_mode: 'keyword', limit: 2 }, { currentSessionId: w.caller.id });
    expect(r.results).toHaveLength(2);
    expect(r.truncated).toBe(true);
    const all = await w.tool.execute({ query: 'marzipan', search_mode: 'keyword', limit: 10 }, { currentSessionId: w.caller.id });
    expect(all.truncated).toBe(false);
  });
});

describe('browse lists logical conversations', () => {
  function world() {
    const w = project();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      const s = createSession(w.db, { projectId: w.p.id, startedAt: T0 + i * 1000 });
      appendMessage(w.db, s.id, { role: 'user', content: `conversation ${i}`, createdAt: T0 + i * 1000 });
      made.push(s.id);
    }
    return { ...w, made };
  }

  test('sort oldest returns the oldest conversations first, not the newest page reversed', async () => {
    const w = world();
    const r = await w.tool.execute({ sort: 'oldest', limit: 2 }, { currentSessionId: w.caller.id });
    expect(r.results.map((x) => x.session_id)).toEqual([w.made[0], w.made[1]]);
    expect(r.truncated).toBe(true);
  });

  test('empty sessions do not take slots', async () => {
    const w = world();
    for (let i = 0; i < 4; i++) createSession(w.db, { projectId: w.p.id, startedAt: T0 + 99_000_000 + i });
    const r = await w.tool.execute({ limit: 3 }, { currentSessionId: w.caller.id });
    expect(r.results.map((x) => x.session_id)).toEqual([w.caller.id, w.made[4], w.made[3]]);
  });

  test('a compressed conversation is one entry, anchored in its latest segment, with lineage', async () => {
    const w = world();
    const root = w.made[0]!;
    const c1 = createContinuation(w.db, root).session;
    const c2 = createContinuation(w.db, c1.id).session;
    appendMessage(w.db, c2.id, { role: 'assistant', content: 'latest words' });
    const r = await w.tool.execute({ limit: 10 }, { currentSessionId: w.caller.id });
    const entries = r.results.filter((x) => x.conversation_id === root);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ session_id: c2.id, snippet: 'conversation 0', segment: 3, segment_count: 3 });
    expect(r.results).toHaveLength(6);
  });
});

describe('lineage on results and reading across segments', () => {
  function world() {
    const w = project();
    const root = createSession(w.db, { projectId: w.p.id, title: 'long chat', startedAt: T0 });
    const early = appendMessages(w.db, root.id, [
      { role: 'user', content: 'we picked postgres for the ledger', createdAt: T0 },
      { role: 'assistant', content: 'ok, postgres it is', createdAt: T0 + 1 },
    ]).messages;
    const cont = createContinuation(w.db, root.id, { note: 'continued' }).session;
    const late = appendMessages(w.db, cont.id, [{ role: 'user', content: 'now the ledger needs an index', createdAt: T0 + 5 }]).messages;
    return { ...w, root, cont, early, late };
  }

  test('a hit in a continuation names its conversation and its place in it', async () => {
    const w = world();
    const r = await w.tool.execute({ query: 'ledger index', search_mode: 'keyword' }, { currentSessionId: w.caller.id });
    expect(r.results[0]).toMatchObject({ session_id: w.cont.id, conversation_id: w.root.id, segment: 2, segment_count: 2 });
  });

  test('read with conversation: true covers the segments in order', async () => {
    const w = world();
    const r = await w.tool.execute({ session_id: w.cont.id, conversation: true, limit: 10 }, { currentSessionId: w.caller.id });
    expect(r.results.map((x) => [x.session_id, x.segment])).toEqual([
      [w.root.id, 1],
      [w.root.id, 1],
      [w.cont.id, 2],
      [w.cont.id, 2],
    ]);
    const one = await w.tool.execute({ session_id: w.cont.id }, { currentSessionId: w.caller.id });
    expect(one.results.every((x) => x.session_id === w.cont.id)).toBe(true);
    expect(one.notes.join(' ')).toContain(`segment before it is session_id ${w.root.id}`);
  });

  test('scroll at the start of a continuation steps back into the segment before it', async () => {
    const w = world();
    const note = (await w.tool.execute({ session_id: w.cont.id }, { currentSessionId: w.caller.id })).results[0]!;
    const r = await w.tool.execute({ around_message_id: note.message_id, window: 2 }, { currentSessionId: w.caller.id });
    expect(r.results.map((x) => x.session_id)).toEqual([w.root.id, w.root.id, w.cont.id, w.cont.id]);
  });
});

describe('the caller’s own conversation', () => {
  test('matching only in the live current conversation says so instead of a bare "No matches"', async () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const only = createSession(db, { projectId: p.id });
    appendMessage(db, only.id, { role: 'user', content: 'the pelican deployment failed' });
    const tool = createSessionSearchTool({ db });
    const r = await tool.execute({ query: 'pelican', search_mode: 'keyword' }, { currentSessionId: only.id });
    expect(r.results).toEqual([]);
    expect(r.notes.join(' ')).toMatch(/current conversation also matches/);
    const none = await tool.execute({ query: 'walrus', search_mode: 'keyword' }, { currentSessionId: only.id });
    expect(none.notes.join(' ')).not.toMatch(/current conversation/);
  });
});

describe('identifier fragments fall back to a scoped, bounded substring search', () => {
  test.each([
    ['busy_time', 'set busy_timeout to 5000'],
    ['ECONNRES', 'socket hang up: ECONNRESET from upstream'],
    ['retryPol', 'see retryPolicyFor(request)'],
    ['What was busy_time again?', 'we raised busy_timeout to 5000'],
  ])('%s finds %j, with a note, and nothing from another project', async (query, text) => {
    const w = project();
    const s = createSession(w.db, { projectId: w.p.id });
    const m = appendMessage(w.db, s.id, { role: 'assistant', content: text });
    appendMessage(w.db, createSession(w.db, { projectId: w.q.id }).id, { role: 'assistant', content: `${text} (in Q)` });
    const r = await w.tool.execute({ query, search_mode: 'keyword' }, { currentSessionId: w.caller.id });
    expect(ids(r)).toEqual([m.id]);
    expect(r.notes.join(' ')).toMatch(/part of a longer word/);
  });

  test('a natural-language or Chinese question that finds nothing gets no substring scan', async () => {
    const w = project();
    for (const query of ['where did we park the zeppelin', '我们上次去哪里看的极光']) {
      const r = await w.tool.execute({ query, search_mode: 'keyword' }, { currentSessionId: w.caller.id });
      expect(r.notes.join(' ')).not.toMatch(/substring|most recent in scope/);
    }
  });

  // The bound is the scope's most recent messages: newer chatter in the caller's own project pushes
  // an old identifier out of reach (the note says the scan was bounded), newer chatter in another
  // project does not (it is not in the scope, so it is neither read nor counted).
  test.each([
    ['in the same project, the fragment is out of the bounded scan', 'same', false],
    ['in another project, the fragment is still found', 'other', true],
  ] as const)(`${SUBSTRING_SCAN_MESSAGES} newer messages %s`, async (_label, where, found) => {
    const w = project();
    const old = createSession(w.db, { projectId: w.p.id, startedAt: T0 });
    const m = appendMessage(w.db, old.id, { role: 'assistant', content: 'we set busy_timeout to 5000', createdAt: T0 });
    const chatter = createSession(w.db, { projectId: where === 'same' ? w.p.id : w.q.id, startedAt: T0 + 1_000 });
    appendMessages(w.db, chatter.id, Array.from({ length: SUBSTRING_SCAN_MESSAGES }, (_, i) => ({ role: 'user' as const, content: `chatter ${i}`, createdAt: T0 + 1_000 + i })));
    const r = await w.tool.execute({ query: 'busy_time', search_mode: 'keyword' }, { currentSessionId: w.caller.id });
    if (found) {
      expect(ids(r)).toEqual([m.id]);
      expect(r.notes.join(' ')).toMatch(/part of a longer word/);
    } else {
      expect(r.results).toEqual([]);
      expect(r.notes.join(' ')).toMatch(/most recent messages in scope contains/);
    }
  }, 60_000);

  test('with role_filter, the note says only the requested roles were scanned', async () => {
    const w = project();
    const s = createSession(w.db, { projectId: w.p.id, startedAt: T0 });
    appendMessage(w.db, s.id, { role: 'assistant', content: 'we set busy_timeout to 5000', createdAt: T0 });
    const r = await w.tool.execute({ query: 'busy_time', search_mode: 'keyword', role_filter: ['user'] }, { currentSessionId: w.caller.id });
    expect(r.results).toEqual([]);
    expect(r.notes.join(' ')).toMatch(/most recent messages of the requested roles \(user\) in scope contains "busy_time"/);
  });

  test('a fragment that is nowhere says the bounded scan found nothing', async () => {
    const w = project();
    const r = await w.tool.execute({ query: 'qwzx_frag', search_mode: 'keyword' }, { currentSessionId: w.caller.id });
    expect(r.results).toEqual([]);
    expect(r.notes.join(' ')).toMatch(/most recent messages in scope contains/);
  });
});

describe('token economy', () => {
  function busy(n: number) {
    const w = project();
    for (let i = 0; i < n; i++) {
      const s = createSession(w.db, { projectId: w.p.id, startedAt: T0 + i });
      appendMessages(
        w.db,
        s.id,
        Array.from({ length: 7 }, (_, k) => ({ role: (k % 2 ? 'assistant' : 'user') as 'user' | 'assistant', content: `${k === 3 ? 'kangaroo ' : ''}${'filler text '.repeat(60)}` })),
      );
    }
    return w;
  }

  test('the anchor text is sent once: in the snippet, not again in the window', async () => {
    const w = busy(2);
    const r = await w.tool.execute({ query: 'kangaroo', search_mode: 'keyword' }, { currentSessionId: w.caller.id });
    for (const item of r.results) {
      const anchor = item.window.find((x) => x.is_anchor)!;
      expect(anchor.message_id).toBe(item.message_id);
      expect(anchor.text).toBeUndefined();
      expect(item.window.filter((x) => !x.is_anchor).every((x) => typeof x.text === 'string')).toBe(true);
    }
  });

  test.each([
    ['default budget, default limit and window: nothing trimmed', RESULT_TOKEN_BUDGET, 2, 8, /never/],
    ['tight budget: windows shrink first, all results kept', 1_500, 3, 8, /Context windows were shortened/],
    ['very tight budget: results dropped after windows', 400, 3, -1, /lower-ranked result/],
  ])('%s', async (_label, budget, window, expectedCount, note) => {
    const w = busy(8);
    const tool = createSessionSearchTool({ db: w.db, resultTokenBudget: budget });
    const r = await tool.execute({ query: 'kangaroo', search_mode: 'keyword', limit: 8, window }, { currentSessionId: w.caller.id });
    expect(resultTokens(r.results)).toBeLessThanOrEqual(Math.max(budget, resultTokens(r.results.slice(0, 1))));
    if (expectedCount > 0) expect(r.results).toHaveLength(expectedCount);
    else expect(r.results.length).toBeLessThan(8);
    if (budget === RESULT_TOKEN_BUDGET) expect(r.notes.join(' ')).not.toMatch(/budget/);
    else {
      expect(r.notes.join(' ')).toMatch(note);
      expect(r.truncated).toBe(true);
    }
  });

  test.each([
    ['ascii', 'abcd'.repeat(100), 100],
    ['chinese', '数据库超时'.repeat(20), 100],
    ['emoji pair counts once', '🙂🙂', 2],
  ])('token estimate: %s', (_label, text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens);
  });
});
