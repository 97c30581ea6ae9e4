/**
 * `recall mcp` end to end: the official SDK's Client over StdioClientTransport talking to the built
 * CLI as a real child process on a temp home. Checks the advertised tool (name, description and
 * input schema are the tool's own), project-scoped results as JSON text content, that the model
 * cannot widen the scope through arguments, that a move made elsewhere applies to the next call,
 * and that the server exits cleanly when the host closes stdin or names an unknown session.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openDatabase, profileDatabasePath } from '@recall/schema';
import { SESSION_SEARCH_DESCRIPTION, sessionSearchJsonSchema } from '@recall/search-tool';
import { getMessages, setSessionProject } from '@recall/store';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt, childEnv, CLI_PATH, cleanupTemp, FIXTURES, REPO_ROOT, runCli, tempDir } from './cli-helpers.js';

beforeAll(() => assertCliBuilt());
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  cleanupTemp();
});

interface ToolResult {
  scope: { kind: string; project_id: string | null };
  results: { session_id: string; message_id: number }[];
  error?: { code: string; message: string };
}

async function seededHome(): Promise<string> {
  const home = tempDir('recall-mcp-');
  const imported = await runCli(['import', join(FIXTURES, 'small.jsonl'), '--home', home]);
  expect(imported.code, imported.stderr).toBe(0);
  return home;
}

async function connect(home: string, sessionId: string): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_PATH, 'mcp', '--home', home, '--session', sessionId],
    env: childEnv() as Record<string, string>,
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const client = new Client({ name: 'recall-test', version: '0.0.0' });
  clients.push(client);
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

function parse(result: Awaited<ReturnType<Client['callTool']>>): ToolResult {
  const content = result.content as { type: string; text: string }[];
  expect(content).toHaveLength(1);
  expect(content[0]!.type).toBe('text');
  return JSON.parse(content[0]!.text) as ToolResult;
}

describe('recall mcp', () => {
  it('advertises session_search with the tool description and JSON Schema, and no project argument', async () => {
    const home = await seededHome();
    const { client } = await connect(home, 's-alpha-1');
    expect(client.getServerVersion()?.name).toBe('recall');
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    expect(tools[0]!.name).toBe('session_search');
    expect(tools[0]!.description).toBe(SESSION_SEARCH_DESCRIPTION);
    expect(tools[0]!.inputSchema).toEqual(sessionSearchJsonSchema());
    expect(Object.keys(tools[0]!.inputSchema.properties ?? {})).not.toContain('project_id');
    expect(tools[0]!.annotations?.readOnlyHint).toBe(true);
  });

  it('returns the tool JSON as text, scoped to the --session project', async () => {
    const home = await seededHome();
    const { client } = await connect(home, 's-alpha-2');
    const result = await client.callTool({ name: 'session_search', arguments: { query: 'LNK2019' } });
    expect(result.isError).toBe(false);
    const out = parse(result);
    expect(out.scope).toEqual({ kind: 'project', project_id: 'p_alpha' });
    expect(out.results.length).toBeGreaterThan(0);
    expect(out.results.every((r) => r.session_id.startsWith('s-alpha-'))).toBe(true);
    const db = openDatabase(profileDatabasePath(home, 'default'));
    try {
      const anchor = getMessages(db, 's-alpha-1').find((m) => m.externalId === 'a1-1')!.id;
      const first = out.results[0] as ToolResult['results'][number] & { other_message_ids?: number[] };
      expect(first.session_id).toBe('s-alpha-1');
      expect([first.message_id, ...(first.other_message_ids ?? [])]).toContain(anchor);
    } finally {
      db.close();
    }
  });

  it('the model cannot pick the project: extra arguments are an error result, not a wider scope', async () => {
    const home = await seededHome();
    const { client } = await connect(home, 's-alpha-1');
    const result = await client.callTool({ name: 'session_search', arguments: { query: 'paprika', project_id: 'p_beta' } });
    expect(result.isError).toBe(true);
    const out = parse(result);
    expect(out.error?.code).toBe('invalid_arguments');
    expect(out.results).toEqual([]);
    // And without the extra argument, p_beta's text is simply not found from p_alpha.
    const plain = parse(await client.callTool({ name: 'session_search', arguments: { query: 'paprika' } }));
    expect(plain.results).toEqual([]);
    await expect(client.callTool({ name: 'other_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it('re-reads the project on every call: a move made elsewhere applies to the next call', async () => {
    const home = await seededHome();
    const { client } = await connect(home, 's-alpha-1');
    expect(parse(await client.callTool({ name: 'session_search', arguments: { query: 'paprika' } })).results).toEqual([]);
    const db = openDatabase(profileDatabasePath(home, 'default'));
    try {
      setSessionProject(db, 's-alpha-1', 'p_beta');
    } finally {
      db.close();
    }
    const after = parse(await client.callTool({ name: 'session_search', arguments: { query: 'paprika' } }));
    expect(after.scope.project_id).toBe('p_beta');
    expect(after.results.map((r) => r.session_id)).toContain('s-beta-1');
  });

  it('exits 0 when the host closes stdin', async () => {
    const home = await seededHome();
    const child = spawn(process.execPath, [CLI_PATH, 'mcp', '--home', home, '--session', 's-alpha-1'], { env: childEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } })}\n`);
    await new Promise((r) => setTimeout(r, 500));
    child.stdin.end();
    const code = await new Promise<number | null>((resolveExit) => child.on('close', (c) => resolveExit(c)));
    expect(code).toBe(0);
    // stdout carried only protocol frames.
    for (const line of stdout.trim().split('\n')) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  });

  it('refuses to start for an unknown session (exit 1, session_not_found) and requires --session (exit 2)', async () => {
    const home = await seededHome();
    const unknown = await runCli(['mcp', '--home', home, '--session', 's-missing']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('[session_not_found]');
    expect(unknown.stdout).toBe('');
    const missing = await runCli(['mcp', '--home', home]);
    expect(missing.code).toBe(2);
  });
});
