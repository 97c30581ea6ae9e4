/**
 * Live sync through the built CLI (`recall sync` in a child process on a temp home): lines appended
 * to a watched transcript are searchable within 5 s; a line written in two parts is imported once
 * it is complete; a restart resumes from the saved offsets without duplicates; a rewritten
 * (rotated) file is re-read and only its new lines are added. Plus `--once` on a Hermes store
 * resuming from its message cursor, and `--once` passing a line over the line cap: printed, saved in
 * sync-state.json, the other file synced, not read again by the next run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, profileDatabasePath } from '@recall/schema';
import { createSessionSearchTool } from '@recall/search-tool';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { assertCliBuilt, childEnv, CLI_PATH, cleanupTemp, runCli, tempDir } from './cli-helpers.js';
import { ccLine, hermesDb, hermesExec } from '@recall/config/source-fixtures';
import { MAX_LINE_BYTES } from '@recall/importers';

beforeAll(() => assertCliBuilt());
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }
  cleanupTemp();
});

const SID = '7d000000-0000-4000-8000-000000000001';

function startSync(home: string, dir: string): { child: ChildProcess; stderr: () => string } {
  const child = spawn(process.execPath, [CLI_PATH, 'sync', '--home', home, '--claude-code', dir, '--project-per-folder', '--interval', '500'], { env: childEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return { child, stderr: () => stderr };
}

async function stopSync(child: ChildProcess): Promise<number | null> {
  child.kill('SIGTERM');
  return new Promise((r) => child.once('exit', (code) => r(code)));
}

function messageCount(home: string): number {
  try {
    const db = openDatabase(profileDatabasePath(home, 'default'), { readonly: true });
    try {
      return db.raw.prepare('select count(*) from messages').pluck().get() as number;
    } finally {
      db.close();
    }
  } catch {
    return 0; // not created yet
  }
}

/** Searches as a project-wide caller until `query` is found or `ms` passed; returns the elapsed ms or null. */
async function searchableWithin(home: string, query: string, ms: number): Promise<number | null> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    try {
      const db = openDatabase(profileDatabasePath(home, 'default'), { readonly: true });
      try {
        const projectId = db.raw.prepare("select project_id from sessions where id = ?").pluck().get(SID) as string | undefined;
        if (projectId) {
          const r = await createSessionSearchTool({ db }).execute({ query, search_mode: 'keyword' }, { projectId });
          if (r.results.length > 0) return Date.now() - started;
        }
      } finally {
        db.close();
      }
    } catch {
      // the database is being created
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

describe('recall sync', () => {
  test('appended lines are searchable within 5 s; a split line waits for its end; a restart adds no duplicates', async () => {
    const home = tempDir('recall-sync-home-');
    const dir = join(tempDir('recall-sync-src-'), 'projects');
    const folder = join(dir, '-work-live');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, `${SID}.jsonl`);
    writeFileSync(file, `${ccLine(SID, 'l1', 'user', 'first line about the zebra migration')}\n`);

    const first = startSync(home, dir);
    expect(await searchableWithin(home, 'zebra', 10_000), first.stderr()).not.toBeNull();

    appendFileSync(file, `${ccLine(SID, 'l2', 'assistant', 'the quokka index is rebuilt nightly')}\n`);
    const elapsed = await searchableWithin(home, 'quokka', 5_000);
    expect(elapsed, first.stderr()).not.toBeNull();
    expect(elapsed!).toBeLessThan(5_000);

    // A line written in two parts: nothing of it before its newline, all of it after.
    const split = ccLine(SID, 'l3', 'user', 'the pangolin cache is split across writes');
    appendFileSync(file, split.slice(0, 60));
    await new Promise((r) => setTimeout(r, 1500));
    expect(messageCount(home)).toBe(2);
    appendFileSync(file, `${split.slice(60)}\n`);
    expect(await searchableWithin(home, 'pangolin', 5_000), first.stderr()).not.toBeNull();
    expect(await stopSync(first.child)).toBe(0);
    expect(messageCount(home)).toBe(3);
    // The offset persisted is the end of the file: a restart reads nothing old again.
    const saved = JSON.parse(readFileSync(join(home, 'profiles', 'default', 'sync-state.json'), 'utf8')) as { files: Record<string, { offset: number }> };
    expect(saved.files[file]!.offset).toBe(statSync(file).size);

    // Restart: resumes from the saved offset — nothing is imported twice — and follows new lines.
    const second = startSync(home, dir);
    appendFileSync(file, `${ccLine(SID, 'l4', 'assistant', 'the okapi deploy is on friday')}\n`);
    expect(await searchableWithin(home, 'okapi', 5_000), second.stderr()).not.toBeNull();
    await new Promise((r) => setTimeout(r, 1200));
    expect(messageCount(home)).toBe(4);

    // Rotation: the file is replaced by a rewritten copy with one more line; only that line is new.
    const rotated = `${file}.new`;
    writeFileSync(rotated, [1, 2, 3, 4].map((i) => ccLine(SID, `l${i}`, 'user', `line ${i}`)).join('\n') + `\n${ccLine(SID, 'l5', 'user', 'the tapir rotation line')}\n`);
    renameSync(rotated, file);
    expect(await searchableWithin(home, 'tapir', 5_000), second.stderr()).not.toBeNull();
    expect(await stopSync(second.child)).toBe(0);
    expect(messageCount(home)).toBe(5);
  }, 90_000);

  test('--once on a Hermes store resumes from its message cursor', async () => {
    const home = tempDir('recall-sync-hermes-');
    const path = hermesDb(join(tempDir('hermes-'), 'state.db'));
    const first = await runCli(['sync', '--once', '--hermes', path, '--home', home]);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ messages: 14 });
    hermesExec(path, "insert into messages (session_id, role, content, timestamp) values ('20250902_080000_ff66', 'user', 'one more', 1756800020.0);");
    // No source flags: the saved configuration is used.
    const second = await runCli(['sync', '--once', '--home', home]);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ messages: 1 });
    expect(messageCount(home)).toBe(15);
  });

  test('recall serve --sync follows the sources saved by recall sync', async () => {
    const home = tempDir('recall-serve-sync-');
    const dir = join(tempDir('recall-sync-src-'), 'projects');
    mkdirSync(join(dir, '-work-live'), { recursive: true });
    const file = join(dir, '-work-live', `${SID}.jsonl`);
    writeFileSync(file, `${ccLine(SID, 's1', 'user', 'seeded before serve')}\n`);
    const once = await runCli(['sync', '--once', '--claude-code', dir, '--project-per-folder', '--home', home]);
    expect(once.code, once.stderr).toBe(0);
    const serve = spawn(process.execPath, [CLI_PATH, 'serve', '--no-ui', '--port', '0', '--sync', '--home', home], { env: childEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(serve);
    let stderr = '';
    serve.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    for (let i = 0; i < 100 && !stderr.includes('syncing'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(stderr).toContain(`syncing claude-code ${dir} (saved configuration)`);
    appendFileSync(file, `${ccLine(SID, 's2', 'assistant', 'the narwhal flag ships in serve mode')}\n`);
    expect(await searchableWithin(home, 'narwhal', 5_000), stderr).not.toBeNull();
    expect(await stopSync(serve)).toBe(0);
  }, 60_000);

  test('--once: a line over the cap is printed, saved in the sync state and passed; the other file syncs', async () => {
    const home = tempDir('recall-sync-cap-');
    const dir = join(tempDir('recall-sync-src-'), 'projects');
    mkdirSync(join(dir, '-work-a'), { recursive: true });
    mkdirSync(join(dir, '-work-b'), { recursive: true });
    const SB = '7d000000-0000-4000-8000-000000000002';
    const fileA = join(dir, '-work-a', `${SID}.jsonl`);
    const fileB = join(dir, '-work-b', `${SB}.jsonl`);
    writeFileSync(fileA, `${ccLine(SID, 'a1', 'user', 'a first')}\n${ccLine(SID, 'a2', 'user', 'x'.repeat(MAX_LINE_BYTES))}\n${ccLine(SID, 'a3', 'assistant', 'a after')}\n`);
    writeFileSync(fileB, `${ccLine(SB, 'b1', 'user', 'b first')}\n`);
    const first = await runCli(['sync', '--once', '--claude-code', dir, '--home', home]);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ messages: 3, errors: 1, filesRead: 2, errorList: [{ file: fileA, line: 2, code: 'line_too_long' }] });
    expect(first.stderr).toContain(`${fileA}:2: [line_too_long] Line is `);
    const state = JSON.parse(readFileSync(join(home, 'profiles', 'default', 'sync-state.json'), 'utf8')) as { errors: { file: string; line: number; code: string }[] };
    expect(state.errors).toEqual([expect.objectContaining({ file: fileA, line: 2, code: 'line_too_long' })]);

    appendFileSync(fileB, `${ccLine(SB, 'b2', 'assistant', 'b second')}\n`);
    const second = await runCli(['sync', '--once', '--home', home]);
    expect(JSON.parse(second.stdout)).toMatchObject({ messages: 1, errors: 0, filesRead: 1, errorList: [] });
    expect(messageCount(home)).toBe(4);
  }, 60_000);
});
