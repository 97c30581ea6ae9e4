/**
 * `recall import` and `recall sync` on a PostgreSQL team database (`--database URL` or
 * RECALL_DATABASE_URL) through the built CLI in child processes and a real throwaway PostgreSQL:
 * the same transcripts give the same summary as into a SQLite profile, a re-run imports nothing,
 * `--dry-run` writes nothing, sync resumes from its checkpoints, and the password is never printed.
 */
import { join } from 'node:path';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import { copyFixture } from '@recall/config/source-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt, cleanupTemp, FIXTURES, PACKAGE_DIR, runCli, runNode, tempDir } from './cli-helpers.js';

/** Counts in the team database, read in a child process (pg's CJS/ESM pair does not load in this package's vitest). */
async function pgCounts(url: string): Promise<{ projects: number; sessions: number; messages: number }> {
  const script = `import { openPostgresStorage } from '@recall/store-postgres';
const pg = await openPostgresStorage({ kind: 'postgres', url: process.env.TEST_PG_URL });
try { const c = await pg.transfer.counts(); process.stdout.write(JSON.stringify({ projects: c.projects, sessions: c.sessions, messages: c.messages })); } finally { await pg.close(); }`;
  const r = await runNode(['--input-type=module', '-e', script], { cwd: PACKAGE_DIR, env: { TEST_PG_URL: url }, timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`postgres check failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { projects: number; sessions: number; messages: number };
}

const SECRET = 's3cret-Pw9';
let cluster: ThrowawayPostgres;
const freshUrl = () => cluster.createDatabase('recall').replace('postgresql://postgres@', `postgresql://postgres:${SECRET}@`);

beforeAll(async () => {
  assertCliBuilt();
  cluster = await startThrowawayPostgres();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
  cleanupTemp();
});

interface Summary {
  sessions: number;
  messages: number;
  skipped: number;
  projectsCreated: number;
  conversations: number;
  errorCount: number;
}
const parse = (stdout: string) => JSON.parse(stdout) as Summary;

describe('recall import on PostgreSQL', () => {
  it('claude-code: the same summary as into a SQLite profile, a re-run imports nothing, the password never shown', async () => {
    const dir = copyFixture('claude-code', tempDir('recall-pg-cc-'));
    const url = freshUrl();
    const args = ['import', '--from', 'claude-code', dir, '--project-per-folder', '--json'];
    const sqlite = await runCli([...args, '--home', tempDir('recall-pg-home-')]);
    const dry = await runCli([...args, '--dry-run', '--home', tempDir('recall-pg-home-'), '--database', url]);
    expect(await pgCounts(url)).toEqual({ projects: 0, sessions: 0, messages: 0 });
    const first = await runCli([...args, '--home', tempDir('recall-pg-home-'), '--database', url]);
    const again = await runCli([...args, '--home', tempDir('recall-pg-home-')], { env: { RECALL_DATABASE_URL: url } });
    for (const r of [sqlite, dry, first, again]) {
      expect(r.code).toBe(1); // the fixture's truncated last line is a refused line (import_line_errors)
      expect(`${r.stdout}${r.stderr}`).not.toContain(SECRET);
    }
    const pick = (s: Summary) => ({ sessions: s.sessions, messages: s.messages, projectsCreated: s.projectsCreated, conversations: s.conversations, errorCount: s.errorCount });
    expect(pick(parse(first.stdout))).toEqual(pick(parse(sqlite.stdout)));
    expect(pick(parse(dry.stdout))).toEqual(pick(parse(sqlite.stdout)));
    expect(parse(first.stdout).messages).toBeGreaterThan(0);
    expect(parse(again.stdout)).toMatchObject({ sessions: 0, messages: 0, projectsCreated: 0, skipped: parse(first.stdout).messages });
    expect(await pgCounts(url)).toEqual({ projects: parse(first.stdout).projectsCreated, sessions: parse(first.stdout).sessions, messages: parse(first.stdout).messages });
  }, 120_000);

  it('recall-jsonl: imported into the team database, human summary without the password', async () => {
    const url = freshUrl();
    const r = await runCli(['import', join(FIXTURES, 'small.jsonl'), '--home', tempDir('recall-pg-home-'), '--database', url]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/messages inserted: +[1-9]/);
    expect(`${r.stdout}${r.stderr}`).not.toContain(SECRET);
    const counts = await pgCounts(url);
    expect(counts.projects).toBe(2);
    expect(counts.messages).toBeGreaterThan(0);
  }, 60_000);
});

describe('recall sync on PostgreSQL', () => {
  it('--once imports into the team database; the next pass resumes from the checkpoints and imports nothing', async () => {
    const dir = copyFixture('claude-code', tempDir('recall-pg-sync-'));
    const url = freshUrl();
    const home = tempDir('recall-pg-home-');
    const args = ['sync', '--once', '--claude-code', dir, '--project-per-folder', '--home', home, '--database', url];
    const first = await runCli(args);
    expect(first.code).toBe(0);
    const pass = JSON.parse(first.stdout) as { messages: number; sessions: number };
    expect(pass.messages).toBeGreaterThan(0);
    expect(first.stderr).toContain('postgres');
    expect(`${first.stdout}${first.stderr}`).not.toContain(SECRET);
    const second = await runCli(args);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ messages: 0, sessions: 0 });
    expect((await pgCounts(url)).messages).toBe(pass.messages);
  }, 120_000);
});
