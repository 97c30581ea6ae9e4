/**
 * The desktop's wire types (apps/desktop-ui/src/types.ts, `RpcMethods`) are written by hand against
 * the gateway: this test keeps the two sides in agreement. It reads the UI's method map with the
 * TypeScript compiler and asks a real `recall serve` for its method table (`rpc.discover`, each
 * method's JSON Schema), then checks for every method the UI calls that the gateway registers it,
 * that docs/rpc.md documents it, and that every parameter the UI may send is a parameter of the
 * gateway's schema (strict schemas refuse unknown keys, so a drift would fail at run time).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer } from './support/gateway.js';
import { REPO_ROOT } from './support/paths.js';

const typesFile = join(REPO_ROOT, 'apps/desktop-ui/src/types.ts');
const source = ts.createSourceFile(typesFile, readFileSync(typesFile, 'utf8'), ts.ScriptTarget.Latest, true);
const doc = readFileSync(join(REPO_ROOT, 'docs/rpc.md'), 'utf8');

/** `RpcMethods` as { method → param names the UI may send (null: not a literal object type) }. */
function uiMethods(): Map<string, string[] | null> {
  const out = new Map<string, string[] | null>();
  const map = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'RpcMethods');
  if (!map) throw new Error('RpcMethods not found in apps/desktop-ui/src/types.ts');
  for (const member of map.members) {
    if (!ts.isPropertySignature(member) || !member.name || !member.type || !ts.isTypeLiteralNode(member.type)) continue;
    const name = ts.isStringLiteral(member.name) ? member.name.text : member.name.getText(source);
    const params = member.type.members.find((m) => ts.isPropertySignature(m) && m.name.getText(source) === 'params') as ts.PropertySignature | undefined;
    const t = params?.type;
    out.set(name, t && ts.isTypeLiteralNode(t) ? t.members.filter(ts.isPropertySignature).map((m) => m.name.getText(source).replace(/^'|'$/g, '')) : null);
  }
  return out;
}

type JsonSchema = { properties?: Record<string, unknown>; allOf?: JsonSchema[]; anyOf?: JsonSchema[] };
const methods = [...uiMethods().entries()];

describe('desktop wire types agree with the gateway', () => {
  const cleanup = new Cleanup();
  const gateway = new Map<string, JsonSchema>();
  beforeAll(async () => {
    const server = await startRecallServer(cleanup);
    const { methods: listed } = await server.rpc.call<{ methods: Array<{ name: string; params: JsonSchema }> }>('rpc.discover');
    for (const m of listed) gateway.set(m.name, m.params);
  });
  afterAll(async () => {
    await cleanup.run();
  });

  test('the UI declares the methods it calls', () => {
    expect(methods.length).toBeGreaterThan(20);
  });

  test.each(methods)('%s is registered and documented, and its UI params exist in the gateway schema', (name, params) => {
    const schema = gateway.get(name);
    expect(schema, `${name} is not registered by the gateway`).toBeDefined();
    expect(doc).toContain(`| \`${name}\``);
    if (params === null) return; // Record<string, never> / a named type: nothing more to compare
    const props = (s: JsonSchema): string[] => [...Object.keys(s.properties ?? {}), ...[...(s.allOf ?? []), ...(s.anyOf ?? [])].flatMap(props)];
    const known = new Set(props(schema!));
    for (const p of params) expect(known, `${name}: the UI sends "${p}", the gateway does not accept it`).toContain(p);
  });
});
