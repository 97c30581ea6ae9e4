/**
 * The gateway serves exactly the contract (@recall/rpc-contract): its registry holds a handler for
 * every contract method and nothing else, each validating with the contract's very schema object
 * and summary, and a real server's `rpc.discover` (HTTP on 127.0.0.1) lists exactly the contract's
 * methods with the JSON Schema of those schemas. (The vocabularies — roles, visibilities, lineage
 * kinds, the longest message — have one home, the contract, which the schema and the store import.)
 */
import { RPC_METHOD_NAMES, RPC_METHODS, type RpcMethodName } from '@recall/rpc-contract';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { createMethodRegistry } from '../src/index.js';
import { cleanup, rpc, startTestGateway } from './helpers.js';

const registry = createMethodRegistry();

describe('the registry is the contract', () => {
  test('the same method names', () => {
    expect(registry.names()).toEqual([...RPC_METHOD_NAMES]);
  });

  test.each(RPC_METHOD_NAMES.map((n) => [n]))('%s validates with the contract schema and summary', (name) => {
    const definition = registry.get(name);
    expect(definition?.params).toBe(RPC_METHODS[name].params);
    expect(definition?.summary).toBe(RPC_METHODS[name].summary);
  });
});

describe('rpc.discover over HTTP lists exactly the contract', () => {
  let listed: Array<{ name: string; summary: string; params: unknown }> = [];
  beforeAll(async () => {
    const gw = await startTestGateway();
    listed = (await rpc<{ methods: typeof listed }>(gw, 'rpc.discover')).methods;
  });
  afterAll(cleanup);

  test('names', () => {
    expect(listed.map((m) => m.name)).toEqual([...RPC_METHOD_NAMES]);
  });

  test.each(RPC_METHOD_NAMES.map((n) => [n]))('%s params JSON Schema', (name: RpcMethodName) => {
    const entry = listed.find((m) => m.name === name);
    expect(entry?.params).toEqual(JSON.parse(JSON.stringify(z.toJSONSchema(RPC_METHODS[name].params, { io: 'input', unrepresentable: 'any' }))));
    expect(entry?.summary).toBe(RPC_METHODS[name].summary);
  });
});
