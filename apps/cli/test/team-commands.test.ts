/**
 * The everyday commands on a PostgreSQL team database give what they give on a SQLite profile:
 * the demo file is imported into both, then each command runs in a child process on both and the
 * outputs are compared (the ids PostgreSQL or SQLite makes up are normalised). The commands that
 * change data (mv, projects create/add-folder/remove-folder) run in order on both, so every later
 * row also checks that the write landed the same; export and the hard deletes (delete, --purge-hidden)
 * are among them. Chat runs in `recall serve` on both against a loopback OpenAI-compatible server
 * (its session_search confined to the project), and two `recall serve --sync` on one team database
 * import the same transcripts once. What still refuses a team database says why in a sentence for
 * people; the password is never printed.
 */
import { mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import { lastToolResult, startScriptedOpenAI, type RecordedRequest } from '@recall/config/scripted-openai';
import { copyFixture } from '@recall/config/source-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt, cleanupTemp, PACKAGE_DIR, runCli, startCli, tempDir, type CliResult } from './cli-helpers.js';

const DEMO = join(PACKAGE_DIR, 'ui', 'demo', 'recall-demo.jsonl');
const SECRET = 'tEam-Pw7';
let cluster: ThrowawayPostgres;
let url = '';
let sqliteHome = '';
let teamHome = '';
/** Folders the project rows map (the same paths on both backends; nothing is created there). */
const FOLDER = '/srv/recall-team-test/notes';
const SECOND = '/srv/recall-team-test/notes-web';

const onSqlite = (args: readonly string[]) => runCli([...args, '--home', sqliteHome]);
const onTeam = (args: readonly string[]) => runCli([...args, '--home', teamHome, '--database', url]);

/** Ids made up at write time differ between the two databases; the demo's own ids (p_demo_…, demo-…) are kept. */
function normalise(text: string): string {
  return text
    .replace(/\bp_(?!demo_)[A-Za-z0-9_-]+/g, 'p_NEW')
    .replace(/"(createdAt|updatedAt)": \d+/g, '"$1": 0')
    // A SQLite purge also scrubs the file at once; PostgreSQL frees the rows at its next vacuum.
    .replace(/"scrubbed": (true|false)/g, '"scrubbed": "by backend"')
    // An exported message without an external id is named after its row id.
    .replace(/recall:\d+/g, 'recall:N')
    .replace(/exported \d{4}-\d\d-\d\d \d\d:\d\d UTC/g, 'exported DATE');
}

/**
 * Search output compared per conversation: which conversations, in which order, with which titles,
 * notes and result count. The anchor inside a conversation (and so its snippet) may differ: both
 * backends rank with the same bm25 formula and rules, but SQLite's index statistics (document count,
 * lengths, frequencies) are the whole profile's, while PostgreSQL counts only the caller's project —
 * it may not look at another project at all. On the demo data that picks the user's message on one
 * backend and the assistant's reply to it on the other, for 番茄炒蛋.
 */
function conversations(stdout: string): unknown {
  if (stdout.startsWith('{')) {
    const parsed = JSON.parse(stdout) as { results?: { session_id: string; title?: string; conversation_id?: string }[]; notes?: string[] };
    return { notes: parsed.notes, results: (parsed.results ?? []).map((r) => [r.session_id, r.title ?? null, r.conversation_id ?? null]) };
  }
  // The header, notes and each result's title line (" 1. title"); the lines under a result (anchor, snippet) are left out.
  return stdout.split('\n').filter((line) => !/^ {4}/.test(line));
}

const shown = (r: CliResult, search: boolean) => ({ code: r.code, stdout: search ? conversations(normalise(r.stdout)) : normalise(r.stdout), stderr: normalise(r.stderr) });

beforeAll(async () => {
  assertCliBuilt();
  cluster = await startThrowawayPostgres();
  url = cluster.createDatabase('recall').replace('postgresql://postgres@', `postgresql://postgres:${SECRET}@`);
  sqliteHome = tempDir('recall-team-sqlite-');
  teamHome = tempDir('recall-team-pg-');
  for (const r of await Promise.all([onSqlite(['import', DEMO]), onTeam(['import', DEMO])])) expect(r.code, r.stderr).toBe(0);
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
  cleanupTemp();
});

describe('the same output on a PostgreSQL team database as on a SQLite profile', () => {
  // In order: later rows see the writes of earlier ones, on both backends.
  const cases: [string, string[]][] = [
    ['projects', ['projects']],
    ['projects --all --json', ['projects', '--all', '--json']],
    ['sessions', ['sessions']],
    ['sessions of one project, JSON', ['sessions', '--project', '家常菜谱小程序', '--json']],
    ['sessions of an unknown project', ['sessions', '--project', '家常菜谱']],
    ['search in Chinese', ['search', '番茄炒蛋', '--project', '家常菜谱小程序']],
    ['search in Chinese, JSON', ['search', '番茄炒蛋', '--project', '家常菜谱小程序', '--json']],
    ['search in English', ['search', 'max depth', '--project', 'p_demo_grepline', '--limit', '3']],
    ['search: read a conversation', ['search', '--project', 'p_demo_grepline', '--read', 'demo-grepline-clap']],
    ['search by folder', ['search', '番茄', '--cwd', '/home/dev/src/jiachang-recipes/src']],
    ['search as an unknown session, JSON', ['search', 'x', '--session', 'no-such-session', '--json']],
    ['mv to another project', ['mv', 'demo-grepline-clap', '家常菜谱小程序']],
    ['mv again: nothing moved', ['mv', 'demo-grepline-clap', 'p_demo_recipes']],
    ['mv out of any project, JSON', ['mv', 'demo-grepline-clap', 'none', '--json']],
    ['sessions without a project', ['sessions', '--project', 'none']],
    ['projects create', ['projects', 'create', 'Team Notes', '--folder', FOLDER]],
    ['projects add-folder', ['projects', 'add-folder', 'team-notes', SECOND]],
    ['projects add-folder: already there', ['projects', 'add-folder', 'Team Notes', SECOND]],
    ['projects add-folder: the folder of another project', ['projects', 'add-folder', 'p_demo_tidy', FOLDER]],
    ['projects remove-folder', ['projects', 'remove-folder', 'team-notes', SECOND, '--json']],
    ['mv into the new project', ['mv', 'demo-grepline-clap', 'team-notes']],
    ['projects after the writes', ['projects']],
    ['export a project', ['export', '--project', 'p_demo_recipes']],
    ['export a conversation as Markdown', ['export', '--session', 'demo-grepline-borrow', '--format', 'markdown']],
    ['export an unknown session', ['export', '--session', 'no-such-session']],
    ['delete --purge-hidden in a project, JSON', ['delete', '--project', 'p_demo_tidy', '--purge-hidden', '--yes', '--json']],
    ['delete a conversation, JSON', ['delete', '--session', 'demo-recipes-images', '--yes', '--json']],
    ['delete a project with its conversations, JSON', ['delete', '--project', 'team-notes', '--yes', '--json']],
    ['delete it again', ['delete', '--project', 'team-notes', '--yes']],
    ['delete an unknown session', ['delete', '--session', 'no-such-session', '--yes']],
    ['delete without --yes and no terminal', ['delete', '--session', 'demo-tidy-forms']],
    ['sessions after the deletes', ['sessions']],
    ['projects after the deletes', ['projects', '--json']],
    ['export of what is left, Markdown', ['export', '--project', 'p_demo_tidy', '--format', 'markdown']],
  ];
  it.each(cases)('%s', async (_name, args) => {
    const [sqlite, team] = await Promise.all([onSqlite(args), onTeam(args)]);
    expect(`${team.stdout}${team.stderr}`).not.toContain(SECRET);
    const search = args[0] === 'search';
    expect(shown(team, search)).toEqual(shown(sqlite, search));
    expect(`${sqlite.stdout}${sqlite.stderr}`.length).toBeGreaterThan(0);
  }, 60_000);
});

describe('what differs on a team database, said for people', () => {
  it('index status: the keyword counts and the semantic line of SQLite (the same index.* methods on the team database)', async () => {
    const sqlite = await onSqlite(['index', 'status']);
    const team = await onTeam(['index', 'status']);
    expect(team.code, team.stderr).toBe(0);
    const line = (r: CliResult, start: string) => r.stdout.split('\n').find((l) => l.startsWith(start));
    expect(line(team, 'Keyword:')).toBe(line(sqlite, 'Keyword:'));
    expect(line(team, 'Keyword:')).toMatch(/ready — [1-9]\d* messages/);
    expect(line(team, 'Semantic:')).toBe(line(sqlite, 'Semantic:'));
    expect(team.stdout).not.toContain(SECRET);
    expect(team.stderr).not.toContain(SECRET);
  }, 60_000);

  it.each([
    ['backup', ['backup'], "a PostgreSQL team database is backed up with PostgreSQL's own tools: pg_dump"],
    ['restore', ['restore', '/nonexistent/recall.db'], 'restored with PostgreSQL\'s own tools from a pg_dump file: pg_restore'],
  ])('%s refuses with storage_unsupported', async (_name, args, why) => {
    const r = await onTeam(args);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(why);
    expect(r.stderr).toContain('[storage_unsupported]');
    expect(r.stderr).not.toContain(SECRET);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack
  }, 60_000);
});

/** `recall serve` in a child process; `call` answers a JSON-RPC result or `{ error: data.code }`. */
async function served(home: string, team: boolean, env: Record<string, string> = {}, extra: string[] = []) {
  const server = startCli(['serve', '--home', home, '--port', '0', '--no-ui', ...extra], { env: { ...(team ? { RECALL_DATABASE_URL: url } : {}), ...env } });
  const base = await server.firstLine;
  const token = readFileSync(join(home, 'gateway.token'), 'utf8').trim();
  const call = async (method: string, params: unknown): Promise<any> => {
    const response = await fetch(new URL('/rpc', base), {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await response.json()) as { result?: unknown; error?: { data?: { code?: string } } };
    return body.error !== undefined ? { error: body.error.data?.code } : body.result;
  };
  const stop = async (): Promise<CliResult> => {
    server.child.kill('SIGTERM');
    return server.exit;
  };
  return { call, stop };
}

describe('chat in recall serve on a team database, as on a profile', () => {
  it('answers, searches only its project, compresses and refuses the compressed session, the same on both', async () => {
    const run = async (home: string, team: boolean) => {
      const openai = await startScriptedOpenAI([
        { toolCalls: [{ name: 'session_search', arguments: { query: '番茄炒蛋' } }] },
        (request: RecordedRequest) => ({ text: `found ${(lastToolResult(request)?.results ?? []).map((r: { session_id: string }) => r.session_id).join(' ')}` }),
      ]);
      const env = { RECALL_CHAT_BASE_URL: openai.url, RECALL_CHAT_MODEL: 'scripted-model', RECALL_CHAT_API_KEY: 'sk-team-chat', OPENAI_API_KEY: '', OPENAI_BASE_URL: '' };
      const { call, stop } = await served(home, team, env);
      try {
        const chat = await call('session.create', { projectId: 'p_demo_recipes', title: 'team chat' });
        const sent = await call('chat.send', { sessionId: chat.id, content: '番茄炒蛋怎么做？', wait: true });
        const compressed = await call('chat.compress', { sessionId: chat.id });
        const late = await call('chat.send', { sessionId: chat.id, content: 'late', wait: true });
        const history = await call('session.page', { sessionId: chat.id, at: 'oldest', limit: 50 });
        return {
          status: sent.status,
          content: sent.content,
          tools: sent.toolCalls.map((t: { name: string; hits: number }) => [t.name, t.hits]),
          compressed: [compressed.previous.endReason, compressed.session.lineage, compressed.session.projectId],
          late,
          // The tool's answer per conversation (its anchor may differ: index statistics are per profile on SQLite, per project on PostgreSQL).
          history: history.messages.map((m: { role: string; content: string }) =>
            m.role === 'tool' ? [m.role, (JSON.parse(m.content) as { results: { session_id: string; title: string }[] }).results.map((r) => [r.session_id, r.title])] : [m.role, m.content],
          ),
          stderr: normalise((await stop()).stderr).split('\n').filter((l) => l.includes('Chat model:')).map((l) => l.replace(/127\.0\.0\.1:\d+/, 'HOST')),
        };
      } finally {
        await stop();
        await openai.close();
      }
    };
    const sqlite = await run(sqliteHome, false);
    const team = await run(teamHome, true);
    expect(team).toEqual(sqlite);
    expect(sqlite.status).toBe('completed');
    expect(sqlite.content).toMatch(/^found demo-recipes-/); // found in its own project …
    expect(sqlite.content).not.toMatch(/grepline|tidy|scratch/); // … and nowhere else
    expect(sqlite.late).toEqual({ error: 'chat_session_ended' });
    expect(sqlite.stderr).toEqual(['  Chat model:      scripted-model at http://HOST/v1']);
  }, 90_000);
});

describe('recall serve --sync: two gateways on one team database import the same transcripts once', () => {
  it('stores what one recall sync stores on a profile, with no duplicate', async () => {
    // The transcripts are found at the default place under HOME (~/.claude/projects).
    const userHome = tempDir('recall-team-user-');
    mkdirSync(join(userHome, '.claude'), { recursive: true });
    renameSync(copyFixture('claude-code', tempDir('recall-team-fixture-')), join(userHome, '.claude', 'projects'));
    const env = { HOME: userHome };
    const profile = tempDir('recall-team-sync-sqlite-');
    const once = await runCli(['sync', '--once', '--home', profile], { env });
    expect(once.code, once.stderr).toBe(0);
    const expected = await runCli(['sessions', '--json', '--home', profile]);

    url = cluster.createDatabase('recall').replace('postgresql://postgres@', `postgresql://postgres:${SECRET}@`);
    const gateways = await Promise.all([tempDir('recall-team-sync-a-'), tempDir('recall-team-sync-b-')].map((home) => served(home, true, env, ['--sync'])));
    const listed = () => runCli(['sessions', '--json', '--home', teamHome, '--database', url]);
    let team = await listed();
    for (const until = Date.now() + 30_000; Date.now() < until && normalise(team.stdout) !== normalise(expected.stdout); ) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      team = await listed();
    }
    const stopped = await Promise.all(gateways.map((g) => g.stop()));
    for (const r of stopped) {
      expect(r.stderr).toContain('recall serve: syncing claude-code');
      expect(r.stderr).not.toContain('storage_unsupported');
      expect(r.stderr).not.toContain(SECRET);
    }
    expect(team.code, team.stderr).toBe(0);
    expect(normalise(team.stdout)).toEqual(normalise(expected.stdout));
    const parsed = JSON.parse(expected.stdout) as { sessions?: unknown[] } | unknown[];
    expect((Array.isArray(parsed) ? parsed : (parsed.sessions ?? [])).length).toBeGreaterThan(0);
  }, 90_000);
});
