/**
 * Reranking on a PostgreSQL team database as on a SQLite profile: one small fixture written
 * through the storage ports into a SQLite file and into a real throwaway PostgreSQL (tooling/config),
 * each indexed by its own SemanticIndex through a loopback embeddings server, then searched through
 * the CLI's compositions (search-wiring.ts: createSearchComposition on the file,
 * createStorageSearchComposition on the team database, whose reranker reads consent through
 * ChunkStore.consentRecord). Requests are counted at loopback rerank servers: none for a project not
 * switched on, for a consent given without the reranker or for another rerank endpoint (until the
 * project is switched on again); one for a consent naming it, and its order is applied; a hanging
 * reranker leaves the fused order with the deadline note. Test-only scores, never a quality figure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import { startScriptedEmbeddings, type ScriptedEmbeddings } from '@recall/config/scripted-embeddings';
import { startScriptedRerank, type ScriptedRerank } from '@recall/config/scripted-rerank';
import { openDatabase } from '@recall/schema';
import type { SessionSearchResult } from '@recall/search-tool';
import { parseSemanticConfig, SemanticIndex } from '@recall/semantic';
import { sqliteSemanticIndex } from '@recall/semantic/sqlite';
import type { Storage } from '@recall/storage-ports';
import { sqliteStorage } from '@recall/store';
import { openPostgresStorage } from '@recall/store-postgres';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSearchComposition, createStorageSearchComposition, searchOptionsForIndex } from '../src/search-wiring.js';

/** Test-only rerank score: a text holding "favourite" wins, the rest tie (so the reranker's order is visible). */
const favourite = (_query: string, text: string): number => (text.includes('favourite') ? 1 : 0);

let embeddings: ScriptedEmbeddings;
let cluster: ThrowawayPostgres;
const rerank: Record<'a' | 'b', ScriptedRerank> = {} as never;
const closers: Array<() => Promise<void> | void> = [];
beforeAll(async () => {
  embeddings = await startScriptedEmbeddings({ dims: 8 });
  rerank.a = await startScriptedRerank({ scoreFor: favourite });
  rerank.b = await startScriptedRerank({ scoreFor: favourite });
  cluster = await startThrowawayPostgres();
}, 120_000);
afterAll(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  await embeddings?.close();
  await rerank.a?.close();
  await rerank.b?.close();
  await cluster?.stop();
});

const TEXTS = ['uploader backoff with jitter', 'backoff is capped at thirty seconds', 'the uploader backoff retries forever', 'my favourite backoff setting'];

/** The fixture through the ports: project P (four conversations, a caller), project Off (one, a caller). */
async function seed(storage: Storage): Promise<{ p: string; off: string }> {
  const p = await storage.projects.create({ id: 'p_rr_on', name: 'P' });
  const off = await storage.projects.create({ id: 'p_rr_off', name: 'Off' });
  for (const [i, t] of TEXTS.entries()) {
    await storage.sessions.create({ id: `s_p${i}`, projectId: p.id, title: `t${i}` });
    await storage.messages.append(`s_p${i}`, [{ role: 'user', content: t }]);
  }
  await storage.sessions.create({ id: 's_off0', projectId: off.id, title: 'off' });
  await storage.messages.append('s_off0', [{ role: 'user', content: 'off project backoff text' }]);
  await storage.sessions.create({ id: 's_caller', projectId: p.id });
  await storage.sessions.create({ id: 's_off_caller', projectId: off.id });
  return { p: p.id, off: off.id };
}

type Server = 'a' | 'b' | null;
const config = (server: Server, timeoutMs = 5_000) =>
  parseSemanticConfig({
    enabled: true,
    provider: 'openai-compatible',
    endpoint: embeddings.url,
    model: 'e',
    dims: 8,
    maxRetries: 0,
    timeoutMs: 2_000,
    ...(server ? { rerank: { endpoint: rerank[server].url, api: 'tei', timeoutMs, topN: 10 } } : {}),
  })!;

interface Wired {
  index: SemanticIndex;
  ask(args: Record<string, unknown>, caller?: string): Promise<SessionSearchResult>;
}

/** One backend: its fixture, and a factory of index + search as the CLI wires them with reranker `server`. */
interface Backend {
  name: string;
  ids: { p: string; off: string };
  wire(server: Server, deadlineMs?: number): Promise<Wired>;
}

async function sqliteBackend(): Promise<Backend> {
  const dir = mkdtempSync(join(tmpdir(), 'recall-rerank-pg-'));
  const db = openDatabase(join(dir, 'recall.db'));
  closers.push(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const ids = await seed(sqliteStorage(db));
  return {
    name: 'sqlite',
    ids,
    async wire(server, deadlineMs) {
      const index = sqliteSemanticIndex({ db, config: config(server), pollMs: 60_000 });
      const search = createSearchComposition(db, { ...searchOptionsForIndex(index), ...(deadlineMs ? { deadlineMs } : {}) });
      closers.push(() => search.close(), () => index.close());
      return { index, ask: (args, caller = 's_caller') => search.tool.execute(args, { currentSessionId: caller }) as Promise<SessionSearchResult> };
    },
  };
}

async function postgresBackend(): Promise<Backend> {
  const storage = await openPostgresStorage({ kind: 'postgres', url: cluster.createDatabase('recall_rerank') });
  closers.push(() => storage.close());
  const ids = await seed(storage);
  return {
    name: 'postgres',
    ids,
    async wire(server, deadlineMs) {
      const index = await SemanticIndex.open({ storage: { projects: storage.projects, semantic: storage.semantic! }, config: config(server), pollMs: 60_000 });
      const search = createStorageSearchComposition(storage, { ...searchOptionsForIndex(index), ...(deadlineMs ? { deadlineMs } : {}) });
      closers.push(() => search.close(), () => index.close());
      return { index, ask: (args, caller = 's_caller') => search.tool.execute(args, { currentSessionId: caller }) as Promise<SessionSearchResult> };
    },
  };
}

let both: Promise<Backend[]> | undefined;
const backends = () => (both ??= Promise.all([sqliteBackend(), postgresBackend()]));
const backend = async (name: string) => (await backends()).find((b) => b.name === name)!;

const HYBRID = { query: 'uploader backoff', search_mode: 'hybrid', window: 0, limit: 10 };

/** One search, with the requests it sent to each rerank server. */
async function counted(wired: Wired, args: Record<string, unknown> = HYBRID, caller?: string) {
  const before = { a: rerank.a.requests.length, b: rerank.b.requests.length };
  const r = await wired.ask(args, caller);
  expect(r.error).toBeUndefined();
  expect(r.results.length).toBeGreaterThan(0);
  return { r, calls: { a: rerank.a.requests.length - before.a, b: rerank.b.requests.length - before.b } };
}

const order = (r: SessionSearchResult) => r.results.map((x) => x.session_id);

describe.each(['sqlite', 'postgres'])('reranking on %s', (name) => {
  test.each<{ case: string; consentWith: Server; searchWith: 'a' | 'b'; calls: { a: number; b: number } }>([
    { case: 'consent given without a reranker, one configured later', consentWith: null, searchWith: 'a', calls: { a: 0, b: 0 } },
    { case: 'consent naming the reranker', consentWith: 'a', searchWith: 'a', calls: { a: 1, b: 0 } },
    { case: 'rerank endpoint changed after the consent', consentWith: 'a', searchWith: 'b', calls: { a: 0, b: 0 } },
  ])('$case → requests $calls; switching on again includes the reranker', async ({ consentWith, searchWith, calls }) => {
    const b = await backend(name);
    const granting = await b.wire(consentWith);
    await granting.index.enable(b.ids.p);
    expect(await granting.index.run({ projectId: b.ids.p })).toMatchObject({ completed: true });
    const searching = await b.wire(searchWith);
    expect((await counted(searching)).calls).toEqual(calls);
    expect((await searching.index.status(b.ids.p)).consent.rerankEndpoint).toBe(consentWith ? rerank[consentWith].url : null);
    // switched on again with this reranker configured: the consent names it now and it runs
    await searching.index.enable(b.ids.p);
    expect((await counted(searching)).calls).toEqual({ a: searchWith === 'a' ? 1 : 0, b: searchWith === 'b' ? 1 : 0 });
  });

  test('switched off after a consent naming the reranker: nothing reaches it (the record keeps the reranker); switched on again, it runs', async () => {
    const b = await backend(name);
    const wired = await b.wire('a');
    await wired.index.enable(b.ids.p);
    await wired.index.run({ projectId: b.ids.p });
    expect((await counted(wired)).calls).toEqual({ a: 1, b: 0 });
    const off = await wired.index.disable(b.ids.p);
    expect(off).toMatchObject({ enabled: false, rerankEndpoint: rerank.a.url });
    expect((await wired.index.consents()).find((c) => c.projectId === b.ids.p)).toEqual(off);
    expect((await wired.index.status(b.ids.p)).consent).toMatchObject({ enabled: false, rerankEndpoint: null });
    expect((await counted(wired)).calls).toEqual({ a: 0, b: 0 });
    await wired.index.enable(b.ids.p);
    expect((await counted(wired)).calls).toEqual({ a: 1, b: 0 });
  });

  test.each([
    { case: 'a project that is not switched on', args: HYBRID, caller: 's_off_caller' },
    { case: 'keyword mode', args: { ...HYBRID, search_mode: 'keyword' }, caller: 's_caller' },
  ])('$case: nothing reaches the reranker', async ({ args, caller }) => {
    const b = await backend(name);
    const wired = await b.wire('a');
    await wired.index.enable(b.ids.p);
    await wired.index.run({ projectId: b.ids.p });
    expect((await counted(wired, args, caller)).calls).toEqual({ a: 0, b: 0 });
  });

  test('the reranked order is applied, with only the project text sent', async () => {
    const b = await backend(name);
    const wired = await b.wire('a');
    await wired.index.enable(b.ids.p);
    await wired.index.run({ projectId: b.ids.p });
    const plain = await (await b.wire(null)).ask(HYBRID);
    const before = rerank.a.requests.length;
    const { r, calls } = await counted(wired);
    expect(calls.a).toBe(1);
    // the fused top candidates, all of project P (never the other project's text)
    const sent = rerank.a.requests[before]!.texts;
    expect(sent).toHaveLength(plain.results.length);
    for (const t of sent) expect(TEXTS).toContain(t);
    expect(new Set(order(r))).toEqual(new Set(order(plain)));
    expect(order(r)).not.toEqual(order(plain));
    // the reranker's favourite moved up, the retrieval rank 1 stayed first
    expect(order(r).indexOf('s_p3')).toBeLessThan(order(plain).indexOf('s_p3'));
    expect(order(r)[0]).toBe(order(plain)[0]);
  });

  test('a hanging reranker: the fused order, with the deadline note', async () => {
    const b = await backend(name);
    const wired = await b.wire('a', 800);
    await wired.index.enable(b.ids.p);
    await wired.index.run({ projectId: b.ids.p });
    const plain = await (await b.wire(null, 800)).ask(HYBRID);
    rerank.a.script({ hang: true });
    const { r, calls } = await counted(wired);
    expect(calls.a).toBe(1);
    expect(order(r)).toEqual(order(plain));
    expect(r.notes.join(' ')).toMatch(/not reranked: the reranker did not answer before the search deadline/);
  });
});

test('both backends rerank to the same order', async () => {
  const [sqlite, postgres] = await backends();
  const answers: string[][] = [];
  for (const b of [sqlite!, postgres!]) {
    const wired = await b.wire('a');
    await wired.index.enable(b.ids.p);
    await wired.index.run({ projectId: b.ids.p });
    const { r, calls } = await counted(wired);
    expect(calls.a).toBe(1);
    expect(r.notes.join(' ')).not.toMatch(/not reranked/);
    answers.push(order(r));
  }
  expect(answers[1]).toEqual(answers[0]);
  expect(answers[0]!.indexOf('s_p3')).toBeLessThan(order(await (await sqlite!.wire(null)).ask(HYBRID)).indexOf('s_p3'));
});
