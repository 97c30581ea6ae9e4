/**
 * The gateway serves exactly the contract (@recall/rpc-contract): its registry holds a handler for
 * every contract method and nothing else, each validating with the contract's very schema object
 * and summary, and a real server's `rpc.discover` (HTTP on 127.0.0.1) lists exactly the contract's
 * methods with the JSON Schema of those schemas. The contract's vocabularies — kept in the contract
 * because it may not import the schema package — equal the database's enums.
 */
import {
  RPC_METHOD_NAMES,
  RPC_METHODS,
  LINEAGE_KINDS as WIRE_LINEAGES,
  MAX_MESSAGE_CHARS as WIRE_MAX_CHARS,
  MESSAGE_ROLES as WIRE_ROLES,
  VISIBILITIES as WIRE_VISIBILITIES,
  type RpcMethodName,
} from '@recall/rpc-contract';
import { LINEAGE_KINDS, MESSAGE_ROLES, VISIBILITIES } from '@recall/schema';
import { MAX_MESSAGE_CHARS } from '@recall/store';
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

describe('the contract vocabularies equal the database enums', () => {
  test.each([
    ['message roles', WIRE_ROLES, MESSAGE_ROLES],
    ['visibilities', WIRE_VISIBILITIES, VISIBILITIES],
    ['lineage kinds', WIRE_LINEAGES, LINEAGE_KINDS],
  ])('%s', (_what, wire, db) => {
    expect([...wire]).toEqual([...db]);
  });

  test('the longest message', () => {
    expect(WIRE_MAX_CHARS).toBe(MAX_MESSAGE_CHARS);
  });
});
