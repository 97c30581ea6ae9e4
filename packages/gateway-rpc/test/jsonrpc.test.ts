/**
 * The protocol layer on its own (no server, no database): envelope validation, batches,
 * notifications, params validation, error mapping and serialisation, driven through
 * `handleRpcText()` exactly as the transports use it.
 */
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { defineMethod, GatewayError, handleRpcText, MethodRegistry, type MethodHandler } from '../src/index.js';
import { MAX_BATCH_SIZE } from '../src/jsonrpc.js';
import { StoreError } from '@recall/store';
import { collectingLogger } from './helpers.js';

interface Ctx {
  calls: string[];
}

const def = <S extends z.ZodType>(name: string, params: S, handler: MethodHandler<z.output<S>, unknown, Ctx>) => defineMethod(name, params, handler);

function registry() {
  const r = new MethodRegistry<Ctx>();
  r.register(
    def(
      'echo',
      z.strictObject({ text: z.string().max(10).describe('text'), times: z.number().int().min(1).max(3).default(1).describe('times') }),
      (p, ctx) => {
        ctx.calls.push('echo');
        return p.text.repeat(p.times);
      },
    ),
    def('nothing', z.strictObject({}), (_p, ctx) => {
      ctx.calls.push('nothing');
    }),
    def('domain', z.strictObject({}), () => {
      throw new StoreError('session_not_found', 'No session "x" in this profile.', { sessionId: 'x', nested: { secret: 1 } });
    }),
    def('gateway', z.strictObject({}), () => {
      throw new GatewayError('search_unavailable', 'not wired');
    }),
    def('boom', z.strictObject({}), () => {
      throw new Error('SELECT * FROM secret_table /home/user/.recall failed');
    }),
    def('sqlite', z.strictObject({}), () => {
      throw Object.assign(new Error('UNIQUE constraint failed: messages.x'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
    }),
    def('busy', z.strictObject({}), () => {
      throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    }),
    def('cyclic', z.strictObject({}), () => {
      const a: Record<string, unknown> = {};
      a.self = a;
      return a;
    }),
    def('slow', z.strictObject({ ms: z.number().int().min(0).max(100).describe('delay') }), async (p, ctx) => {
      await new Promise((r) => setTimeout(r, p.ms));
      ctx.calls.push(`slow${p.ms}`);
      return p.ms;
    }),
  );
  return r;
}

async function send(text: string, ctx: Ctx = { calls: [] }, logger = collectingLogger()) {
  const out = await handleRpcText(registry(), text, ctx, { logger });
  return { out: out === null ? null : (JSON.parse(out) as any), ctx, logger };
}

describe('envelope', () => {
  test('a valid call answers with result and the same id', async () => {
    expect((await send('{"jsonrpc":"2.0","id":7,"method":"echo","params":{"text":"ab","times":2}}')).out).toEqual({ jsonrpc: '2.0', id: 7, result: 'abab' });
    expect((await send('{"jsonrpc":"2.0","id":"x","method":"echo","params":{"text":"a"}}')).out).toEqual({ jsonrpc: '2.0', id: 'x', result: 'a' });
  });

  test('a handler returning undefined answers null', async () => {
    expect((await send('{"jsonrpc":"2.0","id":1,"method":"nothing"}')).out).toEqual({ jsonrpc: '2.0', id: 1, result: null });
  });

  test.each([
    ['not JSON', '{"jsonrpc":"2.0",', -32700],
    ['empty', '', -32700],
    ['invalid utf-8 marker', '\u0000invalid-utf8', -32700],
  ])('parse error: %s', async (_name, text, code) => {
    const { out, ctx } = await send(text);
    expect(out).toMatchObject({ jsonrpc: '2.0', id: null, error: { code } });
    expect(ctx.calls).toEqual([]);
  });

  test.each([
    ['a number', '1', null],
    ['a string', '"hello"', null],
    ['null', 'null', null],
    ['missing jsonrpc', '{"id":1,"method":"echo","params":{"text":"a"}}', 1],
    ['wrong jsonrpc version', '{"jsonrpc":"1.0","id":1,"method":"echo"}', 1],
    ['numeric jsonrpc', '{"jsonrpc":2,"id":1,"method":"echo"}', 1],
    ['missing method', '{"jsonrpc":"2.0","id":1}', 1],
    ['method not a string', '{"jsonrpc":"2.0","id":1,"method":42}', 1],
    ['empty method', '{"jsonrpc":"2.0","id":1,"method":""}', 1],
    ['object id', '{"jsonrpc":"2.0","id":{},"method":"echo"}', null],
    ['boolean id', '{"jsonrpc":"2.0","id":true,"method":"echo"}', null],
    ['string params', '{"jsonrpc":"2.0","id":1,"method":"echo","params":"text"}', 1],
    ['null params', '{"jsonrpc":"2.0","id":1,"method":"echo","params":null}', 1],
    ['huge method name', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'x'.repeat(500) }), 1],
  ])('invalid request: %s → -32600', async (_name, text, id) => {
    const { out, ctx } = await send(text);
    expect(out).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32600 } });
    expect(ctx.calls).toEqual([]);
  });

  test.each(['nope', '__proto__', 'constructor', 'toString', 'hasOwnProperty'])('unknown method %s → -32601', async (method) => {
    const { out } = await send(JSON.stringify({ jsonrpc: '2.0', id: 3, method }));
    expect(out).toMatchObject({ id: 3, error: { code: -32601 } });
  });
});

describe('params', () => {
  test.each([
    ['wrong type', { text: 5 }, ['text']],
    ['too long', { text: 'x'.repeat(11) }, ['text']],
    ['missing field', {}, ['text']],
    ['unknown field (strict)', { text: 'a', extra: 1 }, []],
    ['out of range', { text: 'a', times: 9 }, ['times']],
    ['not an integer', { text: 'a', times: 1.5 }, ['times']],
  ])('%s → -32602 with zod issues in data', async (_name, params, path) => {
    const { out, ctx } = await send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params }));
    expect(out.error.code).toBe(-32602);
    expect(out.error.data.code).toBe('invalid_params');
    expect(out.error.data.issues.length).toBeGreaterThan(0);
    expect(out.error.data.issues[0].path).toEqual(path);
    expect(ctx.calls).toEqual([]);
  });

  test('positional (array) params are refused with -32602', async () => {
    const { out, ctx } = await send('{"jsonrpc":"2.0","id":1,"method":"echo","params":["a"]}');
    expect(out.error.code).toBe(-32602);
    expect(ctx.calls).toEqual([]);
  });

  test('omitted params mean {}', async () => {
    expect((await send('{"jsonrpc":"2.0","id":1,"method":"nothing"}')).out.result).toBeNull();
  });
});

describe('errors', () => {
  test('a store error keeps its message, gets its numeric code, string code and scalar details only', async () => {
    const { out } = await send('{"jsonrpc":"2.0","id":1,"method":"domain"}');
    expect(out.error).toEqual({ code: -32002, message: 'No session "x" in this profile.', data: { code: 'session_not_found', sessionId: 'x' } });
  });

  test('a gateway error maps through the same table', async () => {
    const { out } = await send('{"jsonrpc":"2.0","id":1,"method":"gateway"}');
    expect(out.error).toMatchObject({ code: -32011, data: { code: 'search_unavailable' } });
  });

  test.each(['boom', 'sqlite'])('an unexpected error (%s) is -32603 with nothing of the original on the wire, and is logged', async (method) => {
    const { out, logger } = await send(JSON.stringify({ jsonrpc: '2.0', id: 1, method }));
    expect(out.error).toEqual({ code: -32603, message: 'Internal error', data: { code: 'internal_error' } });
    expect(JSON.stringify(out)).not.toMatch(/secret|constraint|\.recall|at /i);
    expect(logger.entries.some((e) => e.level === 'error')).toBe(true);
  });

  test('SQLITE_BUSY becomes the retryable busy code', async () => {
    const { out } = await send('{"jsonrpc":"2.0","id":1,"method":"busy"}');
    expect(out.error).toMatchObject({ code: -32010, data: { code: 'busy', retryable: true } });
  });

  test('an unserialisable result is an internal error for that call only', async () => {
    const { out } = await send('{"jsonrpc":"2.0","id":5,"method":"cyclic"}');
    expect(out).toMatchObject({ id: 5, error: { code: -32603 } });
  });
});

describe('notifications and batches', () => {
  test('a notification runs and gets no response, even when it fails', async () => {
    const ok = await send('{"jsonrpc":"2.0","method":"echo","params":{"text":"a"}}');
    expect(ok.out).toBeNull();
    expect(ok.ctx.calls).toEqual(['echo']);
    expect((await send('{"jsonrpc":"2.0","method":"boom"}')).out).toBeNull();
    expect((await send('{"jsonrpc":"2.0","method":"unknown"}')).out).toBeNull();
  });

  test('a batch answers each request in order, skips notifications, and reports invalid entries individually', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'echo', params: { text: 'a' } },
      { jsonrpc: '2.0', method: 'echo', params: { text: 'n' } },
      1,
      { jsonrpc: '2.0', id: 2, method: 'nope' },
      { jsonrpc: '2.0', id: 3, method: 'echo', params: { text: 5 } },
      { jsonrpc: '2.0', id: 4, method: 'slow', params: { ms: 20 } },
      { jsonrpc: '2.0', id: 5, method: 'slow', params: { ms: 0 } },
    ];
    const { out, ctx } = await send(JSON.stringify(batch));
    expect(out.map((r: any) => [r.id, r.result ?? r.error.code])).toEqual([
      [1, 'a'],
      [null, -32600],
      [2, -32601],
      [3, -32602],
      [4, 20],
      [5, 0],
    ]);
    // Sequential: the slow entry finished before the next one started.
    expect(ctx.calls).toEqual(['echo', 'echo', 'slow20', 'slow0']);
  });

  test('a batch of notifications only answers nothing', async () => {
    expect((await send('[{"jsonrpc":"2.0","method":"nothing"},{"jsonrpc":"2.0","method":"nothing"}]')).out).toBeNull();
  });

  test('an empty batch is one invalid request', async () => {
    expect((await send('[]')).out).toMatchObject({ id: null, error: { code: -32600 } });
  });

  test(`a batch larger than ${MAX_BATCH_SIZE} is refused whole`, async () => {
    const batch = Array.from({ length: MAX_BATCH_SIZE + 1 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'nothing' }));
    const { out, ctx } = await send(JSON.stringify(batch));
    expect(out).toMatchObject({ id: null, error: { code: -32600 } });
    expect(ctx.calls).toEqual([]);
  });
});

describe('registry', () => {
  test('registering a name twice throws', () => {
    const r = registry();
    expect(() => r.register(def('echo', z.strictObject({}), () => 1))).toThrow(/twice/);
  });
});
