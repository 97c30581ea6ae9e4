/**
 * Searches in worker threads (src/search-pool.ts) and bounded batches (src/jsonrpc.ts), on real
 * gateways over real SQLite files. A scripted tool (test/fixtures/scripted-search-tool.mjs, built in
 * each worker by the pool's factory hook) makes a search deliberately slow, crash or fail, so the
 * tests can show that a slow search does not hold up other calls, that searches run in parallel,
 * and that a crash costs one call. The real tool through the pool must answer exactly as the
 * in-process tool does, and see a write acknowledged just before the search.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { defineMethod, handleRpcText, MethodRegistry } from '../src/index.js';
import { openSearchTool } from '../src/search-worker-tool.js';
import { MAX_BATCH_COST, MAX_BATCH_RESPONSE_BYTES, SEARCH_COST } from '../src/jsonrpc.js';
import { startSearchPool, type SearchPool } from '../src/search-pool.js';
import { cleanup, postRpc, rpc, startTestGateway, tempHome, wsConnect } from './helpers.js';
import { MAX_WS_IN_FLIGHT } from '../src/server.js';
import { importJsonlText } from '@recall/importers';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openProfileDatabase } from '../src/profiles.js';

/** The importers' fixture files (recall-jsonl), read by path: test data, not an import. */
const FIXTURES = fileURLToPath(new URL('../../importers/test/fixtures', import.meta.url));
function assertCliBuilt(): void {
  const worker = fileURLToPath(new URL('../dist/search-worker.js', import.meta.url));
  if (!existsSync(worker)) throw new Error(`${worker} is missing: build @recall/gateway-rpc first (turbo's test task depends on build).`);
}

const SCRIPTED = fileURLToPath(new URL('./fixtures/scripted-search-tool.mjs', import.meta.url));
const pools: SearchPool[] = [];
afterEach(async () => {
  await cleanup();
  for (const p of pools.splice(0)) await p.close();
});

async function scriptedGateway(workers = 2) {
  assertCliBuilt(); // the pool loads dist/search-worker.js
  const home = tempHome();
  const pool = await startSearchPool({ dbPath: join(home, 'unused.db'), profile: 'default', workers, factoryModule: SCRIPTED, logger: { info() {}, warn() {}, error() {} } });
  pools.push(pool);
  const gw = await startTestGateway({ home, searchTool: pool });
  const session = (await gw.call('session.create', {})) as { id: string };
  return { gw, session: session.id };
}

describe('searches in worker threads', () => {
  test('a slow search does not hold up other calls: a cheap call sent after it is answered first', async () => {
    const { gw, session } = await scriptedGateway();
    const order: string[] = [];
    const slow = postRpc(gw, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'search.session_search', params: { sessionId: session, query: 'busy 1500' } })).then(() => order.push('search'));
    await new Promise((r) => setTimeout(r, 100));
    await rpc(gw, 'projects.list').then(() => order.push('projects.list'));
    await slow;
    expect(order).toEqual(['projects.list', 'search']);
  });

  test('two searches run at the same time on two threads', async () => {
    const { gw, session } = await scriptedGateway(2);
    const [a, b] = await Promise.all([
      rpc(gw, 'search.session_search', { sessionId: session, query: 'busy 600' }),
      rpc(gw, 'search.session_search', { sessionId: session, query: 'busy 600' }),
    ]);
    expect(a.threadId).not.toBe(b.threadId);
    // Overlapping intervals: each started before the other ended.
    expect(a.startedAt < b.endedAt && b.startedAt < a.endedAt).toBe(true);
    // The trusted context crossed the thread boundary intact.
    expect(a.context).toEqual({ profile: 'default', currentSessionId: session });
  });

  test("one project's searches go to one worker, another project's to the other; a busy worker's job is taken by an idle one", async () => {
    assertCliBuilt();
    const pool = await startSearchPool({ dbPath: join(tempHome(), 'unused.db'), profile: 'default', workers: 2, factoryModule: SCRIPTED, logger: { info() {}, warn() {}, error() {} } });
    pools.push(pool);
    type Answer = { threadId: number; startedAt: number; endedAt: number };
    const search = (session: string, project: string, query = 'busy 0') => pool.execute({ query, project }, { profile: 'default', currentSessionId: session }) as Promise<Answer>;
    const sessions: [string, string][] = [['a1', 'P'], ['b1', 'Q'], ['a2', 'P'], ['b2', 'Q'], ['a3', 'P']];
    for (const [session, project] of sessions) await search(session, project); // each answer names its project
    const thread = new Map<string, Set<number>>();
    for (let round = 0; round < 3; round++)
      for (const [session, project] of sessions) {
        const answer = await search(session, project);
        thread.set(project, (thread.get(project) ?? new Set()).add(answer.threadId));
      }
    expect(thread.get('P')!.size).toBe(1);
    expect(thread.get('Q')!.size).toBe(1);
    expect([...thread.get('P')!][0]).not.toBe([...thread.get('Q')!][0]);
    // Two slow searches of P at once: the second does not wait for P's worker, the idle one takes it.
    const [x, y] = await Promise.all([search('a1', 'P', 'busy 400'), search('a2', 'P', 'busy 400')]);
    expect(x.threadId).not.toBe(y.threadId);
    expect(x.startedAt < y.endedAt && y.startedAt < x.endedAt).toBe(true);
  });

  test.each([
    ['crash', -32603, 'internal_error'],
    ['coded', -32010, 'busy'],
  ])('a search that fails (%s) fails only its own call, with its code; the next search works', async (query, rpcCode, code) => {
    const { gw, session } = await scriptedGateway(1);
    const failed = await postRpc(gw, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'search.session_search', params: { sessionId: session, query } }));
    expect(failed.json).toMatchObject({ error: { code: rpcCode, data: { code } } });
    const ok = await rpc(gw, 'search.session_search', { sessionId: session, query: 'busy 0' });
    expect(ok.profile).toBe('default');
  });
});

describe('the real tool through the pool', () => {
  test('answers exactly as the in-process tool, and sees a write acknowledged just before', async () => {
    const home = tempHome();
    const seed = openProfileDatabase(home, 'default');
    await importJsonlText(seed, readFileSync(join(FIXTURES, 'small.jsonl'), 'utf8'));
    seed.close();
    const pooled = await startTestGateway({ home, searchTool: undefined, searchWorkers: 2 });
    const queries = ['linker', 'LNK2019 zlib', 'deploy', '构建'];
    const viaPool = [];
    for (const query of queries) viaPool.push(await rpc(pooled, 'search.session_search', { sessionId: 's-alpha-1', query, search_mode: 'keyword' }));
    // Read-your-writes across connections: append on the main connection, then search from a worker.
    await rpc(pooled, 'session.append', { sessionId: 's-alpha-1', role: 'user', content: 'zebracorn rotation policy' });
    const fresh = await rpc(pooled, 'search.session_search', { sessionId: 's-alpha-1', query: 'zebracorn', search_mode: 'keyword' });
    await pooled.close();
    expect(JSON.stringify(fresh)).toContain('zebracorn');

    const inProcess = await startTestGateway({ home, searchTool: undefined, searchWorkers: 0 });
    const direct = [];
    for (const query of queries) direct.push(await rpc(inProcess, 'search.session_search', { sessionId: 's-alpha-1', query, search_mode: 'keyword' }));
    expect(viaPool).toEqual(direct);
    expect(JSON.stringify(direct)).toContain('LNK2019');
  });
});

describe('in-flight requests per WebSocket', () => {
  test(`at most MAX_WS_IN_FLIGHT (${MAX_WS_IN_FLIGHT}) of one socket run at once: a frame behind them waits until one finishes`, async () => {
    const { gw, session } = await scriptedGateway(2);
    const client = await wsConnect(gw.wsUrl, { headers: { authorization: `Bearer ${gw.token}` } });
    try {
      const searches = Array.from({ length: MAX_WS_IN_FLIGHT + 2 }, () => client.call<{ endedAt: number }>('search.session_search', { sessionId: session, query: 'busy 300' }));
      const created = client.call('projects.create', { name: 'behind the searches' }).then((r) => ({ ...r, at: Date.now() }));
      const [answers, behind] = await Promise.all([Promise.all(searches), created]);
      expect(answers.every((a) => typeof a.result?.endedAt === 'number')).toBe(true);
      expect(behind.error).toBeUndefined();
      // Unbounded, the cheap call would run at once, long before any 300 ms search ended.
      const firstEnded = Math.min(...answers.map((a) => a.result!.endedAt));
      expect(behind.at).toBeGreaterThanOrEqual(firstEnded);
    } finally {
      await client.close();
    }
  });
});

describe("a worker's connection", () => {
  test('is read-only: the composition a worker thread builds can search but any write is refused by SQLite', async () => {
    const home = tempHome();
    const seed = openProfileDatabase(home, 'default');
    await importJsonlText(seed, readFileSync(join(FIXTURES, 'small.jsonl'), 'utf8'));
    const dbPath = seed.path;
    seed.close();
    const opened = openSearchTool({ dbPath, profile: 'default' });
    try {
      const found = (await opened.tool.execute({ query: 'LNK2019', search_mode: 'keyword' }, { profile: 'default', currentSessionId: 's-alpha-2' })) as { results: unknown[] };
      expect(found.results.length).toBeGreaterThan(0);
      expect(opened.db.raw.readonly).toBe(true);
      expect(() => opened.db.raw.prepare("update sessions set title = 'x'").run()).toThrow(expect.objectContaining({ code: 'SQLITE_READONLY' }));
    } finally {
      await opened.close();
    }
  });
});

describe('bounded batches', () => {
  function registry() {
    const r = new MethodRegistry<{ log: string[] }>();
    r.register(
      defineMethod('search.fake', z.strictObject({ n: z.number().int().describe('n') }), (p, ctx: { log: string[] }) => {
        ctx.log.push(`search ${p.n}`);
        return p.n;
      }),
      defineMethod('big', z.strictObject({ n: z.number().int().describe('n') }), (p, ctx: { log: string[] }) => {
        ctx.log.push(`big ${p.n}`);
        return 'x'.repeat(1024 * 1024);
      }),
      defineMethod('slow', z.strictObject({ n: z.number().int().describe('n') }), (p, ctx: { log: string[] }) => {
        const until = Date.now() + 5;
        while (Date.now() < until) {
          // a synchronous handler, like a store call
        }
        ctx.log.push(`slow ${p.n}`);
        return p.n;
      }),
      defineMethod('ping', z.strictObject({}), (_p, ctx: { log: string[] }) => {
        ctx.log.push('ping');
        return 'pong';
      }),
    );
    return r;
  }
  const batchOf = (method: string, count: number) => JSON.stringify(Array.from({ length: count }, (_, i) => ({ jsonrpc: '2.0', id: i, method, params: { n: i } })));

  test('entries past the cost budget are not run and are answered batch_limit', async () => {
    const ctx = { log: [] as string[] };
    const answers = JSON.parse((await handleRpcText(registry(), batchOf('search.fake', 15), ctx))!) as { id: number; result?: number; error?: { code: number; data: { code: string; reason: string } } }[];
    const allowed = MAX_BATCH_COST / SEARCH_COST;
    expect(ctx.log).toHaveLength(allowed);
    expect(answers.map((a) => a.id)).toEqual(Array.from({ length: 15 }, (_, i) => i));
    expect(answers.slice(0, allowed).every((a) => a.result === a.id)).toBe(true);
    for (const a of answers.slice(allowed)) expect(a.error).toMatchObject({ code: -32050, data: { code: 'batch_limit', reason: 'cost' } });
  });

  test('entries after the answer reached its size cap are not run', async () => {
    const ctx = { log: [] as string[] };
    const text = (await handleRpcText(registry(), batchOf('big', 12), ctx))!;
    const answers = JSON.parse(text) as { error?: { data: { reason: string } } }[];
    const ran = Math.ceil(MAX_BATCH_RESPONSE_BYTES / (1024 * 1024 + 40));
    expect(ctx.log).toHaveLength(ran);
    expect(answers.filter((a) => a.error?.data.reason === 'size')).toHaveLength(12 - ran);
    expect(text.length).toBeLessThan(MAX_BATCH_RESPONSE_BYTES + 2 * 1024 * 1024);
  });

  test('a batch yields between entries: a request sent while it runs is answered before it ends', async () => {
    const ctx = { log: [] as string[] };
    const r = registry();
    const batch = handleRpcText(r, batchOf('slow', 40), ctx);
    await new Promise((res) => setImmediate(res));
    await handleRpcText(r, JSON.stringify({ jsonrpc: '2.0', id: 'x', method: 'ping' }), ctx);
    await batch;
    const at = ctx.log.indexOf('ping');
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(ctx.log.length - 1);
  });
});
