/**
 * The everyday commands on a PostgreSQL team database give what they give on a SQLite profile:
 * the demo file is imported into both, then each command runs in a child process on both and the
 * outputs are compared (the ids PostgreSQL or SQLite makes up are normalised). The commands that
 * change data (mv, projects create/add-folder/remove-folder) run in order on both, so every later
 * row also checks that the write landed the same. What still refuses a team database says why in a
 * sentence for people; the password is never printed.
 */
import { join } from 'node:path';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt, cleanupTemp, PACKAGE_DIR, runCli, tempDir, type CliResult } from './cli-helpers.js';

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
    .replace(/"(createdAt|updatedAt)": \d+/g, '"$1": 0');
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
    ['export', ['export', '--project', 'p_demo_recipes'], 'PostgreSQL storage is not served by this command yet'],
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
