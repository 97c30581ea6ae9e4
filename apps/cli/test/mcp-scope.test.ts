/**
 * `recall mcp --project / --cwd` end to end (the official SDK client against the built CLI as a
 * child process): an agent without a Recall session gets its whole project as the scope, fixed by
 * the host's command line; `--cwd` resolves through the folder mapping (a subfolder too) and a
 * folder of another project gives that project's history only; an unmapped folder refuses to
 * start with the fix named. Results carry `structuredContent` matching the advertised
 * `outputSchema` (the SDK client itself validates it against the schema on every call).
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openDatabase, profileDatabasePath } from '@recall/schema';
import { sessionSearchOutputJsonSchema } from '@recall/search-tool';
import { addProjectFolder } from '@recall/store';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { assertCliBuilt, childEnv, CLI_PATH, cleanupTemp, FIXTURES, REPO_ROOT, runCli, tempDir } from './cli-helpers.js';

beforeAll(() => assertCliBuilt());
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  cleanupTemp();
});

interface ToolResult {
  scope: { kind: string; project_id: string | null };
  results: { session_id: string }[];
  error?: { code: string };
}

async function seededHome(): Promise<string> {
  const home = tempDir('recall-mcp-scope-');
  const imported = await runCli(['import', join(FIXTURES, 'small.jsonl'), '--home', home]);
  expect(imported.code, imported.stderr).toBe(0);
  const db = openDatabase(profileDatabasePath(home, 'default'));
  try {
    addProjectFolder(db, 'p_beta', '/work/beta');
  } finally {
    db.close();
  }
  return home;
}

async function connect(home: string, scopeArgs: string[]): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_PATH, 'mcp', '--home', home, ...scopeArgs],
    env: childEnv() as Record<string, string>,
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'recall-scope-test', version: '0.0.0' });
  clients.push(client);
  await client.connect(transport);
  return client;
}

async function search(client: Client, query: string): Promise<ToolResult> {
  const result = await client.callTool({ name: 'session_search', arguments: { query, search_mode: 'keyword', limit: 20 } });
  const text = JSON.parse((result.content as { text: string }[])[0]!.text) as ToolResult;
  expect(result.structuredContent).toEqual(text);
  return text;
}

const sessionsOf = (r: ToolResult) => [...new Set(r.results.map((x) => x.session_id))].sort();

describe('recall mcp with a project scope', () => {
  test.each([
    ['--cwd of the mapped folder', ['--cwd', '/work/alpha'], 'p_alpha'],
    ['--cwd of a subfolder', ['--cwd', '/work/alpha/src/linker'], 'p_alpha'],
    ['--project by slug', ['--project', 'alpha'], 'p_alpha'],
    ['--cwd of the other project', ['--cwd', '/work/beta'], 'p_beta'],
    ['--project by id', ['--project', 'p_beta'], 'p_beta'],
  ])('%s answers from that project only', async (_name, args, projectId) => {
    const home = await seededHome();
    const client = await connect(home, args);
    const linker = await search(client, 'LNK2019');
    const recipe = await search(client, 'paprika');
    expect(linker.scope).toEqual({ kind: 'project', project_id: projectId });
    if (projectId === 'p_alpha') {
      expect(sessionsOf(linker).length).toBeGreaterThan(0);
      expect(sessionsOf(linker).every((id) => id.startsWith('s-alpha-'))).toBe(true);
      expect(recipe.results).toEqual([]);
    } else {
      // The beta fixture mentions LNK2019 as well: only its own session comes back, never alpha's.
      expect(sessionsOf(recipe)).toEqual(['s-beta-1']);
      expect(sessionsOf(linker)).toEqual(['s-beta-1']);
    }
  });

  test('advertises the output schema and returns structuredContent the SDK validates', async () => {
    const home = await seededHome();
    const client = await connect(home, ['--project', 'p_alpha']);
    const { tools } = await client.listTools();
    expect(tools[0]!.outputSchema).toEqual(sessionSearchOutputJsonSchema());
    const browse = await client.callTool({ name: 'session_search', arguments: {} });
    expect(browse.isError).toBe(false);
    expect((browse.structuredContent as { shape: string }).shape).toBe('browse');
    // An error result still carries structured content (with error set) and isError.
    const bad = await client.callTool({ name: 'session_search', arguments: { limit: 0 } });
    expect(bad.isError).toBe(true);
    expect((bad.structuredContent as ToolResult).error?.code).toBe('invalid_arguments');
  });

  test.each([
    ['an unmapped folder', ['--cwd', '/somewhere/else'], 1, /\[folder_not_in_project\]/, /Fix: .*--project-per-folder.*--project ID\|SLUG/s],
    ['an unknown project', ['--project', 'nope'], 1, /\[project_not_found\]/, /nope/],
    ['two scopes', ['--project', 'p_alpha', '--session', 's-alpha-1'], 2, /only one of/, /recall mcp --help/],
    ['no scope', [], 2, /One of --session, --project or --cwd is required/, /recall mcp --help/],
  ])('refuses to start for %s', async (_name, args, code, first, second) => {
    const home = await seededHome();
    const run = await runCli(['mcp', '--home', home, ...args]);
    expect(run.code).toBe(code);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(first);
    expect(run.stderr).toMatch(second);
  });
});
