/**
 * The tool's batched reads change no answer. On a small fixture (two projects, a compressed chain,
 * a hidden delegation, a branch, a project-less chain, shared words), a table of calls of every
 * shape runs (1) on each adapter through its batch reads and through a stand-in whose batch reads
 * are the per-id reads in a loop (the reads the tool made before) — every result JSON-equal — and
 * (2) for the shapes whose order does not depend on the keyword engine (browse, read, scroll, and
 * discover over a fixed semantic source), the SQLite and PostgreSQL answers are JSON-equal too
 * (but for the session dates of continuations, which are the wall clock of their creation).
 */
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import type { Message } from '@recall/rpc-contract';
import type { MessageStore, SessionStore, Storage } from '@recall/storage-ports';
import { openSqliteStorage } from '@recall/store';
import { openPostgresStorage } from '@recall/store-postgres';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSessionSearchTool, type SemanticSource } from '../src/index.js';

const T0 = Date.UTC(2026, 2, 1);
const MIN = 60_000;

async function seed(s: Storage): Promise<number[]> {
  await s.projects.create({ id: 'p_a', name: 'A' });
  await s.projects.create({ id: 'p_b', name: 'B' });
  let t = T0;
  const say = (role: 'user' | 'assistant', content: string) => ({ role, content, createdAt: (t += MIN) });
  await s.sessions.create({ id: 's_a1', projectId: 'p_a', title: 'Retry policy', startedAt: T0, messages: [say('user', 'retry with backoff please'), say('assistant', 'backoff with jitter, 数据库 超时')] });
  await s.sessions.continueCompressed('s_a1', { id: 's_a2' });
  await s.messages.append('s_a2', [say('user', 'and the 数据库 timeout?'), say('assistant', 'raise busy_timeout to 5s')]);
  await s.sessions.delegate('s_a2', { id: 's_ad' });
  await s.messages.append('s_ad', [say('assistant', 'delegated backoff research')]);
  await s.sessions.branch('s_a1', { id: 's_ab' });
  await s.messages.append('s_ab', [say('user', 'branch: deploy with backoff')]);
  await s.sessions.create({ id: 's_a3', projectId: 'p_a', title: 'Deploy', startedAt: T0 + 100 * MIN, messages: [say('user', 'deploy jitter notes'), say('assistant', 'deploy done')] });
  await s.sessions.create({ id: 's_b1', projectId: 'p_b', title: 'Retry secrets', startedAt: T0, messages: [say('user', 'secret retry backoff 数据库')] });
  await s.sessions.create({ id: 's_n1', projectId: null, startedAt: T0, messages: [say('user', 'own backoff notes')] });
  await s.sessions.continueCompressed('s_n1', { id: 's_n2' });
  await s.messages.append('s_n2', [say('user', 'more backoff')]);
  await s.sessions.create({ id: 's_caller', projectId: 'p_a', startedAt: T0 + 200 * MIN, messages: [say('user', 'what about backoff?')] });
  const ids: number[] = [];
  for (const id of ['s_a1', 's_a2', 's_ad', 's_ab', 's_a3', 's_b1', 's_n1', 's_n2', 's_caller']) ids.push(...(await s.messages.list(id, { includeHidden: true })).map((m) => m.id));
  return ids;
}

/** Every message of the fixture, in a fixed order and scores, whatever the scope (the tool must gate it). */
function fixedSource(storage: Storage, ids: readonly number[]): SemanticSource {
  return {
    status: () => ({ status: 'ready', coverage: { indexed: 1, total: 1 } }),
    search: async () => {
      const found = await Promise.all([...ids].reverse().map((id) => storage.messages.find(id)));
      return found.filter((m): m is Message => m !== undefined).map((m, i) => ({ messageId: m.id, sessionId: m.sessionId, score: 0.95 - i * 0.01 }));
    },
  };
}

/** The storage with its batch reads done as the per-id reads in a loop (what the tool read before), inside read scopes too. */
function perIdReads(storage: Storage): Storage {
  const loop = async <K, V>(ids: readonly K[], read: (id: K) => Promise<V | undefined>) => {
    const out = new Map<K, V>();
    for (const id of ids) {
      const v = await read(id);
      if (v !== undefined) out.set(id, v);
    }
    return out;
  };
  const sessions: SessionStore = {
    ...storage.sessions,
    findRecords: (ids) => loop(ids, (id) => storage.sessions.findRecord(id)),
    conversationRoots: (ids) => loop(ids, (id) => storage.sessions.conversationRoot(id).catch(() => undefined)),
    segmentsOf: (ids) => loop(ids, async (id) => ((await storage.sessions.segments(id)).length > 0 ? storage.sessions.segments(id) : undefined)),
  };
  const messages: MessageStore = {
    ...storage.messages,
    findMany: (ids) => loop(ids, (id) => storage.messages.find(id)),
    windows: async (requests) => {
      const out = [];
      for (const r of requests) out.push(await storage.messages.window(r.sessionId, r.anchorId, r.before, r.after));
      return out;
    },
  };
  return {
    ...storage,
    sessions,
    messages,
    withReadScope: (scope, fn) => (storage.withReadScope ? storage.withReadScope(scope, (scoped) => fn(perIdReads(scoped))) : fn(perIdReads(storage))),
    close: () => storage.close(),
  };
}

/** [name, args, caller, engine-independent] */
const CALLS: Array<[string, Record<string, unknown>, string, boolean]> = [
  ['discover keyword', { query: 'backoff', search_mode: 'keyword' }, 's_caller', false],
  ['discover keyword CJK', { query: '数据库', search_mode: 'keyword', window: 2 }, 's_caller', false],
  ['discover keyword title', { query: 'deploy', search_mode: 'keyword' }, 's_caller', false],
  ['discover semantic', { query: 'anything', search_mode: 'semantic', window: 1 }, 's_caller', true],
  ['discover semantic, user only, oldest', { query: 'anything', search_mode: 'semantic', role_filter: ['user'], sort: 'oldest' }, 's_caller', true],
  ['discover semantic, own history', { query: 'anything', search_mode: 'semantic' }, 's_n2', true],
  ['browse newest', {}, 's_caller', true],
  ['browse oldest, assistant only', { sort: 'oldest', role_filter: ['assistant'] }, 's_caller', true],
  ['browse own history', {}, 's_n2', true],
  ['read conversation', { session_id: 's_a2', conversation: true }, 's_caller', true],
  ['read other project', { session_id: 's_b1' }, 's_caller', true],
  ['scroll', { around_message_id: 3, window: 3 }, 's_caller', true],
];

const dir = mkdtempSync(join(tmpdir(), 'recall-tool-batch-'));
let cluster: ThrowawayPostgres | undefined;
const ADAPTERS: Array<[name: string, open: () => Promise<Storage>]> = [
  ['sqlite', () => openSqliteStorage({ kind: 'sqlite', path: join(dir, 'batch.db') })],
  ['postgres', async () => openPostgresStorage({ kind: 'postgres', url: (cluster ??= await startThrowawayPostgres()).createDatabase('batch') })],
];
const answers = new Map<string, Map<string, string>>();

afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(ADAPTERS)('batched reads answer as the per-id reads: %s', (name, open) => {
  let storage: Storage;
  let ids: number[];
  beforeAll(async () => {
    storage = await open();
    ids = await seed(storage);
  }, 60_000);
  afterAll(async () => {
    await storage?.close();
  });

  test('every call of the table gives the same result through the batch reads and the per-id reads', { timeout: 60_000 }, async () => {
    const batched = createSessionSearchTool({ storage, semantic: fixedSource(storage, ids) });
    const perId = createSessionSearchTool({ storage: perIdReads(storage), semantic: fixedSource(storage, ids) });
    const mine = new Map<string, string>();
    let nonEmpty = 0;
    for (const [call, args, caller, independent] of CALLS) {
      const a = await batched.execute(args, { currentSessionId: caller });
      const b = await perId.execute(args, { currentSessionId: caller });
      expect(a, call).toEqual(b);
      if (a.results.length > 0) nonEmpty++;
      if (independent) mine.set(call, JSON.stringify(a));
    }
    // The table must exercise the reads: most calls return something.
    expect(nonEmpty).toBeGreaterThanOrEqual(CALLS.length - 2);
    answers.set(name, mine);
  });
});

test('the engine-independent calls answer the same on SQLite and PostgreSQL', () => {
  const sqlite = answers.get('sqlite');
  const postgres = answers.get('postgres');
  expect(sqlite && postgres, 'both adapters ran').toBeTruthy();
  // Continuations and branches start at the wall clock of their creation: their session_date differs between the two fixtures.
  const parse = (json: string) => JSON.parse(json, (key, value) => (key === 'session_date' ? undefined : value));
  for (const [call, json] of sqlite!) expect(parse(postgres!.get(call)!), call).toEqual(parse(json));
});
