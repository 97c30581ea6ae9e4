/**
 * The stage-B seam, tested with test-only semantic sources (no model, no embedder: a scripted source
 * that returns chosen message ids, so the algorithms around it — RRF fusion, match_source, status and
 * notes, the shared deadline, the scope gate — can be checked exactly). Their output is never a
 * quality figure.
 */
import { describe, expect, test } from 'vitest';
import { appendMessages, createProject, createSession } from '@recall/store';
import { createSessionSearchTool, type SemanticHit, type SemanticSource, type SemanticStatus } from '../src/index.js';
import { tempDb } from './support/temp-db.js';

function world() {
  const db = tempDb();
  const p = createProject(db, { name: 'P' });
  const q = createProject(db, { name: 'Q' });
  const a = createSession(db, { projectId: p.id, title: 'a' });
  const [both, keywordOnly] = appendMessages(db, a.id, [
    { role: 'user', content: 'the uploader retries with exponential backoff' },
    { role: 'assistant', content: 'backoff capped at thirty seconds' },
  ]).messages;
  const b = createSession(db, { projectId: p.id, title: 'b' });
  const [semanticOnly] = appendMessages(db, b.id, [{ role: 'user', content: 'wait longer after every failed attempt' }]).messages;
  const other = createSession(db, { projectId: q.id });
  const [foreign] = appendMessages(db, other.id, [{ role: 'user', content: 'Q also talks about backoff' }]).messages;
  const caller = createSession(db, { projectId: p.id });
  return { db, p, q, caller, ids: { both: both!.id, keywordOnly: keywordOnly!.id, semanticOnly: semanticOnly!.id, foreign: foreign!.id } };
}

/** A scripted source: returns the given anchors in order (sessions looked up from the DB). */
function scripted(db: ReturnType<typeof world>['db'], messageIds: number[], status: SemanticStatus = 'ready', delayMs = 0): SemanticSource & { calls: number } {
  const source = {
    calls: 0,
    status: () => ({ status, coverage: { indexed: 3, total: 4 }, ...(status === 'unavailable' ? { reason: 'the embedding endpoint is down' } : {}) }),
    search: (_q: string, _scope: unknown, options: { signal: AbortSignal }) => {
      source.calls++;
      const hits: SemanticHit[] = messageIds.map((id, i) => ({
        messageId: id,
        sessionId: db.raw.prepare('select session_id from messages where id = ?').pluck().get(id) as string,
        score: 1 - i / 10,
      }));
      if (delayMs === 0) return Promise.resolve(hits);
      return new Promise<SemanticHit[]>((resolve, reject) => {
        const t = setTimeout(() => resolve(hits), delayMs);
        options.signal.addEventListener('abort', () => {
          clearTimeout(t);
          reject(new Error('aborted'));
        });
      });
    },
  };
  return source;
}

describe('hybrid search through the SemanticSource seam', () => {
  test('fuses keyword and semantic anchors by RRF: keyword rank 1 stays first (rank bonus), agreement next, each result says where it came from', async () => {
    const w = world();
    const tool = createSessionSearchTool({ db: w.db, semantic: scripted(w.db, [w.ids.semanticOnly, w.ids.both]) });
    const r = await tool.execute({ query: 'backoff', window: 0 }, { currentSessionId: w.caller.id });
    expect(r).toMatchObject({ requested_mode: 'hybrid', used_mode: 'hybrid', semantic_status: 'ready', semantic_coverage: { indexed: 3, total: 4 } });
    expect(r.results.map((x) => [x.message_id, x.match_source])).toEqual([
      [w.ids.keywordOnly, 'keyword'],
      [w.ids.semanticOnly, 'semantic'],
    ]);
    expect(r.results[0]!.other_message_ids).toEqual([w.ids.both]);
  });

  test('without the rank bonus (a per-model hint) agreement comes first', async () => {
    const w = world();
    const source = Object.assign(scripted(w.db, [w.ids.semanticOnly, w.ids.both]), { fusion: { keywordTopBonus: 0 } });
    const r = await createSessionSearchTool({ db: w.db, semantic: source }).execute({ query: 'backoff', window: 0 }, { currentSessionId: w.caller.id });
    expect(r.results.map((x) => [x.message_id, x.match_source])).toEqual([
      [w.ids.both, 'both'],
      [w.ids.semanticOnly, 'semantic'],
    ]);
    expect(r.results[0]!.other_message_ids).toEqual([w.ids.keywordOnly]);
  });

  test('explicit semantic uses only the semantic list', async () => {
    const w = world();
    const tool = createSessionSearchTool({ db: w.db, semantic: scripted(w.db, [w.ids.semanticOnly]) });
    const r = await tool.execute({ query: 'backoff', search_mode: 'semantic' }, { currentSessionId: w.caller.id });
    expect(r.used_mode).toBe('semantic');
    expect(r.results.map((x) => [x.message_id, x.match_source])).toEqual([[w.ids.semanticOnly, 'semantic']]);
  });

  test('keyword mode never calls the semantic source; browse/read/scroll never do either', async () => {
    const w = world();
    const source = scripted(w.db, [w.ids.semanticOnly]);
    const tool = createSessionSearchTool({ db: w.db, semantic: source });
    await tool.execute({ query: 'backoff', search_mode: 'keyword' }, { currentSessionId: w.caller.id });
    await tool.execute({}, { currentSessionId: w.caller.id });
    await tool.execute({ around_message_id: w.ids.both }, { currentSessionId: w.caller.id });
    expect(source.calls).toBe(0);
  });

  test('anchors from outside the caller scope are dropped even if a source returns them', async () => {
    const w = world();
    const tool = createSessionSearchTool({ db: w.db, semantic: scripted(w.db, [w.ids.foreign, w.ids.semanticOnly]) });
    const r = await tool.execute({ query: 'nothing matches this by keyword', search_mode: 'semantic' }, { currentSessionId: w.caller.id });
    expect(r.results.map((x) => x.message_id)).toEqual([w.ids.semanticOnly]);
  });

  test('one deadline: a slow semantic source is cut off and hybrid answers from keyword, saying why', async () => {
    const w = world();
    const tool = createSessionSearchTool({ db: w.db, semantic: scripted(w.db, [w.ids.semanticOnly], 'ready', 5_000), deadlineMs: 100 });
    const started = Date.now();
    const r = await tool.execute({ query: 'backoff' }, { currentSessionId: w.caller.id });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(r.used_mode).toBe('keyword');
    expect(r.notes.join(' ')).toMatch(/deadline/);
    expect(r.results.length).toBeGreaterThan(0);
  });

  test.each([
    ['partial', 'hybrid', /covers only part/],
    ['unavailable', 'keyword', /embedding endpoint is down/],
    ['disabled', 'keyword', /no semantic index is configured/],
  ] as const)('status %s → used_mode %s with a note', async (status, usedMode, note) => {
    const w = world();
    const tool = createSessionSearchTool({ db: w.db, semantic: scripted(w.db, [w.ids.semanticOnly], status) });
    const r = await tool.execute({ query: 'backoff' }, { currentSessionId: w.caller.id });
    expect(r.semantic_status).toBe(status);
    expect(r.used_mode).toBe(usedMode);
    expect(r.notes.join(' ')).toMatch(note);
  });

  test.each([
    ['project_not_enabled', /not switched on for this project/],
    ['turned_off', /turned off in the configuration/],
    ['consent_for_other_endpoint', /another embedding endpoint/],
    ['not_configured', /no semantic index is configured/],
  ] as const)('disabled because %s: the note says why and no coverage of an unusable index is reported', async (reason, note) => {
    const w = world();
    const source = scripted(w.db, [w.ids.semanticOnly], 'disabled');
    source.status = () => ({ status: 'disabled', coverage: { indexed: 14, total: 14 }, reason });
    const tool = createSessionSearchTool({ db: w.db, semantic: source });
    const r = await tool.execute({ query: 'backoff' }, { currentSessionId: w.caller.id });
    expect(r.semantic_status).toBe('disabled');
    expect(r.semantic_coverage).toBeNull();
    expect(r.notes.join(' ')).toMatch(note);
    expect(source.calls).toBe(0);
  });

  test.each([
    ['project_not_enabled', /not switched on for this project/],
    ['turned_off', /turned off in the configuration/],
    ['consent_for_other_endpoint', /another embedding endpoint/],
    ['not_configured', /no semantic index is configured/],
  ] as const)('search_mode semantic while disabled because %s: the error says why (not "no provider is configured")', async (reason, why) => {
    const w = world();
    const source = scripted(w.db, [w.ids.semanticOnly], 'disabled');
    source.status = () => ({ status: 'disabled', coverage: { indexed: 0, total: 0 }, reason });
    const tool = createSessionSearchTool({ db: w.db, semantic: source });
    const r = await tool.execute({ query: 'backoff', search_mode: 'semantic' }, { currentSessionId: w.caller.id });
    expect(r.error?.code).toBe('semantic_unavailable');
    expect(r.error?.message).toMatch(why);
    if (reason !== 'not_configured') expect(r.error?.message).not.toMatch(/no embedding provider/);
    expect(source.calls).toBe(0);
  });
});
