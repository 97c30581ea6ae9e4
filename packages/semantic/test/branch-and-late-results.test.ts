/**
 * The embedding worker over the storage ports, on both backends (a SQLite profile file and a
 * throwaway PostgreSQL cluster), against a real loopback OpenAI-compatible embeddings server that
 * counts every request: a branched conversation's copied messages cost 0 embedding requests (their
 * origin's vectors are copied), and a session hidden, moved out of its project or deleted while the
 * server holds the request gets 0 ready chunks when the answer arrives.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import { startScriptedEmbeddings, type ScriptedEmbeddings } from '@recall/config/scripted-embeddings';
import { openDatabase } from '@recall/schema';
import type { Storage } from '@recall/storage-ports';
import { sqliteStorage } from '@recall/store';
import { openPostgresStorage } from '@recall/store-postgres';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { parseSemanticConfig, SemanticIndex } from '../src/index.js';
import { sqliteSemanticStorage } from '../src/sqlite/index.js';

let cluster: ThrowawayPostgres | undefined;
let server: ScriptedEmbeddings | null = null;
const dir = mkdtempSync(join(tmpdir(), 'recall-late-results-'));
const toClose: Array<{ close(): Promise<void> }> = [];
beforeAll(async () => {
  cluster = await startThrowawayPostgres();
}, 120_000);
afterEach(async () => {
  for (const c of toClose.splice(0).reverse()) await c.close();
  await server?.close();
  server = null;
});
afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
const BACKENDS: Record<'sqlite' | 'postgres', () => Promise<Storage>> = {
  sqlite: async () => {
    const db = openDatabase(join(dir, `db${++n}.db`));
    const storage: Storage = { ...sqliteStorage(db, { ownsDatabase: true }), semantic: sqliteSemanticStorage(db) };
    toClose.push(storage);
    return storage;
  },
  postgres: async () => {
    if (!cluster) throw new Error('the PostgreSQL cluster did not start (see the beforeAll error)');
    const storage = await openPostgresStorage({ kind: 'postgres', url: cluster.createDatabase('recall') });
    toClose.push(storage);
    return storage;
  },
};

async function indexOn(storage: Storage, endpoint: string): Promise<SemanticIndex> {
  const config = parseSemanticConfig({ enabled: true, provider: 'openai-compatible', endpoint, model: 'scripted', dims: 8, batchSize: 16, maxRetries: 0, timeoutMs: 30_000, budgets: { chunksPerBatch: 16, leaseMs: 60_000 } });
  const index = await SemanticIndex.open({ storage: { projects: storage.projects, semantic: storage.semantic! }, config, pollMs: 60_000 });
  toClose.push(index);
  return index;
}

describe.each(['sqlite', 'postgres'] as const)('the embedding worker on %s', (backend) => {
  test('a branch costs no embedding request: its copies get their origin\'s vectors', async () => {
    server = await startScriptedEmbeddings({ dims: 8 });
    const storage = await BACKENDS[backend]();
    const on = await storage.projects.create({ name: 'On' });
    const s = await storage.sessions.create({ projectId: on.id });
    await storage.messages.append(s.id, ['how do I retry', 'with a backoff', 'and jitter'].map((content, i) => ({ role: i % 2 ? ('assistant' as const) : ('user' as const), content })));
    const index = await indexOn(storage, server.url);
    await index.enable(on.id);
    expect(await index.run({ projectId: on.id })).toMatchObject({ completed: true, written: 3 });
    const before = server.requests.length;
    expect(before).toBeGreaterThan(0);
    const branch = await storage.sessions.branch(s.id);
    await storage.messages.append(branch.id, [{ role: 'user', content: 'a new question in the branch' }]);
    expect(await index.run({ projectId: on.id })).toMatchObject({ completed: true, written: 1 });
    // One request, for the new message only; the three copies were not sent.
    expect(server.requests.slice(before).flatMap((r) => r.inputs)).toEqual(['a new question in the branch']);
    expect(server.embedded.get('how do I retry')).toBe(1);
    expect(await index.status(on.id)).toMatchObject({ status: 'ready', eligible: 7, ready: 7, pending: 0 });
  }, 60_000);

  test.each(['hidden', 'moved out of its project', 'deleted'] as const)('a session %s while the server holds the request gets no ready chunk', async (change) => {
    // Every answer is held for half a second (SQLite plans one session per step: two requests there, one on PostgreSQL).
    server = await startScriptedEmbeddings({ dims: 8, delayMs: 500 });
    const storage = await BACKENDS[backend]();
    const on = await storage.projects.create({ name: 'On' });
    const changed = await storage.sessions.create({ projectId: on.id });
    const kept = await storage.sessions.create({ projectId: on.id });
    await storage.messages.append(changed.id, [{ role: 'user', content: 'text of the changed session' }]);
    await storage.messages.append(kept.id, [{ role: 'user', content: 'text of the kept session' }]);
    const index = await indexOn(storage, server.url);
    await index.enable(on.id);
    const running = index.run({ projectId: on.id });
    const sent = () => server!.requests.flatMap((r) => r.inputs);
    for (let i = 0; i < 400 && !sent().includes('text of the changed session'); i++) await new Promise((r) => setTimeout(r, 25));
    expect(sent()).toContain('text of the changed session');
    if (change === 'hidden') await storage.sessions.update(changed.id, { hidden: true });
    else if (change === 'moved out of its project') await storage.sessions.move(changed.id, null);
    else await storage.purges!.deleteConversation(changed.id);
    expect(await running).toMatchObject({ completed: true, written: 1 });
    expect(sent().sort()).toEqual(['text of the changed session', 'text of the kept session']);
    // 0 ready chunks for the changed session, wherever it is now (one fingerprint: id 1); the kept one's landed.
    const { chunks } = storage.semantic!;
    expect(await chunks.counts(1, on.id)).toMatchObject({ ready: 1 });
    expect(await chunks.search({ kind: 'own', sessionIds: [changed.id], currentSessionId: 'nobody' }, 1, new Float32Array(8).fill(1 / Math.sqrt(8)), { limit: 5 })).toEqual([]);
    if (change === 'hidden') {
      // Shown again, it is embedded then (one more request).
      await storage.sessions.update(changed.id, { hidden: false });
      expect(await index.run({ projectId: on.id })).toMatchObject({ completed: true, written: 1 });
      expect(sent().filter((t) => t === 'text of the changed session')).toHaveLength(2);
    }
  }, 60_000);
});
