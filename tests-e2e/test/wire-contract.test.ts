/**
 * The desktop and the gateway speak one contract (@recall/rpc-contract): the UI's method map is
 * derived from it (apps/desktop-ui/src/types.ts), the gateway registers and validates with it. This
 * test checks what neither typecheck can see, against a real `recall serve` child process: the
 * running gateway's `rpc.discover` lists exactly the contract's methods with the JSON Schema of the
 * contract's params, every method the UI source calls is one of them and documented in
 * docs/rpc.md, the UI keeps no hand-written copy of a wire type, and the built UI bundle (which
 * includes what it uses of the contract) pulls in no Node module.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RPC_METHOD_NAMES, RPC_METHODS, type RpcMethodName } from '@recall/rpc-contract';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer } from './support/gateway.js';
import { REPO_ROOT, UI_INDEX } from './support/paths.js';

const UI_SRC = join(REPO_ROOT, 'apps/desktop-ui/src');
const doc = readFileSync(join(REPO_ROOT, 'docs/rpc.md'), 'utf8');

function uiFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? uiFiles(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
}

/** Every literal method name the UI passes to `rpc.call(…)` (multi-line calls included). */
function uiCalls(): string[] {
  const names = new Set<string>();
  for (const file of uiFiles(UI_SRC)) for (const m of readFileSync(file, 'utf8').matchAll(/\.call\(\s*'([^']+)'/g)) names.add(m[1]!);
  return [...names].sort();
}

const calls = uiCalls();

describe('desktop, gateway and docs speak the contract', () => {
  const cleanup = new Cleanup();
  const discovered = new Map<string, unknown>();
  beforeAll(async () => {
    const server = await startRecallServer(cleanup);
    const { methods } = await server.rpc.call<{ methods: Array<{ name: string; params: unknown }> }>('rpc.discover');
    for (const m of methods) discovered.set(m.name, m.params);
  });
  afterAll(async () => {
    await cleanup.run();
  });

  test('the running gateway serves exactly the contract', () => {
    expect([...discovered.keys()].sort()).toEqual([...RPC_METHOD_NAMES]);
  });

  test.each(RPC_METHOD_NAMES.map((n) => [n]))('%s: rpc.discover params = contract params', (name: RpcMethodName) => {
    expect(discovered.get(name)).toEqual(JSON.parse(JSON.stringify(z.toJSONSchema(RPC_METHODS[name].params, { io: 'input', unrepresentable: 'any' }))));
  });

  test('the UI calls the gateway', () => {
    expect(calls.length).toBeGreaterThan(20);
  });

  test.each(calls.map((c) => [c]))('the UI calls %s: a contract method the gateway serves and docs/rpc.md documents', (name) => {
    expect(RPC_METHOD_NAMES).toContain(name);
    expect(discovered.has(name)).toBe(true);
    expect(doc).toContain(`| \`${name}\``);
  });

  test('the built UI bundle carries the contract and no Node module', () => {
    const assets = join(UI_INDEX, '..', 'assets');
    const bundle = readdirSync(assets)
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(assets, f), 'utf8'))
      .join('\n');
    expect(bundle).toContain('index.changed'); // the contract's EVENT_TYPES, bundled for the browser
    const builtins = /(?:from\s*|import\s*\(\s*|require\s*\(\s*)["'`](?:node:[a-z_/]+|fs|path|os|child_process|crypto|url|worker_threads|better-sqlite3)["'`]/g;
    expect(bundle.match(builtins) ?? []).toEqual([]);
    expect('import{readFileSync as r}from"node:fs"'.match(builtins)).toHaveLength(1); // the pattern itself finds one
  });

  test('the UI keeps no hand-written copy of a wire type', () => {
    const types = readFileSync(join(UI_SRC, 'types.ts'), 'utf8');
    expect(types).toContain("from '@recall/rpc-contract'");
    for (const wire of ['Project', 'Session', 'Message', 'SearchResult', 'SearchHit', 'IndexStatus', 'GatewayEvent', 'ChatStatus']) {
      expect(types, `types.ts declares ${wire} itself`).not.toMatch(new RegExp(`(interface|type)\\s+${wire}\\b`));
    }
  });
});
