/**
 * docs/agents.md is copy-paste configuration, so it is tested as written: every block marked
 * `<!-- agents-config: NAME -->` (the `claude mcp add` line, `.mcp.json`, Codex's config.toml, the
 * generic mcpServers JSON) is parsed, its placeholders replaced (`/path/to/recall` → this checkout,
 * `/path/to/your/repo` and `my-project` → a repository imported with --project-per-folder), and the
 * server is started exactly with that command and those arguments, from inside that repository as
 * an agent starts it — so the shareable `--cwd .` is checked for real (the home comes from
 * RECALL_HOME, as ~/.recall would for a user). The official SDK client lists the tool and calls it:
 * the answers come from that repository's project only. The independent client, the official MCP
 * Inspector's CLI, runs the documented Inspector commands when RECALL_TEST_INSPECTOR names its
 * binary (it is not a dependency of this repository: `npm i @modelcontextprotocol/inspector@2.12.0`
 * somewhere, then RECALL_TEST_INSPECTOR=…/node_modules/.bin/mcp-inspector).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { assertCliBuilt, childEnv, cleanupTemp, REPO_ROOT, runCli, tempDir } from './cli-helpers.js';
import { CC_ALPHA, CC_BETA, copyFixture } from '@recall/config/source-fixtures';

const DOC = readFileSync(new URL('../../../docs/agents.md', import.meta.url), 'utf8');

beforeAll(() => assertCliBuilt());
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  cleanupTemp();
});

function block(name: string): string {
  const match = new RegExp(`<!-- agents-config: ${name} -->\\s*\\n\`\`\`\\w*\\n([\\s\\S]*?)\\n\`\`\``).exec(DOC);
  if (!match) throw new Error(`docs/agents.md has no block "${name}"`);
  return match[1]!;
}

function commandOf(name: string): { command: string; args: string[] } {
  const text = block(name);
  if (name.endsWith('-json')) {
    const server = (JSON.parse(text) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers.recall!;
    return { command: server.command, args: server.args };
  }
  if (name.endsWith('-toml')) {
    const command = /^command = "(.*)"$/m.exec(text)![1]!;
    const args = JSON.parse(/^args = (\[.*\])$/m.exec(text)![1]!) as string[];
    return { command, args };
  }
  const words = text.split(' -- ')[1]!.trim().split(/\s+/);
  return { command: words[0]!, args: words.slice(1) };
}

const substitute = (arg: string, repo = '/work/alpha') => arg.replace('/path/to/recall', REPO_ROOT.replace(/\/$/, '')).replace('/path/to/your/repo', repo).replace(/^my-project$/, 'alpha');

/** The fixture's transcripts with their alpha folder moved to a real folder `repo` (so a server can start in it). */
function relocateAlpha(dir: string, repo: string): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) relocateAlpha(path, repo);
    else if (name.endsWith('.jsonl')) writeFileSync(path, readFileSync(path, 'utf8').replaceAll('"/work/alpha', JSON.stringify(repo).slice(0, -1)));
  }
}

describe('docs/agents.md configurations start as written', () => {
  test.each(['claude-code-cli', 'claude-code-json', 'codex-toml', 'generic-json'])('%s', async (name) => {
    const home = tempDir('recall-agents-doc-');
    // The repository the agent works in: a real folder named alpha (its project's slug).
    const repo = join(tempDir('recall-agents-repo-'), 'alpha');
    mkdirSync(repo);
    const transcripts = copyFixture('claude-code', tempDir());
    relocateAlpha(transcripts, repo);
    const imported = await runCli(['import', '--from', 'claude-code', transcripts, '--project-per-folder', '--home', home]);
    expect(imported.stderr).toContain('[import_line_errors]'); // the fixture's truncated last line; everything else is in
    const { command, args } = commandOf(name);
    expect(command).toBe('node');
    expect(args.some((a) => a.includes('/path/to/recall'))).toBe(true);
    const transport = new StdioClientTransport({
      command: command === 'node' ? process.execPath : command,
      args: args.map((a) => substitute(a, repo)),
      env: childEnv({ RECALL_HOME: home }) as Record<string, string>,
      cwd: repo,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'agents-doc', version: '0' });
    clients.push(client);
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['session_search']);
    const call = async (query: string) =>
      (await client.callTool({ name: 'session_search', arguments: { query, search_mode: 'keyword' } })).structuredContent as { results: { session_id: string }[] };
    expect((await call('LNK2019')).results.map((r) => r.session_id)).toContain(CC_ALPHA);
    expect((await call('paprika')).results.map((r) => r.session_id)).not.toContain(CC_BETA);
    expect((await call('paprika')).results).toEqual([]);
  });
});

const INSPECTOR = process.env.RECALL_TEST_INSPECTOR;

describe('the MCP Inspector CLI (independent client)', () => {
  test.skipIf(!INSPECTOR)('lists and calls the tool as documented', async () => {
    // The Inspector passes only a default environment (HOME, PATH, …) to the server, so the user's
    // home is a temp HOME whose ~/.recall holds the imported history — exactly the documented default.
    const userHome = tempDir('recall-inspector-');
    await runCli(['import', '--from', 'claude-code', copyFixture('claude-code', tempDir()), '--project-per-folder', '--home', join(userHome, '.recall')]);
    const lines = /```sh\n(npx -y @modelcontextprotocol\/inspector[\s\S]*?)\n```/.exec(DOC)![1]!.replace(/\\\n\s*/g, '').split('\n');
    const outputs = lines.map((line) => {
      const words = line.replace('npx -y @modelcontextprotocol/inspector ', '').split(/\s+/).map((w) => substitute(w));
      return execFileSync(INSPECTOR!, words.map((w) => (w === 'node' ? process.execPath : w)), { env: childEnv({ HOME: userHome }), encoding: 'utf8', timeout: 60_000 });
    });
    const listed = JSON.parse(outputs[0]!) as { tools: { name: string; outputSchema?: unknown }[] };
    expect(listed.tools.map((t) => t.name)).toEqual(['session_search']);
    expect(listed.tools[0]!.outputSchema).toBeDefined();
    const called = JSON.parse(outputs[1]!) as { isError: boolean; structuredContent: { results: { session_id: string }[] } };
    expect(called.isError).toBe(false);
    expect(called.structuredContent.results.map((r) => r.session_id)).toContain(CC_ALPHA);
  });
});
