/**
 * session_search with the real semantic source, end to end in one process: a real SQLite file, the
 * real SemanticIndex (consent, planner, worker) embedding through a real loopback
 * OpenAI-compatible server, and the gateway's own composition (search-wiring.ts). The server's
 * vectors are test-only (synonyms share a concept bucket, so a paraphrase is findable by meaning
 * and not by keyword); they never measure model quality. Covered: match_source per result and the
 * truthful status; moving an indexed conversation is found from the new project with zero
 * document embeddings; browse/read/scroll never call the provider; the one deadline; provider
 * down; no provider; a model switch serving only the new fingerprint, flagged partial.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedEmbeddings, type ScriptedEmbeddings } from '@recall/config/scripted-embeddings';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import type { SessionSearchResult } from '@recall/search-tool';
import { parseSemanticConfig, type SemanticIndex } from '@recall/semantic';
import { sqliteSemanticIndex } from '@recall/semantic/sqlite';
import { appendMessage, createProject, createSession, setSessionProject } from '@recall/store';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createSearchComposition, openSearchComposition, searchOptionsForIndex, type SearchComposition } from '../src/search-wiring.js';

const DIMS = 16;
/** Test-only "meaning": each word maps to a concept; synonyms share one. */
const CONCEPTS: Record<string, string> = { automobile: 'car', car: 'car', vehicle: 'car', sedan: 'car', broke: 'broken', broken: 'broken', failed: 'broken', crashed: 'broken' };
function conceptVector(text: string, dims: number): number[] {
  const v: number[] = Array.from({ length: dims }, () => 0);
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const c = CONCEPTS[w] ?? w;
    let h = 0;
    for (const ch of c) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
    v[h % dims]! += 1;
  }
  if (!v.some((x) => x !== 0)) v[0] = 1;
  return v;
}

let server: ScriptedEmbeddings;
beforeAll(async () => {
  server = await startScriptedEmbeddings({ dims: DIMS, vectorFor: conceptVector });
});
afterAll(async () => {
  await server.close();
});

const open: Array<{ close(): Promise<void> | void }> = [];
const dirs: string[] = [];
afterEach(async () => {
  server.setDown(false);
  for (const o of open.splice(0).reverse()) await o.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDb(): RecallDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'recall-hybrid-'));
  dirs.push(dir);
  const db = openDatabase(join(dir, 'recall.db'));
  open.push(db);
  return db;
}

const config = (model = 'concepts') => parseSemanticConfig({ enabled: true, provider: 'openai-compatible', endpoint: server.url, model, dims: DIMS, maxRetries: 0, timeoutMs: 2_000 })!;

function wire(db: RecallDatabase, model = 'concepts', deadlineMs?: number): { index: SemanticIndex; search: SearchComposition } {
  const index = sqliteSemanticIndex({ db, config: config(model), pollMs: 60_000 });
  const search = createSearchComposition(db, { ...searchOptionsForIndex(index), ...(deadlineMs ? { deadlineMs } : {}) });
  open.push(index, search);
  return { index, search };
}

/** Texts the server embedded successfully so far (documents and queries). */
const embeddedTexts = () => server.requests.filter((r) => r.status === 200).flatMap((r) => r.inputs);

async function world(db: RecallDatabase, index: SemanticIndex) {
  const p = createProject(db, { name: 'P' });
  const q = createProject(db, { name: 'Q' });
  const a = createSession(db, { projectId: p.id, title: 'garage' });
  const paraphrase = appendMessage(db, a.id, { role: 'user', content: 'my automobile broke down on the highway' });
  const both = appendMessage(db, a.id, { role: 'assistant', content: 'the car needs a tow truck' });
  const other = createSession(db, { projectId: p.id, title: 'kitchen' });
  appendMessage(db, other.id, { role: 'user', content: 'baking bread with sourdough' });
  const elsewhere = createSession(db, { projectId: q.id, title: 'elsewhere' });
  const moved = appendMessage(db, elsewhere.id, { role: 'user', content: 'the sedan crashed into a fence' });
  await index.enable(p.id);
  await index.enable(q.id);
  await index.run();
  const caller = createSession(db, { projectId: p.id });
  return { p, q, a, caller, elsewhere, ids: { paraphrase: paraphrase.id, both: both.id, moved: moved.id } };
}

async function ask(search: SearchComposition, callerId: string, args: Record<string, unknown>): Promise<SessionSearchResult> {
  return search.tool.execute(args, { currentSessionId: callerId });
}

describe('hybrid session_search over the real index', () => {
  test('hybrid: keyword and meaning fused, match_source per result, ready with coverage', async () => {
    const db = tempDb();
    const { index, search } = wire(db);
    const w = await world(db, index);
    const r = await ask(search, w.caller.id, { query: 'car broken', window: 0, limit: 5 });
    expect(r).toMatchObject({ requested_mode: 'hybrid', used_mode: 'hybrid', semantic_status: 'ready', semantic_coverage: { indexed: 3, total: 3 } });
    const anchors = [r.results[0]!.message_id, ...(r.results[0]!.other_message_ids ?? [])];
    expect(anchors).toEqual(expect.arrayContaining([w.ids.both, w.ids.paraphrase]));
    const sem = await ask(search, w.caller.id, { query: 'vehicle failed', search_mode: 'semantic', window: 0 });
    expect(sem.used_mode).toBe('semantic');
    expect(sem.results[0]).toMatchObject({ message_id: w.ids.paraphrase, match_source: 'semantic' });
    expect(sem.results.every((x) => x.session_id !== w.elsewhere.id)).toBe(true); // Q's "sedan crashed" matches by meaning but is another project
    const kw = await ask(search, w.caller.id, { query: 'tow truck', search_mode: 'hybrid', window: 0 });
    expect(kw.results[0]).toMatchObject({ message_id: w.ids.both, match_source: 'both' });
  });

  test('moving an indexed conversation: found semantically from the new project, zero document embeddings', async () => {
    const db = tempDb();
    const { index, search } = wire(db);
    const w = await world(db, index);
    const before = embeddedTexts().length;
    setSessionProject(db, w.elsewhere.id, w.p.id);
    await index.run();
    expect(embeddedTexts().length).toBe(before); // the worker re-embedded nothing
    const r = await ask(search, w.caller.id, { query: 'vehicle crashed', search_mode: 'semantic', window: 0 });
    expect(r.results.map((x) => x.message_id)).toContain(w.ids.moved);
    expect(embeddedTexts().slice(before)).toEqual(['vehicle crashed']); // only the query
    // and the old project no longer sees it
    const fromQ = createSession(db, { projectId: w.q.id });
    const q = await ask(search, fromQ.id, { query: 'vehicle crashed', search_mode: 'semantic', window: 0 });
    expect(q.results).toEqual([]);
  });

  test('a search thread composition: read-only connection, its own provider, the same answers', async () => {
    const db = tempDb();
    const { index, search } = wire(db);
    const w = await world(db, index);
    const thread = openSearchComposition(db.path, null, { semantic: { enabled: true, provider: 'openai-compatible', endpoint: server.url, model: 'concepts', dims: DIMS, maxRetries: 0, timeoutMs: 2_000 } });
    open.push(thread);
    const args = { query: 'vehicle failed', search_mode: 'semantic', window: 0 };
    const fromThread = await ask(thread, w.caller.id, args);
    expect(fromThread.results.map((x) => x.message_id)).toEqual((await ask(search, w.caller.id, args)).results.map((x) => x.message_id));
    expect(fromThread.results[0]?.message_id).toBe(w.ids.paraphrase);
    expect(() => thread.db.raw.prepare('delete from messages').run()).toThrow(/readonly/i);
  });

  test('browse, read and scroll never call the provider', async () => {
    const db = tempDb();
    const { index, search } = wire(db);
    const w = await world(db, index);
    const before = server.requests.length;
    await ask(search, w.caller.id, {});
    await ask(search, w.caller.id, { session_id: w.a.id });
    await ask(search, w.caller.id, { around_message_id: w.ids.both });
    expect(server.requests.length).toBe(before);
  });

  test('one deadline: a slow query embedding is cut off, hybrid answers from keyword and says so', async () => {
    const db = tempDb();
    const { index, search } = wire(db, 'concepts', 400);
    const w = await world(db, index);
    server.push({ delayMs: 1_500 });
    const started = Date.now();
    const r = await ask(search, w.caller.id, { query: 'tow truck', window: 0 });
    expect(Date.now() - started).toBeLessThan(1_400);
    expect(r).toMatchObject({ used_mode: 'keyword', semantic_status: 'unavailable' });
    expect(r.notes.join(' ')).toMatch(/deadline/);
    expect(r.results[0]?.message_id).toBe(w.ids.both);
  });

  test.each([
    ['hybrid', 'keyword', /fell back to keyword/],
    ['semantic', 'none', /Semantic results are missing/],
  ] as const)('provider down: %s → used_mode %s, semantic_status unavailable, with the reason', async (mode, used, note) => {
    const db = tempDb();
    const { index, search } = wire(db);
    const w = await world(db, index);
    server.setDown(true);
    const r = await ask(search, w.caller.id, { query: 'tow truck', search_mode: mode, window: 0 });
    expect(r).toMatchObject({ used_mode: used, semantic_status: 'unavailable' });
    expect(r.notes.join(' ')).toMatch(note);
    if (mode === 'hybrid') expect(r.results.length).toBeGreaterThan(0);
  });

  test('no provider configured: hybrid is keyword-only (disabled), explicit semantic is refused', async () => {
    const db = tempDb();
    const search = createSearchComposition(db, {});
    open.push(search);
    const p = createProject(db, { name: 'P' });
    const s = createSession(db, { projectId: p.id });
    appendMessage(db, s.id, { role: 'user', content: 'tow truck' });
    const caller = createSession(db, { projectId: p.id });
    const h = await ask(search, caller.id, { query: 'tow truck' });
    expect(h).toMatchObject({ used_mode: 'keyword', semantic_status: 'disabled' });
    const sem = await ask(search, caller.id, { query: 'tow truck', search_mode: 'semantic' });
    expect(sem.error?.code).toBe('semantic_unavailable');
  });

  test('model switch: only the new fingerprint is searched, flagged partial until it covers the project', async () => {
    const db = tempDb();
    const first = wire(db, 'concepts');
    const w = await world(db, first.index);
    await first.search.close();
    await first.index.close();
    const second = wire(db, 'concepts-v2');
    const partial = await ask(second.search, w.caller.id, { query: 'vehicle failed', search_mode: 'semantic', window: 0 });
    expect(partial.semantic_status).toBe('partial');
    expect(partial.results).toEqual([]); // the old model's vectors are never compared
    await second.index.run();
    const ready = await ask(second.search, w.caller.id, { query: 'vehicle failed', search_mode: 'semantic', window: 0 });
    expect(ready.semantic_status).toBe('ready');
    expect(ready.results[0]?.message_id).toBe(w.ids.paraphrase);
  });
});
