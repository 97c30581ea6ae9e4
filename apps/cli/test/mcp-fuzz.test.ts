/**
 * MCP query fuzz (issue 21, "keep it proven"): the official SDK client over stdio against `recall
 * mcp --session s-alpha-1` as a real child process on a seeded home. fast-check builds
 * `session_search` arguments from the tool's own JSON Schema (real field names, enums, bounds) and
 * mixes in hostile values — lone surrogates, NUL, `__proto__` keys, deep nesting, long strings,
 * wrong types, extra fields such as `project_id`, ids of other projects' conversations. Properties:
 * every call answers a tool result (never a protocol error or a dead server) whose text is the
 * tool's JSON — results, or an error result with a stable code — and nothing of project Beta or of
 * the conversation without a project ever comes back (the fixture's canaries "paprika", "Scratch
 * note"); the server still answers a normal query afterwards.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { sessionSearchJsonSchema } from '@recall/search-tool';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { assertCliBuilt, childEnv, CLI_PATH, cleanupTemp, FIXTURES, REPO_ROOT, runCli, tempDir } from './cli-helpers.js';

const RUNS = 300;
let client: Client;

beforeAll(async () => {
  assertCliBuilt();
  const home = tempDir('recall-mcp-fuzz-');
  const imported = await runCli(['import', join(FIXTURES, 'small.jsonl'), '--home', home]);
  expect(imported.code, imported.stderr).toBe(0);
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_PATH, 'mcp', '--home', home, '--session', 's-alpha-1'], env: childEnv() as Record<string, string>, cwd: REPO_ROOT, stderr: 'pipe' });
  client = new Client({ name: 'recall-fuzz', version: '0.0.0' });
  await client.connect(transport);
});
afterAll(async () => {
  await client?.close();
  cleanupTemp();
});

const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom('SURR\ud800', '\udc00', 'a\u0000b', '\u0000', '', ' ', '%', '"', '*', 'NEAR(', 'a OR b', '"unclosed', '-', '^', '😀', '\u202e', 'LNK2019', 'paprika', '周报'),
  fc.constantFrom('s-beta-1', 's-loose', 's-alpha-2', '../s-beta-1', 'p_beta', 'p_alpha'),
  fc.constantFrom(-1, 0, 1.5, 1e308, -0, Number.MAX_SAFE_INTEGER + 2, 2 ** 31, true, false, null, [], {}),
  fc.constant(JSON.parse('{"__proto__":{"polluted":true}}')),
  fc.integer({ min: 50, max: 400 }).map((depth) => {
    let v: unknown = 1;
    for (let i = 0; i < depth; i++) v = [v];
    return v;
  }),
  fc.integer({ min: 1, max: 20_000 }).map((n) => 'q'.repeat(n)),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.jsonValue({ maxDepth: 2 }),
);

function plausible(prop: Record<string, any>): fc.Arbitrary<unknown> {
  if (prop.enum) return fc.constantFrom(...prop.enum);
  if (prop.type === 'integer') return fc.integer({ min: prop.minimum ?? 0, max: Math.min(prop.maximum ?? 100, 100) });
  if (prop.type === 'array') return fc.array(fc.constantFrom(...(prop.items?.enum ?? ['user'])), { minLength: 1, maxLength: 4 });
  return fc.oneof(fc.constantFrom('LNK2019', 'linker', '周报', 'zlib', 'paprika', 's-alpha-2', 's-alpha-1'), fc.string({ unit: 'grapheme', maxLength: 20 }));
}

function args(): fc.Arbitrary<Record<string, unknown>> {
  const schema = sessionSearchJsonSchema() as { properties: Record<string, Record<string, any>> };
  const fields = Object.fromEntries(
    Object.entries(schema.properties).map(([key, prop]) => [key, fc.oneof({ weight: 3, arbitrary: plausible(prop) }, { weight: 1, arbitrary: hostile })]),
  );
  const known = fc.record(fields, { requiredKeys: [] });
  const extra = fc.option(fc.tuple(fc.constantFrom('project_id', 'profile', '__proto__', 'constructor', 'scope', 'cwd'), hostile), { freq: 4 });
  // A third of the calls are well-formed searches, so the store's search and the scope rule run too.
  const searchKeys = ['query', 'search_mode', 'limit', 'sort', 'role_filter'];
  const clean = fc.record(Object.fromEntries(searchKeys.filter((k) => k in schema.properties).map((k) => [k, plausible(schema.properties[k]!)])), { requiredKeys: ['query'] });
  const fuzzed = fc.tuple(known, extra).map(([a, more]) => {
    const out: Record<string, unknown> = { ...a };
    if (more) Object.defineProperty(out, more[0], { value: more[1], enumerable: true, configurable: true, writable: true });
    return out;
  });
  return fc.oneof({ weight: 1, arbitrary: clean }, { weight: 2, arbitrary: fuzzed });
}

const CANARIES = ['paprika', 'secret sauce', 'Scratch note', 's-beta-1', 's-loose', 'p_beta'];
const outcomes: Record<string, number> = {};

describe('recall mcp under fuzzed session_search arguments', () => {
  test(`${RUNS} calls: tool results only, stable error codes, nothing from another project, still serving`, async () => {
    await fc.assert(
      fc.asyncProperty(args(), async (a) => {
        const result = await client.callTool({ name: 'session_search', arguments: a });
        const content = result.content as { type: string; text: string }[];
        expect(content).toHaveLength(1);
        expect(content[0]!.type).toBe('text');
        const out = JSON.parse(content[0]!.text) as { scope?: unknown; results: unknown[]; error?: { code: string; message: string } };
        expect(Array.isArray(out.results)).toBe(true);
        if (result.isError) {
          expect(out.error?.code).toMatch(/^[a-z][a-z0-9_]*$/);
          expect(out.error?.code).not.toBe('internal_error');
          expect(out.results).toEqual([]);
        } else {
          expect(out.error).toBeUndefined();
          expect(out.scope).toEqual({ kind: 'project', project_id: 'p_alpha' });
        }
        outcomes[out.error?.code ?? 'ok'] = (outcomes[out.error?.code ?? 'ok'] ?? 0) + 1;
        const shown = JSON.stringify(out.results);
        for (const canary of CANARIES) expect(shown, `leaked ${canary} for ${JSON.stringify(a).slice(0, 200)}`).not.toContain(canary);
      }),
      { numRuns: RUNS },
    );
    expect(outcomes.ok ?? 0).toBeGreaterThan(RUNS / 10);
    expect(Object.keys(outcomes).length).toBeGreaterThan(1);
    const normal = await client.callTool({ name: 'session_search', arguments: { query: '周报' } });
    expect(normal.isError).toBe(false);
    expect(JSON.parse((normal.content as { text: string }[])[0]!.text).results.length).toBeGreaterThan(0);
  }, 120_000);
});
