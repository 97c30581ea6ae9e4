/**
 * `recall import --from claude-code|codex|hermes` through the built CLI in child processes: the JSON
 * and dry-run summaries, Hermes profiles mapped to Recall profiles, `recall mcp --session <the
 * transcript's own id>` and `--cwd` after a per-folder import, and the crash proof — kill -9 in
 * the middle of an import, re-run, and the final counts equal a clean import's with
 * `PRAGMA integrity_check` ok.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openDatabase, profileDatabasePath } from '@recall/schema';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { assertCliBuilt, childEnv, CLI_PATH, cleanupTemp, json, REPO_ROOT, runCli, tempDir } from './cli-helpers.js';
import { CC_ALPHA, copyFixture, generateClaudeCodeFolder, hermesDb } from '@recall/config/source-fixtures';

beforeAll(() => assertCliBuilt());
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  cleanupTemp();
});

interface Summary {
  sessions: number;
  messages: number;
  skipped: number;
  projectsCreated: number;
  errorCount: number;
  errors: { file: string; line: number; code: string }[];
  perProject: { project: string; sessions: number; messages: number }[];
}

function counts(home: string, profile = 'default'): { sessions: number; messages: number; integrity: string } {
  const path = profileDatabasePath(home, profile);
  const db = openDatabase(path, { readonly: true });
  try {
    return {
      sessions: db.raw.prepare('select count(*) from sessions').pluck().get() as number,
      messages: db.raw.prepare('select count(*) from messages').pluck().get() as number,
      integrity: db.raw.prepare('pragma integrity_check').pluck().get() as string,
    };
  } finally {
    db.close();
  }
}

/** Messages so far, or null while the importer is still creating the database. */
function partialCount(home: string): number | null {
  try {
    return counts(home).messages;
  } catch {
    return null;
  }
}

describe('recall import --from', () => {
  test('claude-code: JSON summary with the line error, exit 1; a re-run imports nothing', async () => {
    const home = tempDir('recall-cc-home-');
    const dir = copyFixture('claude-code', tempDir());
    const first = await runCli(['import', '--from', 'claude-code', dir, '--project-per-folder', '--json', '--home', home]);
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toContain('[import_line_errors]');
    const s = json<Summary>(first);
    expect(s).toMatchObject({ sessions: 5, messages: 15, projectsCreated: 2, errorCount: 1 });
    expect(s.errors[0]).toMatchObject({ line: 15, code: 'invalid_json' });
    const again = json<Summary>(await runCli(['import', '--from', 'claude-code', dir, '--project-per-folder', '--json', '--home', home]));
    expect(again).toMatchObject({ sessions: 0, messages: 0, skipped: 15, projectsCreated: 0 });
  });

  test('--dry-run prints per-project counts and writes nothing', async () => {
    const home = tempDir('recall-dry-home-');
    const dir = copyFixture('codex', tempDir());
    const run = await runCli(['import', '--from', 'codex', dir, '--project-per-folder', '--dry-run', '--home', home]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Dry run (nothing written)');
    // Counted as conversations (a continuation belongs to its conversation), as `recall projects` will list them.
    expect(run.stdout).toMatch(/new project gamma for \/work\/gamma: 1 conversation, 8 messages/);
    expect(run.stdout).toMatch(/no project: 1 conversation, 2 messages/);
    expect(run.stdout).toMatch(/conversations to add: +2 +\(3 sessions: 2 conversations, 1 continuation\)/);
    expect(counts(home)).toMatchObject({ sessions: 0, messages: 0 });
  });

  test.each([
    ['recall-jsonl with --project', ['import', 'x.jsonl', '--project', 'p'], /apply to --from/],
    ['both mappings', ['import', '--from', 'codex', 'x', '--project', 'p', '--project-per-folder'], /either --project or --project-per-folder/],
    ['an unknown format', ['import', '--from', 'cursor', 'x'], /--from must be one of/],
  ])('usage error: %s', async (_name, args, message) => {
    const run = await runCli([...args, '--home', tempDir()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  test('hermes: a Hermes home maps its profiles to Recall profiles', async () => {
    const home = tempDir('recall-hermes-home-');
    const hermes = tempDir('hermes-');
    hermesDb(join(hermes, 'state.db'));
    hermesDb(join(hermes, 'profiles', 'work', 'state.db'), `create table sessions (id text primary key, started_at real, title text);
      create table messages (id integer primary key, session_id text, role text, content text, timestamp real);
      insert into sessions values ('w1', 1756717200, 'work only');
      insert into messages values (1, 'w1', 'user', 'work profile message', 1756717201);`);
    const run = await runCli(['import', '--from', 'hermes', hermes, '--json', '--home', home]);
    expect(run.code, run.stderr).toBe(0);
    const out = json<{ profiles: ({ profile: string } & Summary)[] }>(run);
    expect(out.profiles.map((p) => [p.profile, p.sessions, p.messages])).toEqual([
      ['default', 6, 14],
      ['work', 1, 1],
    ]);
    expect(counts(home, 'work')).toMatchObject({ sessions: 1, messages: 1 });
    expect(counts(home, 'default')).toMatchObject({ sessions: 6, messages: 14 });
  });
});

describe('MCP on imported history', () => {
  async function connect(home: string, args: string[]): Promise<Client> {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_PATH, 'mcp', '--home', home, ...args], env: childEnv() as Record<string, string>, cwd: REPO_ROOT, stderr: 'pipe' });
    const client = new Client({ name: 'import-mcp-test', version: '0' });
    clients.push(client);
    await client.connect(transport);
    return client;
  }
  const call = async (client: Client, query: string) =>
    (await client.callTool({ name: 'session_search', arguments: { query, search_mode: 'keyword', limit: 20 } })).structuredContent as {
      scope: { project_id: string | null };
      results: { session_id: string }[];
    };

  test("--session with the transcript's own id is its latest continuation: what was compacted away is recallable, the live part is not", async () => {
    const home = tempDir('recall-cc-mcp-');
    const dir = copyFixture('claude-code', tempDir());
    await runCli(['import', '--from', 'claude-code', dir, '--project-per-folder', '--home', home]);
    const client = await connect(home, ['--session', CC_ALPHA]);
    const early = await call(client, 'LNK2019');
    expect(early.results.map((r) => r.session_id)).toContain(CC_ALPHA);
    const live = await call(client, 'CMAKE_OSX_ARCHITECTURES');
    expect(live.results).toEqual([]); // in the host's live context already
    const other = await call(client, 'paprika');
    expect(other.results).toEqual([]); // /work/beta is another project
  });

  test('--cwd after --project-per-folder: each folder answers from its own history', async () => {
    const home = tempDir('recall-cc-cwd-');
    const dir = copyFixture('claude-code', tempDir());
    await runCli(['import', '--from', 'claude-code', dir, '--project-per-folder', '--home', home]);
    const beta = await connect(home, ['--cwd', '/work/beta']);
    expect((await call(beta, 'paprika')).results.length).toBeGreaterThan(0);
    expect((await call(beta, 'LNK2019')).results).toEqual([]);
    const alpha = await connect(home, ['--cwd', '/work/alpha/src']);
    const found = await call(alpha, 'CMAKE_OSX_ARCHITECTURES');
    expect(found.results.map((r) => r.session_id)).toEqual([`${CC_ALPHA}:c1`]);
    expect((await call(alpha, 'paprika')).results).toEqual([]);
  });
});

describe('crash safety', () => {
  test('kill -9 mid-import, then a re-run: same counts as a clean import, integrity ok', async () => {
    const source = generateClaudeCodeFolder(tempDir('recall-gen-'), 40, 500);
    const clean = tempDir('recall-clean-');
    const cleanRun = await runCli(['import', '--from', 'claude-code', source, '--home', clean], { timeoutMs: 180_000 });
    expect(cleanRun.code, cleanRun.stderr).toBe(0);
    const expected = counts(clean);
    expect(expected).toEqual({ sessions: 40, messages: 20_000, integrity: 'ok' });

    const home = tempDir('recall-killed-');
    const child = spawn(process.execPath, [CLI_PATH, 'import', '--from', 'claude-code', source, '--home', home], { env: childEnv(), stdio: 'ignore' });
    const exited = new Promise<void>((resolveExit) => child.on('exit', () => resolveExit()));
    // Kill once some batches are committed but well before the end (bounded wait).
    for (let i = 0; i < 600; i++) {
      await new Promise((r) => setTimeout(r, 50));
      if (existsSync(profileDatabasePath(home, 'default')) && (partialCount(home) ?? 0) >= 2000) break;
    }
    child.kill('SIGKILL');
    await exited;
    const partial = counts(home);
    expect(partial.integrity).toBe('ok');
    expect(partial.messages).toBeLessThan(20_000);

    const rerun = await runCli(['import', '--from', 'claude-code', source, '--home', home], { timeoutMs: 180_000 });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(counts(home)).toEqual(expected);
  }, 300_000);
});
