/**
 * session_search end to end on real SQLite files: every shape obeys the caller's project, the
 * project is re-read on every call, project-less callers only see their own history, and failures
 * come back as typed error results.
 */
import { describe, expect, test } from 'vitest';
import type { RecallDatabase } from '@recall/schema';
import {
  appendMessage,
  appendMessages,
  compactMessages,
  createContinuation,
  createDelegation,
  createProject,
  createSession,
  deleteMessage,
  rewindSession,
  setSessionProject,
} from '@recall/store';
import { createSessionSearchTool, type SessionSearchResult } from '../src/index.js';
import { tempDb } from './support/temp-db.js';

function world() {
  const db = tempDb();
  const p = createProject(db, { name: 'P' });
  const q = createProject(db, { name: 'Q' });
  const pOld = createSession(db, { projectId: p.id, title: 'Retry policy discussion', startedAt: 1_700_000_000_000 });
  const [, decision] = appendMessages(db, pOld.id, [
    { role: 'user', content: 'How should the uploader retry on E_CONN_RESET?', createdAt: 1_700_000_000_000 },
    { role: 'assistant', content: 'Use exponential backoff with jitter, capped at 30 seconds; set busy_timeout to 5000.', createdAt: 1_700_000_001_000 },
    { role: 'user', content: '好的，那蒸鱼要蒸多久？清蒸鲈鱼大概八分钟。', createdAt: 1_700_000_002_000 },
  ]).messages;
  const qOld = createSession(db, { projectId: q.id, title: 'Q backoff notes' });
  appendMessages(db, qOld.id, [{ role: 'user', content: 'In Q we also use exponential backoff for E_CONN_RESET and 蒸鱼.' }]);
  const pNow = createSession(db, { projectId: p.id, title: 'current P chat' });
  appendMessage(db, pNow.id, { role: 'user', content: 'what did we decide about exponential backoff?' });
  const qNow = createSession(db, { projectId: q.id });
  const tool = createSessionSearchTool({ db });
  return { db, p, q, pOld, qOld, pNow, qNow, decision: decision!, tool };
}

const sessionsOf = (r: SessionSearchResult) => [...new Set(r.results.map((x) => x.session_id))].sort();

describe('discover', () => {
  test('finds earlier conversations of the same project only, with anchors and links', async () => {
    const { tool, pNow, pOld, decision } = world();
    const r = await tool.execute({ query: 'exponential backoff', search_mode: 'keyword' }, { currentSessionId: pNow.id });
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ shape: 'discover', requested_mode: 'keyword', used_mode: 'keyword', semantic_status: 'disabled' });
    expect(sessionsOf(r)).toEqual([pOld.id]);
    const hit = r.results.find((x) => x.message_id === decision.id)!;
    expect(hit).toMatchObject({ session_id: pOld.id, role: 'assistant', match_source: 'keyword', link: `recall://session/${pOld.id}#m${decision.id}` });
    expect(hit.window.map((w) => w.is_anchor)).toContain(true);
  });

  test('hybrid without a semantic source answers from keyword and says so', async () => {
    const { tool, pNow } = world();
    const r = await tool.execute({ query: 'E_CONN_RESET' }, { currentSessionId: pNow.id });
    expect(r).toMatchObject({ requested_mode: 'hybrid', used_mode: 'keyword', semantic_status: 'disabled' });
    expect(r.notes.join(' ')).toMatch(/keyword-only/);
    expect(r.results.length).toBeGreaterThan(0);
  });

  test('explicit semantic reports unavailability instead of pretending', async () => {
    const { tool, pNow } = world();
    const r = await tool.execute({ query: 'backoff', search_mode: 'semantic' }, { currentSessionId: pNow.id });
    expect(r.error?.code).toBe('semantic_unavailable');
    expect(r.results).toEqual([]);
    expect(r.used_mode).toBe('none');
  });

  test('Chinese questions match without every term being present', async () => {
    const { tool, pNow, pOld } = world();
    const r = await tool.execute({ query: '我上次说的那道蒸鱼要蒸多久？' }, { currentSessionId: pNow.id });
    expect(sessionsOf(r)).toEqual([pOld.id]);
  });

  test('title hits come first', async () => {
    const { tool, pNow, pOld } = world();
    const r = await tool.execute({ query: 'retry policy' }, { currentSessionId: pNow.id });
    expect(r.results[0]).toMatchObject({ session_id: pOld.id, match_source: 'keyword', match_field: 'title' });
    expect(r.results[0]!.snippet).toContain('E_CONN_RESET');
  });

  test('one result per logical conversation, continuations included', async () => {
    const { db, tool, pNow, pOld } = world();
    const cont = createContinuation(db, pOld.id).session;
    appendMessage(db, cont.id, { role: 'assistant', content: 'exponential backoff again, in the continuation' });
    const r = await tool.execute({ query: 'exponential backoff', search_mode: 'keyword' }, { currentSessionId: pNow.id });
    expect(r.results).toHaveLength(1);
    expect(r.results[0]!.other_message_ids?.length).toBeGreaterThan(0);
  });

  test('the live current session is not returned to itself', async () => {
    const { tool, pNow } = world();
    const r = await tool.execute({ query: 'what did we decide', search_mode: 'keyword' }, { currentSessionId: pNow.id });
    expect(r.results.map((x) => x.session_id)).not.toContain(pNow.id);
  });

  test('rewound, deleted and delegated (hidden) text never appears', async () => {
    const { db, tool, p, pNow } = world();
    const s = createSession(db, { projectId: p.id });
    const [keep, , gone] = appendMessages(db, s.id, [
      { role: 'user', content: 'zebracorn keep' },
      { role: 'user', content: 'zebracorn rewound' },
      { role: 'user', content: 'zebracorn deleted' },
    ]).messages;
    rewindSession(db, s.id, keep!.id);
    deleteMessage(db, gone!.id);
    const child = createDelegation(db, s.id);
    appendMessage(db, child.id, { role: 'assistant', content: 'zebracorn from a sub-agent' });
    const r = await tool.execute({ query: 'zebracorn', search_mode: 'keyword', window: 0 }, { currentSessionId: pNow.id });
    expect(r.results.map((x) => x.message_id)).toEqual([keep!.id]);
    const read = await tool.execute({ session_id: child.id }, { currentSessionId: pNow.id });
    expect(read.error?.code).toBe('not_found');
  });

  test('a move between two calls changes the scope of the second', async () => {
    const { db, tool, q, pNow, qNow, pOld } = world();
    const before = await tool.execute({ query: 'jitter', search_mode: 'keyword' }, { currentSessionId: pNow.id });
    expect(sessionsOf(before)).toEqual([pOld.id]);
    setSessionProject(db, pOld.id, q.id);
    const fromP = await tool.execute({ query: 'jitter', search_mode: 'keyword' }, { currentSessionId: pNow.id });
    const fromQ = await tool.execute({ query: 'jitter', search_mode: 'keyword' }, { currentSessionId: qNow.id });
    expect(fromP.results).toEqual([]);
    expect(sessionsOf(fromQ)).toEqual([pOld.id]);
  });

  test('sort newest orders found conversations by time', async () => {
    const { db, tool, p, pNow } = world();
    const later = createSession(db, { projectId: p.id });
    appendMessage(db, later.id, { role: 'user', content: 'exponential backoff revisited', createdAt: 1_800_000_000_000 });
    const r = await tool.execute({ query: 'exponential backoff', search_mode: 'keyword', sort: 'newest' }, { currentSessionId: pNow.id });
    expect(r.results[0]!.session_id).toBe(later.id);
  });
});

describe('browse, read, scroll', () => {
  test('browse lists recent conversations of the project', async () => {
    const { tool, pNow, pOld } = world();
    const r = await tool.execute({}, { currentSessionId: pNow.id });
    expect(r).toMatchObject({ shape: 'browse', used_mode: 'direct' });
    expect(sessionsOf(r)).toEqual([pNow.id, pOld.id].sort());
  });

  test('read returns head and tail of a session in scope', async () => {
    const { db, tool, p, pNow } = world();
    const long = createSession(db, { projectId: p.id });
    appendMessages(db, long.id, Array.from({ length: 30 }, (_, i) => ({ role: 'user' as const, content: `line ${i}` })));
    const r = await tool.execute({ session_id: long.id, limit: 6 }, { currentSessionId: pNow.id });
    expect(r.results.map((x) => x.snippet)).toEqual(['line 0', 'line 1', 'line 2', 'line 27', 'line 28', 'line 29']);
    expect(r.truncated).toBe(true);
  });

  test('scroll returns the window around an anchor', async () => {
    const { tool, pNow, decision } = world();
    const r = await tool.execute({ around_message_id: decision.id, window: 1 }, { currentSessionId: pNow.id });
    expect(r.results).toHaveLength(3);
    expect(r.results[1]).toMatchObject({ message_id: decision.id, is_anchor: true });
  });

  test.each([
    ['read another project session', (w: ReturnType<typeof world>) => ({ session_id: w.pOld.id })],
    ['read an unknown session', () => ({ session_id: 's_unknown' })],
    ['scroll into another project', (w: ReturnType<typeof world>) => ({ around_message_id: w.decision.id })],
    ['scroll an unknown message', () => ({ around_message_id: 99_999 })],
    ['scroll with a mismatching session_id', (w: ReturnType<typeof world>) => ({ around_message_id: w.decision.id, session_id: w.pNow.id })],
  ])('%s → not_found, nothing leaked', async (_label, makeArgs) => {
    const w = world();
    const caller = _label.includes('mismatching') ? w.pNow : w.qNow;
    const r = await w.tool.execute(makeArgs(w), { currentSessionId: caller.id });
    expect(r.error?.code).toBe('not_found');
    expect(r.results).toEqual([]);
  });
});

describe('project-less sessions', () => {
  test('only recall their own compression history, never other NULL sessions, branches or resets', async () => {
    const db = tempDb();
    const other = createSession(db, {});
    appendMessage(db, other.id, { role: 'user', content: 'marmalade recipe from another chat' });
    const root = createSession(db, {});
    appendMessage(db, root.id, { role: 'user', content: 'marmalade needs bitter oranges' });
    const cont = createContinuation(db, root.id).session;
    const tool = createSessionSearchTool({ db });
    const r = await tool.execute({ query: 'marmalade', search_mode: 'keyword' }, { currentSessionId: cont.id });
    expect(r.scope).toEqual({ kind: 'own_conversation', project_id: null });
    expect(sessionsOf(r)).toEqual([root.id]);
    const read = await tool.execute({ session_id: other.id }, { currentSessionId: cont.id });
    expect(read.error?.code).toBe('not_found');
    const alone = await tool.execute({ query: 'marmalade', search_mode: 'keyword' }, { currentSessionId: other.id });
    expect(alone.results).toEqual([]);
    // The note names the scope that was searched: there is no project here.
    expect(alone.notes.join(' ')).not.toMatch(/in this project/);
    expect(alone.notes.join(' ')).toMatch(/No matches in this conversation's own history/);
  });
});

describe('errors are results, not exceptions', () => {
  test.each([
    [{ limit: 'ten' }, 'invalid_arguments'],
    [{ project_id: 'p_x' }, 'invalid_arguments'],
    [null, null],
    ['not an object', 'invalid_arguments'],
  ])('args %j → %s', async (args, code) => {
    const { tool, pNow } = world();
    const r = await tool.execute(args, { currentSessionId: pNow.id });
    expect(r.error?.code ?? null).toBe(code);
  });

  test('an unknown caller session is caller_session_not_found', async () => {
    const { tool } = world();
    expect((await tool.execute({ query: 'x' }, { currentSessionId: 's_ghost' })).error?.code).toBe('caller_session_not_found');
  });

  test('a profile mismatch is refused', async () => {
    const db: RecallDatabase = { ...tempDb(), profile: 'work' } as RecallDatabase;
    const s = createSession(db, {});
    const tool = createSessionSearchTool({ db });
    expect((await tool.execute({}, { currentSessionId: s.id, profile: 'home' })).error?.code).toBe('profile_mismatch');
  });

  test.each([['in a project', true], ['without a project', false]])('%s, the caller finds its own compacted messages but not its live ones', async (_label, inProject) => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const s = createSession(db, inProject ? { projectId: p.id } : {});
    const [old] = appendMessages(db, s.id, [{ role: 'user', content: 'wombat compacted earlier' }, { role: 'user', content: 'wombat still live' }]).messages;
    compactMessages(db, s.id, old!.id);
    const tool = createSessionSearchTool({ db });
    const r = await tool.execute({ query: 'wombat', search_mode: 'keyword', window: 0 }, { currentSessionId: s.id });
    expect(r.results.map((x) => x.message_id)).toEqual([old!.id]);
  });

  test('compacted history of other sessions stays findable', async () => {
    const { db, tool, p, pNow } = world();
    const s = createSession(db, { projectId: p.id });
    const m = appendMessage(db, s.id, { role: 'user', content: 'quokka compacted memory' });
    compactMessages(db, s.id, m.id);
    const r = await tool.execute({ query: 'quokka', search_mode: 'keyword' }, { currentSessionId: pNow.id });
    expect(r.results.map((x) => x.message_id)).toEqual([m.id]);
  });
});
