/**
 * Hostile params for every method of the contract (issue 21, "keep it proven"): for each name in
 * @recall/rpc-contract's RPC_METHODS, fast-check builds params from that method's own params
 * schema (its JSON Schema: real field names, declared types, enums) and swaps in hostile values —
 * lone surrogates, NUL, `1e999` and `-1e999` (raw JSON text: they parse to ±Infinity), 2^53+1,
 * deep nesting (2,000–20,000 levels), `__proto__` / `constructor` keys, strings up to 600,000
 * characters (inside the 1 MiB body limit), wrong types — and sends them as raw JSON text over HTTP
 * and WebSocket to a real gateway on loopback with a seeded database. Properties: every answer is a
 * clean JSON-RPC result or a typed error (never -32603 internal_error), every method is reached,
 * nothing pollutes Object.prototype, the gateway keeps serving and the database passes integrity
 * and foreign-key checks. fuzz.test.ts covers random envelopes and batches.
 */
import fc from 'fast-check';
import { RPC_METHOD_NAMES, RPC_METHODS } from '@recall/rpc-contract';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cleanup, postRpc, rpc, startTestGateway, wsConnect, type TestGateway, type WsClient } from './helpers.js';

const RUNS = 400;

let gw: TestGateway;
let ws: WsClient;
const ids = { projects: [] as string[], sessions: [] as string[], messages: [] as number[] };

beforeAll(async () => {
  gw = await startTestGateway({ searchTool: undefined, searchWorkers: 0 });
  const p = await rpc(gw, 'projects.create', { name: 'Hostile P', folders: ['/hostile/p'] });
  ids.projects.push(p.id);
  for (const projectId of [p.id, null]) {
    const s = await rpc(gw, 'session.create', { projectId, cwd: '/hostile', messages: [{ role: 'user', content: 'alpha 测试' }, { role: 'assistant', content: 'beta' }] });
    ids.sessions.push(s.id);
    for (const m of (await rpc(gw, 'session.messages', { sessionId: s.id })).messages) ids.messages.push(m.id);
  }
  ws = await wsConnect(gw.wsUrl, { headers: { authorization: `Bearer ${gw.token}` } });
});

afterAll(async () => {
  await ws?.close();
  await cleanup();
});

/** Hostile values as raw JSON text (so `1e999` and `__proto__` reach the server as written). */
const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '"SURR\\ud800"', '"\\udc00x"', '"a\\ud800\\ud800b"', '"\\u0000"', '"NUL\\u0000in the middle"', '"\\ud83d\\ude00"',
    '1e999', '-1e999', '1e-999', '-0', '9007199254740993', '-9007199254740993', '1.5', '-1', '0',
    'true', 'false', 'null', '[]', '{}', '""', '" "', '"../../etc"', '"/"', '"~"', '"%00"', '"\\r\\n"',
    '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}', '["__proto__"]', '"__proto__"',
  ),
  fc.integer({ min: 2_000, max: 20_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc.integer({ min: 1_000, max: 5_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  fc.integer({ min: 1_000, max: 600_000 }).map((n) => JSON.stringify('x'.repeat(n))),
  fc.string({ unit: 'binary', maxLength: 30 }).map((s) => JSON.stringify(s)),
);

/** A plausible value for a declared JSON Schema type, as JSON text. */
function plausible(prop: Record<string, any>): fc.Arbitrary<string> {
  const types: string[] = prop.anyOf ? prop.anyOf.map((a: any) => a.type).filter(Boolean) : [prop.type];
  const enumValues: unknown[] | undefined = prop.enum ?? prop.anyOf?.find((a: any) => a.enum)?.enum;
  const options: fc.Arbitrary<unknown>[] = enumValues ? [fc.constantFrom(...enumValues)] : [];
  for (const type of types) {
    if (type === 'string') options.push(fc.oneof(fc.constantFrom(...ids.projects, ...ids.sessions, 'p_missing', 's_missing', '/hostile/new', 'user', 'keyword'), fc.string({ unit: 'grapheme', maxLength: 30 })));
    else if (type === 'integer' || type === 'number') options.push(fc.oneof(fc.constantFrom(...ids.messages), fc.integer({ min: 0, max: 100 })));
    else if (type === 'boolean') options.push(fc.boolean());
    else if (type === 'array') options.push(fc.array(fc.oneof(fc.constantFrom('/hostile/x', 'user'), fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.string({ maxLength: 20 }) })), { maxLength: 3 }));
    else if (type === 'null') options.push(fc.constant(null));
  }
  if (options.length === 0) options.push(fc.jsonValue({ maxDepth: 1 }));
  return fc.oneof(...options).map((v) => JSON.stringify(v) ?? 'null');
}

interface Case {
  method: string;
  body: string;
  overWs: boolean;
}

function cases(): fc.Arbitrary<Case> {
  return fc.constantFrom(...RPC_METHOD_NAMES).chain((method) => {
    const schema = z.toJSONSchema(RPC_METHODS[method].params, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, any> };
    const fields = Object.entries(schema.properties ?? {});
    // Each declared field: absent, plausible or (in a hostile case) hostile; plus, sometimes, a hostile
    // extra key. A third of the cases are clean, so calls reach the handlers and the store too.
    const field = (key: string, prop: Record<string, any>, hostile: boolean) =>
      fc
        .oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: plausible(prop) }, { weight: hostile ? 2 : 0, arbitrary: hostileText })
        .map((v) => (v === null ? null : `${JSON.stringify(key)}:${v}`));
    const fieldText = (hostile: boolean) => fields.map(([key, prop]) => field(key, prop, hostile));
    const extra = fc.option(fc.tuple(fc.constantFrom('__proto__', 'constructor', 'prototype', 'project_id', '\u0000', '\ud800'), hostileText).map(([k, v]) => `${JSON.stringify(k)}:${v}`), { freq: 3 });
    const objectParams = fc.oneof(
      { weight: 1, arbitrary: fc.tuple(...fieldText(false)).map((parts) => `{${parts.filter((p): p is string => p !== null).join(',')}}`) },
      { weight: 2, arbitrary: fc.tuple(fc.tuple(...fieldText(true)), extra).map(([parts, more]) => `{${[...parts, more].filter((p): p is string => p !== null).join(',')}}`) },
    );
    const params = fc.oneof({ weight: 8, arbitrary: objectParams }, { weight: 1, arbitrary: hostileText });
    return fc.record({ method: fc.constant(method), body: fc.tuple(params, fc.nat()).map(([p, id]) => `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${p}}`), overWs: fc.boolean() });
  });
}

const perMethod = new Map<string, number>();
const outcomes: Record<string, number> = {};

function check(reply: any, method: string): void {
  expect(reply.jsonrpc).toBe('2.0');
  expect('result' in reply !== 'error' in reply).toBe(true);
  const key = 'error' in reply ? String(reply.error.data?.code ?? reply.error.code) : 'ok';
  outcomes[key] = (outcomes[key] ?? 0) + 1;
  if ('error' in reply) {
    expect(Number.isInteger(reply.error.code)).toBe(true);
    expect(typeof reply.error.message).toBe('string');
    expect(reply.error.code, `${method}: ${JSON.stringify(reply.error).slice(0, 500)}`).not.toBe(-32603);
  }
}

describe('hostile params for every method of the contract', () => {
  test(`${RUNS} calls: clean typed answers only, every method reached, no pollution, still serving, DB intact`, async () => {
    expect([...gw.registry.names()].sort()).toEqual([...RPC_METHOD_NAMES].sort());
    await fc.assert(
      fc.asyncProperty(cases(), async ({ method, body, overWs }) => {
        perMethod.set(method, (perMethod.get(method) ?? 0) + 1);
        // A WebSocket frame has the same 1 MiB limit; keep the biggest bodies on HTTP.
        if (overWs && body.length < 256 * 1024) {
          check(await ws.sendRaw(body), method);
          return;
        }
        const res = await postRpc(gw, body);
        if (Buffer.byteLength(body) > 1024 * 1024) {
          // Several huge values together can pass the body limit: that is the clean 413.
          expect(res.status).toBe(413);
          expect((res.json as any).error.data.code).toBe('payload_too_large');
          return;
        }
        expect(res.status, res.text.slice(0, 300)).toBe(200);
        check(res.json, method);
      }),
      { numRuns: RUNS },
    );
    // Every method is called: a random pick can miss one (with this many methods and RUNS calls,
    // about one run in a hundred misses one), so each one missed gets one plain call, checked the same way.
    for (const method of RPC_METHOD_NAMES.filter((m) => !perMethod.has(m))) {
      perMethod.set(method, 1);
      const res = await postRpc(gw, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} }));
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      check(res.json, method);
    }
    // The calls got past validation often enough to reach handlers.
    expect(outcomes.ok ?? 0).toBeGreaterThan(RUNS / 20);
    expect(outcomes.invalid_params ?? 0).toBeGreaterThan(RUNS / 10);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect((await rpc(gw, 'gateway.info')).profile).toBe('default');
    expect((await ws.call('gateway.info')).result).toMatchObject({ profile: 'default' });
    const raw = gw.context.db.raw;
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(raw.pragma('foreign_key_check')).toEqual([]);
    expect(gw.logs.filter((l) => l.level === 'error')).toEqual([]);
  }, 120_000);
});
