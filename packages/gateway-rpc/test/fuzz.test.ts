/**
 * Fuzzing the wire: a bounded number of random JSON-RPC payloads (random JSON, random envelopes,
 * real method names with random params built from real field names and real ids, random bytes),
 * sent over HTTP and WebSocket to a real gateway with a seeded database. Properties: every reply
 * is a well-formed JSON-RPC response (or a 204 for notifications), no call ever ends in an
 * internal error, the server keeps answering, and the database passes integrity and foreign-key
 * checks afterwards.
 */
import fc from 'fast-check';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cleanup, postRpc, rpc, startTestGateway, wsConnect, type TestGateway, type WsClient } from './helpers.js';

const RUNS = 300;

let gw: TestGateway;
let ws: WsClient;
const ids = { projects: [] as string[], sessions: [] as string[], messages: [] as number[] };

beforeAll(async () => {
  // The real session_search tool, so random search calls reach the store's keyword search too.
  gw = await startTestGateway({ searchTool: undefined });
  const p = await rpc(gw, 'projects.create', { name: 'Fuzz P', folders: ['/fuzz/p'] });
  const q = await rpc(gw, 'projects.create', { name: 'Fuzz Q' });
  ids.projects.push(p.id, q.id);
  for (const projectId of [p.id, q.id, null]) {
    const s = await rpc(gw, 'session.create', { projectId, cwd: '/fuzz', messages: [{ role: 'user', content: 'alpha' }, { role: 'assistant', content: '测试 beta' }] });
    ids.sessions.push(s.id);
    for (const m of (await rpc(gw, 'session.messages', { sessionId: s.id })).messages) ids.messages.push(m.id);
  }
  ws = await wsConnect(gw.wsUrl, { headers: { authorization: `Bearer ${gw.token}` } });
});

afterAll(async () => {
  await ws?.close();
  await cleanup();
});

const FIELD_NAMES = [
  'projectId', 'sessionId', 'messageId', 'toMessageId', 'upToMessageId', 'fromMessageId', 'afterId', 'name', 'description', 'color', 'icon',
  'folders', 'path', 'primary', 'archived', 'includeArchived', 'includeHidden', 'title', 'cwd', 'gitRepoRoot', 'gitBranch', 'source', 'model',
  'messages', 'role', 'content', 'toolName', 'toolCalls', 'toolCallId', 'externalId', 'createdAt', 'note', 'limit', 'offset', 'query',
  'search_mode', 'sort', 'role_filter', 'session_id', 'around_message_id', 'window', '__proto__', 'constructor',
];

function arbitraries(methods: string[]) {
  const idLike = fc.oneof(
    fc.constantFrom(...ids.projects, ...ids.sessions, 'p_missing', 's_missing', '', '../x', '%', '"'),
    fc.constantFrom(...ids.messages, 0, -1, 2 ** 53, 1.5),
  );
  const value = fc.oneof(
    { weight: 3, arbitrary: idLike },
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.constantFrom('user', 'assistant', 'system', 'tool', 'robot', 'keyword', 'semantic', 'newest', '/fuzz/p', '/tmp/new') },
    { weight: 1, arbitrary: fc.array(fc.record({ role: fc.constantFrom('user', 'assistant', 'x'), content: fc.string({ maxLength: 20 }) }), { maxLength: 3 }) },
  );
  const params = fc.oneof(
    { weight: 6, arbitrary: fc.dictionary(fc.constantFrom(...FIELD_NAMES), value, { maxKeys: 5 }) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
  const request = fc.record(
    {
      jsonrpc: fc.oneof({ weight: 8, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
      id: fc.oneof({ weight: 6, arbitrary: fc.integer() }, { weight: 2, arbitrary: fc.string({ maxLength: 8 }) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
      method: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...methods) }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) }),
      params,
    },
    { requiredKeys: [] },
  );

  // Schema-guided: a real method with a subset of its real params, values drawn by declared type,
  // so most calls get past validation and exercise handlers and the store.
  const typed: Record<string, fc.Arbitrary<unknown>> = {
    string: fc.oneof(idLike.filter((v) => typeof v === 'string'), fc.string({ unit: 'grapheme', maxLength: 30 }), fc.constantFrom('/fuzz/p', '/tmp/new', 'user', 'keyword')),
    integer: fc.oneof(fc.constantFrom(...ids.messages), fc.integer({ min: 0, max: 200 })),
    number: fc.oneof(fc.constantFrom(...ids.messages), fc.integer({ min: 0, max: 200 })),
    boolean: fc.boolean(),
    array: fc.oneof(
      fc.array(fc.constantFrom('/fuzz/x', '/fuzz/y', 'user', 'assistant'), { maxLength: 3 }),
      fc.array(fc.record({ role: fc.constantFrom('user', 'assistant', 'tool'), content: fc.string({ maxLength: 30 }) }), { maxLength: 3 }),
    ),
    null: fc.constant(null),
  };
  const guided = fc.constantFrom(...methods).chain((method) => {
    const schema = z.toJSONSchema(gw.registry.get(method)!.params, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, any> };
    const props = Object.entries(schema.properties ?? {});
    const fieldArbs = Object.fromEntries(
      props.map(([key, prop]) => {
        const types: string[] = prop.anyOf ? prop.anyOf.map((a: any) => a.type) : [prop.type];
        const enumValues: unknown[] | undefined = prop.enum ?? prop.anyOf?.find((a: any) => a.enum)?.enum;
        const options = [
          ...(enumValues ? [fc.constantFrom(...enumValues)] : []),
          ...types.map((t) => typed[t] ?? fc.jsonValue({ maxDepth: 1 })),
        ];
        return [key, fc.oneof(...options)];
      }),
    );
    return fc.record({ method: fc.constant(method), params: fc.record(fieldArbs, { requiredKeys: [] }), id: fc.nat() });
  });
  const guidedPayload = guided.map((r) => JSON.stringify({ jsonrpc: '2.0', ...r }));

  const payload = fc.oneof(
    { weight: 10, arbitrary: guidedPayload },
    { weight: 6, arbitrary: request.map((r) => JSON.stringify(r)) },
    { weight: 2, arbitrary: fc.array(request, { minLength: 0, maxLength: 5 }).map((b) => JSON.stringify(b)) },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
  );
  return fc.record({ payload, overWs: fc.boolean() });
}

/** Outcome counts by error code ("ok" for results). */
const stats: Record<string, number> = {};
function assertResponseShape(r: any): void {
  const k = 'error' in r ? String(r.error.code) : 'ok';
  stats[k] = (stats[k] ?? 0) + 1;
  expect(r.jsonrpc).toBe('2.0');
  expect('result' in r !== 'error' in r).toBe(true);
  if ('error' in r) {
    expect(Number.isInteger(r.error.code)).toBe(true);
    expect(typeof r.error.message).toBe('string');
    // Random input must be refused as input problems or domain errors, never crash a handler.
    expect(r.error.code, JSON.stringify(r.error)).not.toBe(-32603);
  }
}

describe('fuzz', () => {
  test(`${RUNS} random payloads: well-formed answers, no internal errors, no crash, DB intact`, async () => {
    const methods = gw.registry.names();
    await fc.assert(
      fc.asyncProperty(arbitraries(methods), async ({ payload, overWs }) => {
        if (overWs) {
          const isNotificationOnly = (() => {
            try {
              const v = JSON.parse(payload);
              const all = Array.isArray(v) ? v : [v];
              return all.length > 0 && all.every((x) => x && typeof x === 'object' && !Array.isArray(x) && !('id' in x) && x.jsonrpc === '2.0' && typeof x.method === 'string' && x.method.length > 0);
            } catch {
              return false;
            }
          })();
          if (isNotificationOnly) {
            ws.ws.send(payload);
            return;
          }
          const reply = (await ws.sendRaw(payload)) as any;
          for (const r of Array.isArray(reply) ? reply : [reply]) assertResponseShape(r);
          return;
        }
        const res = await postRpc(gw, payload);
        expect([200, 204]).toContain(res.status);
        if (res.status === 200) {
          const body = res.json as any;
          for (const r of Array.isArray(body) ? body : [body]) assertResponseShape(r);
        }
      }),
      { numRuns: RUNS },
    );
    // The generator must actually reach handlers, not only the validators.
    expect(stats.ok ?? 0).toBeGreaterThan(0);
    expect(Object.keys(stats).some((code) => Number(code) <= -32001 && Number(code) >= -32099)).toBe(true);
    // Still serving, and the data survived.
    expect((await rpc(gw, 'gateway.info')).profile).toBe('default');
    expect((await ws.call('gateway.info')).result).toMatchObject({ profile: 'default' });
    const raw = gw.context.db.raw;
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(raw.pragma('foreign_key_check')).toEqual([]);
    expect(gw.logs.filter((l) => l.level === 'error')).toEqual([]);
  }, 120_000);
});
