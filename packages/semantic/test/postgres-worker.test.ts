/**
 * The embedding worker on a PostgreSQL team database, with real processes: a throwaway cluster
 * (tooling/config startThrowawayPostgres), a real loopback OpenAI-compatible embeddings server that
 * counts every text it embeds, and child processes running the built package over
 * @recall/store-postgres's storage ports (test/fixtures/worker-child-pg.mjs). Two workers on one
 * database → every chunk embedded exactly once, counted at the server; a worker killed with -9
 * mid-backfill → its leases are reclaimed, the rest is embedded, nothing half-written; a project
 * never switched on receives nothing. In-process: an edit and a delete during the provider
 * call drop the late results; status and rebuild over the ports.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import { startScriptedEmbeddings, type ScriptedEmbeddings } from '@recall/config/scripted-embeddings';
import type { Storage } from '@recall/storage-ports';
import { openPostgres, openPostgresStorage, type RecallPostgres } from '@recall/store-postgres';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { parseSemanticConfig, SemanticIndex } from '../src/index.js';

const CHILD = fileURLToPath(new URL('./fixtures/worker-child-pg.mjs', import.meta.url));
const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));

let cluster: ThrowawayPostgres | undefined;
let server: ScriptedEmbeddings | null = null;
const toClose: Array<{ close(): Promise<void> }> = [];
beforeAll(async () => {
  if (!existsSync(DIST)) throw new Error(`${DIST} is missing: build first (\`pnpm --filter @recall/semantic build\`).`);
  cluster = await startThrowawayPostgres();
}, 120_000);
afterEach(async () => {
  for (const c of toClose.splice(0).reverse()) await c.close();
  await server?.close();
  server = null;
});
afterAll(async () => {
  await cluster?.stop();
});

async function fresh(): Promise<{ url: string; storage: Storage; pg: RecallPostgres }> {
  if (!cluster) throw new Error('the PostgreSQL cluster did not start (see the beforeAll error)');
  const url = cluster.createDatabase('recall');
  const storage = await openPostgresStorage({ kind: 'postgres', url });
  const pg = await openPostgres(url);
  toClose.push(storage, pg);
  return { url, storage, pg };
}

interface ChildRun {
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>;
  kill(signal: NodeJS.Signals): void;
}

function runChild(url: string, endpoint: string, batch = 4): ChildRun {
  const child = spawn(process.execPath, [CHILD, url, endpoint, String(batch)], { stdio: ['ignore', 'pipe', 'pipe'], cwd: join(CHILD, '..') });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, out, err })));
  return { done, kill: (s) => child.kill(s) };
}

async function seed(storage: Storage, endpoint: string, messages: number) {
  const on = await storage.projects.create({ name: 'On' });
  const never = await storage.projects.create({ name: 'Never' });
  const s = await storage.sessions.create({ projectId: on.id });
  const other = await storage.sessions.create({ projectId: never.id });
  await storage.messages.append(
    s.id,
    Array.from({ length: messages }, (_, i) => ({ role: i % 2 ? ('assistant' as const) : ('user' as const), content: `message number ${i} about topic ${i % 7}` })),
  );
  await storage.messages.append(other.id, [0, 1, 2, 3, 4].map((i) => ({ role: 'user' as const, content: `SECRET never-enabled text ${i}` })));
  await storage.semantic!.chunks.setConsent(on.id, endpoint, true);
  return { on, never, s, other };
}

const statusRows = async (pg: RecallPostgres) => (await pg.pool.query('select status, count(*)::int as n, count(embedding)::int as vectors from semantic_chunks group by status order by status')).rows;
const leases = async (pg: RecallPostgres) => Number((await pg.pool.query('select count(*) from semantic_chunks where lease_owner is not null')).rows[0].count);

function config(endpoint: string, batch = 4) {
  return parseSemanticConfig({ enabled: true, provider: 'openai-compatible', endpoint, model: 'scripted', dims: 8, batchSize: batch, maxRetries: 0, timeoutMs: 30_000, budgets: { chunksPerBatch: batch, leaseMs: 60_000 } });
}

describe('the embedding worker on PostgreSQL', () => {
  test('two worker processes on one database: every chunk embedded exactly once (counted at the server)', async () => {
    server = await startScriptedEmbeddings({ dims: 8, delayMs: 40 });
    const { url, storage, pg } = await fresh();
    await seed(storage, server.url, 60);
    const [a, b] = await Promise.all([runChild(url, server.url, 3).done, runChild(url, server.url, 3).done]);
    expect(a.code, a.err).toBe(0);
    expect(b.code, b.err).toBe(0);
    expect(JSON.parse(a.out)).toMatchObject({ completed: true });
    expect(await statusRows(pg)).toEqual([{ status: 'ready', n: 60, vectors: 60 }]);
    expect(server.embedded.size).toBe(60);
    expect([...server.embedded.values()].every((n) => n === 1)).toBe(true);
    const calls = [JSON.parse(a.out).providerCalls as number, JSON.parse(b.out).providerCalls as number];
    expect(calls[0]! + calls[1]!).toBe(server.requests.length);
    // both took part (the claims interleave; one worker alone would have made every call)
    expect(Math.min(...calls)).toBeGreaterThan(0);
    expect([...server.embedded.keys()].some((t) => t.includes('SECRET'))).toBe(false);
  }, 60_000);

  test('kill -9 mid-backfill: the dead lease is reclaimed, the rest is embedded, nothing half-written', async () => {
    server = await startScriptedEmbeddings({ dims: 8, delayMs: 150 });
    const { url, storage, pg } = await fresh();
    await seed(storage, server.url, 40);
    const first = runChild(url, server.url, 4);
    await server.waitForRequests(3, 20_000);
    first.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    // the killed worker held a 60 s lease on the batch in flight
    expect(await leases(pg)).toBeGreaterThan(0);
    const readyAfterKill = Number((await pg.pool.query("select count(*) from semantic_chunks where status = 'ready'")).rows[0].count);
    expect(readyAfterKill).toBeLessThan(40);
    const second = await runChild(url, server.url, 4).done;
    expect(second.code, second.err).toBe(0);
    expect(JSON.parse(second.out)).toMatchObject({ completed: true });
    expect(await statusRows(pg)).toEqual([{ status: 'ready', n: 40, vectors: 40 }]);
    expect(Number((await pg.pool.query('select count(*) from (select 1 from semantic_chunks group by fingerprint_id, message_id, chunk_index having count(*) > 1) d')).rows[0].count)).toBe(0);
    expect(await leases(pg)).toBe(0);
    expect(server.embedded.size).toBe(40);
    expect([...server.embedded.keys()].some((t) => t.includes('SECRET'))).toBe(false);
  }, 60_000);

  test('an edit and a delete during the provider call: the late results drop; status and rebuild over the ports', async () => {
    server = await startScriptedEmbeddings({ dims: 8 });
    server.push({ delayMs: 1_000 });
    const { storage, pg } = await fresh();
    const on = await storage.projects.create({ name: 'On' });
    const s = await storage.sessions.create({ projectId: on.id });
    const [edited, deleted, kept] = (await storage.messages.append(s.id, ['original wording', 'to be deleted', 'unchanged'].map((content) => ({ role: 'user' as const, content })))).messages;
    const index = await SemanticIndex.open({ storage: { projects: storage.projects, semantic: storage.semantic! }, config: config(server.url, 8), pollMs: 60_000 });
    toClose.push(index);
    expect(await index.status(on.id)).toMatchObject({ status: 'disabled', reason: 'project_not_enabled' });
    await index.enable(on.id);
    expect(await index.status(on.id)).toMatchObject({ status: 'partial', reason: 'planning', eligible: 'unknown', queuedSessions: 1 });
    const running = index.run({ projectId: on.id });
    await server.waitForRequests(1, 20_000);
    expect([...server.requests[0]!.inputs].sort()).toEqual(['original wording', 'to be deleted', 'unchanged']);
    await storage.messages.edit(edited!.id, 'new wording');
    await storage.messages.delete(deleted!.id);
    expect(await running).toMatchObject({ completed: true });
    const rows = (await pg.pool.query('select m.content, c.status from semantic_chunks c join messages m on m.id = c.message_id where c.embedding is not null order by m.id')).rows;
    expect(rows).toEqual([
      { content: 'new wording', status: 'ready' },
      { content: 'unchanged', status: 'ready' },
    ]);
    expect(server.embedded.get('new wording')).toBe(1);
    expect(await index.status(on.id)).toMatchObject({ status: 'ready', reason: 'complete', eligible: 2, ready: 2, pending: 0, queuedSessions: 0 });
    void kept;
    // the deleted message's row stays until the rebuild (PostgreSQL keeps no stale-row sweep; every read leaves it out)
    expect(await index.rebuild(on.id)).toMatchObject({ chunksDeleted: 3 });
    expect(await index.status(on.id)).toMatchObject({ status: 'partial', eligible: 'unknown', ready: 0 });
    await index.run({ projectId: on.id });
    expect(await index.status(on.id)).toMatchObject({ status: 'ready', ready: 2 });
    expect((await index.disable(on.id)).enabled).toBe(false);
    expect(await index.status(on.id)).toMatchObject({ status: 'disabled', reason: 'project_not_enabled', ready: 2 });
  }, 60_000);
});
