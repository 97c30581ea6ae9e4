/**
 * Hybrid session_search on a PostgreSQL team database against the same search on a SQLite profile:
 * one small fixture written through the storage ports into both (same session ids), each indexed by
 * its own SemanticIndex through a real loopback OpenAI-compatible embeddings server (test-only
 * concept vectors: synonyms share a bucket, so a paraphrase is found by meaning), then the gateway's
 * own compositions (search-wiring.ts: the matrix-cache source on SQLite, the ChunkStore source on
 * PostgreSQL) answer the same questions. Each answer must name the same conversations in the same
 * order with the same modes and statuses, and never one of the other project.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import { startScriptedEmbeddings, type ScriptedEmbeddings } from '@recall/config/scripted-embeddings';
import { openDatabase } from '@recall/schema';
import type { SessionSearchResult } from '@recall/search-tool';
import { parseSemanticConfig, SemanticIndex } from '@recall/semantic';
import { sqliteSemanticIndex } from '@recall/semantic/sqlite';
import type { Storage } from '@recall/storage-ports';
import { sqliteStorage } from '@recall/store';
import { openPostgresStorage } from '@recall/store-postgres';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSearchComposition, createStorageSearchComposition, searchOptionsForIndex } from '../src/search-wiring.js';

const DIMS = 16;
const CONCEPTS: Record<string, string> = { automobile: 'car', car: 'car', vehicle: 'car', sedan: 'car', broke: 'broken', broken: 'broken', failed: 'broken', crashed: 'broken', bread: 'bake', loaf: 'bake', sourdough: 'bake' };
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
let cluster: ThrowawayPostgres;
const closers: Array<() => Promise<void> | void> = [];
beforeAll(async () => {
  server = await startScriptedEmbeddings({ dims: DIMS, vectorFor: conceptVector });
  cluster = await startThrowawayPostgres();
}, 120_000);
afterAll(async () => {
  for (const c of closers.reverse()) await c();
  await server?.close();
  await cluster?.stop();
});

const config = () => parseSemanticConfig({ enabled: true, provider: 'openai-compatible', endpoint: server.url, model: 'concepts', dims: DIMS, maxRetries: 0, timeoutMs: 5_000 })!;

/** The fixture, through the ports: projects P and Q, four conversations, a caller in P. */
async function seed(storage: Storage): Promise<{ p: string; q: string }> {
  const p = await storage.projects.create({ id: 'p_parity1', name: 'P' });
  const q = await storage.projects.create({ id: 'p_parity2', name: 'Q' });
  const add = async (id: string, projectId: string, title: string, messages: Array<[string, string]>) => {
    await storage.sessions.create({ id, projectId, title });
    await storage.messages.append(id, messages.map(([role, content]) => ({ role: role as 'user' | 'assistant', content })));
  };
  await add('s_garage', p.id, 'garage', [
    ['user', 'my automobile broke down on the highway'],
    ['assistant', 'the car needs a tow truck'],
  ]);
  await add('s_kitchen', p.id, 'kitchen', [
    ['user', 'baking bread with sourdough'],
    ['assistant', 'let the loaf rest overnight'],
  ]);
  await add('s_notes', p.id, 'notes', [
    ['user', 'the vehicle inspection is due in march'],
    ['assistant', 'book the inspection early'],
  ]);
  await add('s_elsewhere', q.id, 'elsewhere', [['user', 'the sedan crashed into a fence']]);
  await storage.sessions.create({ id: 's_caller', projectId: p.id });
  return { p: p.id, q: q.id };
}

type Backend = { ask(args: Record<string, unknown>): Promise<SessionSearchResult> };

async function sqliteBackend(): Promise<Backend> {
  const dir = mkdtempSync(join(tmpdir(), 'recall-hybrid-parity-'));
  const db = openDatabase(join(dir, 'recall.db'));
  closers.push(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const { p, q } = await seed(sqliteStorage(db));
  const index = sqliteSemanticIndex({ db, config: config(), pollMs: 60_000 });
  const search = createSearchComposition(db, searchOptionsForIndex(index));
  closers.push(() => search.close(), () => index.close());
  await index.enable(p);
  await index.enable(q);
  expect(await index.run()).toMatchObject({ completed: true });
  return { ask: (args) => search.tool.execute(args, { currentSessionId: 's_caller' }) as Promise<SessionSearchResult> };
}

async function postgresBackend(): Promise<Backend> {
  const storage = await openPostgresStorage({ kind: 'postgres', url: cluster.createDatabase('recall') });
  closers.push(() => storage.close());
  const { p, q } = await seed(storage);
  const index = await SemanticIndex.open({ storage: { projects: storage.projects, semantic: storage.semantic! }, config: config(), pollMs: 60_000 });
  const search = createStorageSearchComposition(storage, searchOptionsForIndex(index));
  closers.push(() => search.close(), () => index.close());
  await index.enable(p);
  await index.enable(q);
  expect(await index.run()).toMatchObject({ completed: true });
  expect(await index.status(p)).toMatchObject({ status: 'ready', eligible: 6, ready: 6 });
  return { ask: (args) => search.tool.execute(args, { currentSessionId: 's_caller' }) as Promise<SessionSearchResult> };
}

/** What must agree: modes, status, coverage, and per result the conversation and how it matched. */
const shape = (r: SessionSearchResult) => ({
  requested: r.requested_mode,
  used: r.used_mode,
  status: r.semantic_status,
  coverage: r.semantic_coverage,
  results: r.results.map((x) => ({ session: x.session_id, source: x.match_source })),
});

describe('hybrid search: PostgreSQL answers as SQLite does', () => {
  test.each<[string, { query: string; search_mode?: string; window: number; limit?: number }]>([
    ['hybrid, meaning and keyword', { query: 'car broken', window: 0, limit: 5 }],
    ['semantic only (a paraphrase)', { query: 'vehicle failed', search_mode: 'semantic', window: 0 }],
    ['hybrid, a keyword hit', { query: 'tow truck', window: 0 }],
    ['semantic, another concept', { query: 'loaf of bread', search_mode: 'semantic', window: 0, limit: 2 }],
    ['keyword mode', { query: 'inspection', search_mode: 'keyword', window: 0 }],
  ])('%s', async (_label, args) => {
    const [sqlite, postgres] = await backends();
    const a = await sqlite.ask(args);
    const b = await postgres.ask(args);
    expect(a.results.length).toBeGreaterThan(0);
    expect(shape(b)).toEqual(shape(a));
    // the meaning half really ran on PostgreSQL (pgvector's scan of the allowed set)
    if (args.search_mode !== 'keyword') {
      expect(b).toMatchObject({ used_mode: args.search_mode ?? 'hybrid', semantic_status: 'ready' });
      expect(b.results.some((r) => r.match_source === 'semantic' || r.match_source === 'both')).toBe(true);
    }
    for (const r of [...a.results, ...b.results]) expect(r.session_id).not.toBe('s_elsewhere');
  });
});

let both: Promise<[Backend, Backend]> | undefined;
function backends(): Promise<[Backend, Backend]> {
  both ??= Promise.all([sqliteBackend(), postgresBackend()]);
  return both;
}
