/**
 * The `recall` CLI as users run it: the built dist/cli.js spawned as a real child process on temp
 * homes (real SQLite files, real gateway for `serve`). Covers help and usage errors (exit 2), typed
 * errors with stable codes (exit 1), import/projects/sessions/mv/index status/search, profile
 * isolation, and `serve` shutting down on SIGTERM/SIGINT without losing acknowledged writes.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, profileDatabasePath } from '@recall/schema';
import { getMessages, getSession } from '@recall/store';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt, cleanupTemp, FIXTURES, json, runCli, startCli, tempDir } from './cli-helpers.js';

beforeAll(() => assertCliBuilt());
afterEach(() => cleanupTemp());

const SMALL = join(FIXTURES, 'small.jsonl');
const BROKEN = join(FIXTURES, 'broken.jsonl');

async function seededHome(profile?: string): Promise<string> {
  const home = tempDir();
  const result = await runCli(['import', SMALL, '--home', home, ...(profile ? ['--profile', profile] : [])]);
  expect(result.code, result.stderr).toBe(0);
  return home;
}

describe('help and usage errors', () => {
  it('prints the command list and per-command help with exit code 0', async () => {
    const top = await runCli(['--help']);
    expect(top.code).toBe(0);
    for (const name of ['serve', 'import', 'search', 'projects', 'sessions', 'mv', 'index', 'mcp']) expect(top.stdout).toContain(`  ${name}`);
    const sub = await runCli(['search', '--help']);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toContain('Usage: recall search [QUERY] --project ID|SLUG|NAME | --cwd DIR | --session ID');
    expect(sub.stdout).toContain('--home DIR');
    const viaHelp = await runCli(['help', 'mv']);
    expect(viaHelp.stdout).toContain('Usage: recall mv SESSION PROJECT|none');
  });

  it.each([
    [[], 'No command given'],
    [['frobnicate'], 'Unknown command "frobnicate"'],
    [['projects', '--bogus'], "Unknown option '--bogus'"],
    [['import'], 'Missing argument: PATH'],
    [['mv', 'only-one'], 'Missing argument: PROJECT'],
    [['mv'], 'Missing argument: SESSION and PROJECT'],
    [['search', '--query', 'x'], 'One of --session, --project or --cwd is required'],
    [['search', 'x', '--query', 'y', '--project', 'p'], 'Give the query once'],
    [['search', 'x', '--project', 'p', '--cwd', '.'], 'Use only one of --project, --cwd'],
    [['search', '--session', 's', '--limit', 'ten'], '--limit must be an integer'],
    [['search', '--session', 's', '--mode', 'fuzzy'], '--mode must be one of hybrid, keyword, semantic'],
    [['sessions', 'extra'], 'Unexpected argument "extra"'],
    [['index', 'frobnicate'], 'Unknown index subcommand "frobnicate"'],
    [['index', 'enable'], '"index enable" needs --project ID|SLUG|NAME'],
    [['serve', '--port', 'http'], '--port must be an integer'],
  ])('recall %j exits 2 with a usage message', async (args, message) => {
    const home = tempDir();
    const result = await runCli([...args, '--home', home]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toMatch(/Run "recall( \w+)? --help" for usage/);
    expect(result.stdout).toBe('');
  });

  it('global flags may come before the command', async () => {
    const home = await seededHome();
    const result = await runCli(['--home', home, 'projects', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(json<{ projects: unknown[] }>(result).projects).toHaveLength(2);
  });
});

describe('import', () => {
  it('prints summary counts, and re-importing writes nothing', async () => {
    const home = tempDir();
    const first = await runCli(['import', SMALL, '--home', home]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/projects created:\s+2/);
    expect(first.stdout).toMatch(/messages inserted:\s+6/);
    expect(first.stderr).not.toContain('['); // no progress bar on a pipe, no errors
    const again = await runCli(['import', SMALL, '--home', home, '--json']);
    expect(again.code).toBe(0);
    expect(json(again)).toEqual({ lines: 12, projects: 0, sessions: 0, messages: 0, sessionsUpdated: 0, skipped: 12, errors: [], errorCount: 0 });
  });

  it('reports rejected lines by number and exits 1 with import_line_errors, keeping valid lines', async () => {
    const home = tempDir();
    const result = await runCli(['import', BROKEN, '--home', home]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('line 2: [invalid_json]');
    expect(result.stderr).toContain('line 7: [session_not_found]');
    expect(result.stderr).toContain('[import_line_errors]');
    expect(result.stdout).toMatch(/messages inserted:\s+2/);
    const asJson = await runCli(['import', BROKEN, '--home', home, '--json']);
    expect(asJson.code).toBe(1);
    const summary = json<{ errorCount: number; errors: { line: number; code: string }[] }>(asJson);
    expect(summary.errorCount).toBe(8);
    expect(summary.errors[0]).toMatchObject({ line: 2, code: 'invalid_json' });
  });

  it('a missing file is a typed error', async () => {
    const home = tempDir();
    const result = await runCli(['import', join(home, 'nope.jsonl'), '--home', home]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('[import_file_unreadable]');
    expect(result.stderr).toContain('no such file');
  });
});

describe('projects, sessions, mv, index status', () => {
  it('lists projects and sessions (all, one project, no project)', async () => {
    const home = await seededHome();
    const table = await runCli(['projects', '--home', home]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+SLUG\s+CONVERSATIONS\s+FOLDER\s+NAME/);
    expect(table.stdout).toMatch(/p_alpha\s+alpha\s+2\s+\/work\/alpha\s+Alpha/);
    const all = json<{ sessions: { id: string }[] }>(await runCli(['sessions', '--home', home, '--json']));
    expect(all.sessions.map((s) => s.id).sort()).toEqual(['s-alpha-1', 's-alpha-2', 's-beta-1', 's-loose']);
    const alpha = json<{ sessions: { id: string; projectId: string }[] }>(await runCli(['sessions', '--project', 'p_alpha', '--home', home, '--json']));
    expect(alpha.sessions.map((s) => s.id).sort()).toEqual(['s-alpha-1', 's-alpha-2']);
    const none = json<{ sessions: { id: string }[] }>(await runCli(['sessions', '--project', 'none', '--home', home, '--json']));
    expect(none.sessions.map((s) => s.id)).toEqual(['s-loose']);
    const missing = await runCli(['sessions', '--project', 'p_missing', '--home', home]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('[project_not_found]');
  });

  it('mv moves a conversation to a project and out of any project, with typed errors', async () => {
    const home = await seededHome();
    const moved = await runCli(['mv', 's-alpha-1', 'p_beta', '--home', home]);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toContain('from Alpha (p_alpha) to Beta (p_beta)');
    const out = json<{ sessionIds: string[]; projectId: string | null; previousProjectId: string }>(await runCli(['mv', 's-alpha-1', 'none', '--home', home, '--json']));
    expect(out).toEqual({ sessionIds: ['s-alpha-1'], projectId: null, previousProjectId: 'p_beta' });
    const db = openDatabase(profileDatabasePath(home, 'default'));
    try {
      expect(getSession(db, 's-alpha-1').projectId).toBeNull();
    } finally {
      db.close();
    }
    const noSession = await runCli(['mv', 's-missing', 'p_beta', '--home', home]);
    expect(noSession.code).toBe(1);
    expect(noSession.stderr).toContain('[session_not_found]');
    const noProject = await runCli(['mv', 's-alpha-2', 'p_nope', '--home', home]);
    expect(noProject.code).toBe(1);
    expect(noProject.stderr).toContain('[project_not_found]');
  });

  it('index status reports keyword counts and the semantic state', async () => {
    const home = await seededHome();
    const status = json<{ keyword: { messages: number; sessions: number }; semantic: { status: string } }>(await runCli(['index', 'status', '--home', home, '--json']));
    expect(status.keyword).toEqual({ messages: 6, sessions: 4, conversations: 4 });
    expect(['disabled', 'ready', 'partial', 'unavailable']).toContain(status.semantic.status);
    const text = await runCli(['index', 'status', '--home', home]);
    expect(text.stdout).toContain('6 messages in 4 conversations (4 sessions)');
  });

  it('profiles are separate databases; an invalid profile name is a typed error', async () => {
    const home = await seededHome('work');
    const work = json<{ projects: unknown[] }>(await runCli(['projects', '--home', home, '--profile', 'work', '--json']));
    expect(work.projects).toHaveLength(2);
    // The default profile was never created: a read-only command says so instead of creating it empty.
    const other = await runCli(['projects', '--home', home, '--json']);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('[profile_not_found]');
    // A profile name that is not one is a usage mistake (exit 2), caught before anything is read.
    const bad = await runCli(['projects', '--home', home, '--profile', '../etc']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--profile must be 1-64 letters');
  });
});

describe('search', () => {
  interface ToolResult {
    scope: { kind: string; project_id: string | null };
    results: { session_id: string; message_id: number; snippet: string }[];
    error?: { code: string };
  }

  it('--json prints exactly the tool result, scoped to the current session project', async () => {
    const home = await seededHome();
    const result = await runCli(['search', '--session', 's-alpha-2', '--query', 'LNK2019', '--json', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const out = json<ToolResult>(result);
    expect(out.scope).toEqual({ kind: 'project', project_id: 'p_alpha' });
    const db = openDatabase(profileDatabasePath(home, 'default'));
    try {
      const expected = getMessages(db, 's-alpha-1').find((m) => m.externalId === 'a1-1')!.id;
      expect(out.results[0]).toMatchObject({ session_id: 's-alpha-1' });
      expect([out.results[0]!.message_id, ...((out.results[0] as { other_message_ids?: number[] }).other_message_ids ?? [])]).toContain(expected);
    } finally {
      db.close();
    }
    // s-beta-1 and s-loose also say LNK2019, but are not in p_alpha.
    expect(out.results.every((r) => r.session_id.startsWith('s-alpha-'))).toBe(true);
  });

  it('--since/--until narrow the search to a time range; a bad bound is a usage-worded error', async () => {
    const home = await seededHome();
    const all = json<ToolResult>(await runCli(['search', '--session', 's-alpha-2', '--query', 'LNK2019', '--json', '--home', home]));
    expect(all.results.length).toBeGreaterThan(0);
    const future = await runCli(['search', '--session', 's-alpha-2', '--query', 'LNK2019', '--since', '2999-01-01', '--json', '--home', home]);
    expect(future.code, future.stderr).toBe(0);
    expect(json<ToolResult>(future).results).toEqual([]);
    const past = json<ToolResult>(await runCli(['search', '--session', 's-alpha-2', '--query', 'LNK2019', '--until', '2999-01-01', '--json', '--home', home]));
    expect(past.results.map((r) => r.message_id)).toEqual(all.results.map((r) => r.message_id));
    const bad = await runCli(['search', '--session', 's-alpha-2', '--query', 'LNK2019', '--since', 'last week', '--home', home]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Invalid --since');
    expect(bad.stderr).toContain('[invalid_arguments]');
  });

  it('a session without a project only recalls its own conversation', async () => {
    const home = await seededHome();
    const out = json<ToolResult>(await runCli(['search', '--session', 's-loose', '--query', 'LNK2019', '--json', '--home', home]));
    expect(out.scope.kind).toBe('own_conversation');
    expect(out.results.every((r) => r.session_id === 's-loose')).toBe(true);
  });

  it('prints a readable list without --json; an unknown current session exits 1 with the tool error code', async () => {
    const home = await seededHome();
    const text = await runCli(['search', '--session', 's-alpha-1', '--query', '周报', '--home', home]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('s-alpha-2 #');
    const missing = await runCli(['search', '--session', 's-missing', '--query', 'x', '--json', '--home', home]);
    expect(missing.code).toBe(1);
    const out = json<ToolResult>(missing);
    expect(out.error?.code).toBeTruthy();
    expect(missing.stderr).toContain(`[${out.error!.code}]`);
    expect(out.results).toEqual([]);
  });

  it("a tool error names the CLI's flags, not the tool's argument names", async () => {
    const home = await seededHome();
    const semantic = await runCli(['search', '--session', 's-alpha-1', '--query', 'linker', '--mode', 'semantic', '--home', home]);
    expect(semantic.code).toBe(1);
    expect(semantic.stderr).toContain('[semantic_unavailable]');
    expect(semantic.stderr).toMatch(/Retry with --mode keyword or --mode hybrid/);
    expect(semantic.stderr).not.toContain('search_mode');
  });
});

describe('serve', () => {
  async function rpc(url: string, token: string, method: string, params: unknown): Promise<{ status: number; body: { result?: unknown; error?: unknown } | null }> {
    const response = await fetch(new URL('/rpc', url), {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as { result?: unknown; error?: unknown }) : null };
  }

  it.each(['SIGTERM', 'SIGINT'] as const)('prints a one-time launch URL and the token location, serves RPC, and on %s finishes acknowledged writes and exits 0', async (signal) => {
    const home = await seededHome();
    const server = startCli(['serve', '--home', home, '--port', '0', '--no-ui']);
    const url = await server.firstLine;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?launch=[A-Za-z0-9_-]{43}$/);
    const token = readFileSync(join(home, 'gateway.token'), 'utf8').trim();
    expect(url).not.toContain(token);
    // The printed link is a working launch code, once.
    const visit = await fetch(url, { redirect: 'manual' });
    expect(visit.status).toBe(303);
    expect(visit.headers.get('set-cookie')).toMatch(/^recall_session_\d+=[^;]+; HttpOnly; SameSite=Strict; Path=\/$/);
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(403);
    const info = await rpc(url, token, 'gateway.info', {});
    expect(info.body?.result).toMatchObject({ profile: 'default' });
    // MCP clients are told to start this very installation: node and the CLI's own bin, which exists.
    const mcp = (info.body?.result as { mcpCommand: { command: string; args: string[] } }).mcpCommand;
    expect(mcp.command).toBe(process.execPath);
    expect(mcp.args[0]).toMatch(/apps\/cli\/bin\/recall\.js$/);
    expect(existsSync(mcp.args[0]!)).toBe(true);
    expect(mcp.args.slice(1)).toEqual(['mcp', '--home', home]);

    // A burst of appends, with the signal sent while many are still in flight.
    const sends = Array.from({ length: 60 }, (_, i) =>
      rpc(url, token, 'session.append', { sessionId: 's-alpha-1', role: 'user', content: `burst ${i}`, externalId: `burst-${i}` }).then(
        (r) => (r.status === 200 && r.body?.result ? i : null),
        () => null,
      ),
    );
    await sends[0];
    server.child.kill(signal);
    const acknowledged = (await Promise.all(sends)).filter((i): i is number => i !== null);
    const exit = await server.exit;
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stderr).toContain(join(home, 'gateway.token'));
    expect(exit.stderr).toContain(`${signal}, shutting down`);
    expect(acknowledged.length).toBeGreaterThan(0);

    const db = openDatabase(profileDatabasePath(home, 'default'));
    try {
      const stored = new Set(getMessages(db, 's-alpha-1').map((m) => m.externalId));
      for (const i of acknowledged) expect(stored.has(`burst-${i}`), `acknowledged append burst-${i} is stored`).toBe(true);
      expect(db.raw.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });

  it('a port in use is a clear error', async () => {
    const home = tempDir();
    const first = startCli(['serve', '--home', home, '--port', '0', '--no-ui']);
    const url = await first.firstLine;
    const port = new URL(url).port;
    const second = await runCli(['serve', '--home', home, '--port', port, '--no-ui']);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`port ${port} is in use; use --port N`);
    expect(second.stderr).toContain('[port_in_use]');
    expect(second.stderr).not.toMatch(/\n\s+at /); // no stack trace
    first.child.kill('SIGTERM');
    expect((await first.exit).code).toBe(0);
  });
});
