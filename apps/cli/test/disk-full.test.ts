/**
 * A really full disk (issue 21.5), end to end: as root, a 3 MiB tmpfs is mounted as the Recall home
 * and `recall import` of a ~6 MB recall-jsonl file runs out of space part-way. The CLI says so in
 * plain words with the stable code `[disk_full]` and no stack trace, exits 1, and the counts it
 * reports as saved are exactly what the database holds (also as JSON with --json); reading still
 * works. Needs root and `mount -t tmpfs` (the CI runs as root); otherwise the suite is skipped and
 * its title says why. The same paths are tested without root by capping the database file
 * (`PRAGMA max_page_count`): packages/store, packages/importers and packages/gateway-rpc's
 * disk-full tests.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, profileDatabasePath } from '@recall/schema';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { assertCliBuilt, json, runCli } from './cli-helpers.js';

const root = mkdtempSync(join(tmpdir(), 'recall-tmpfs-'));
const mountPoint = join(root, 'home');
mkdirSync(mountPoint);
const canMount = process.getuid?.() === 0 && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=3m,mode=0700', 'tmpfs', mountPoint]).status === 0;

afterAll(() => {
  if (canMount) spawnSync('umount', [mountPoint]);
  rmSync(root, { recursive: true, force: true });
});

/** ~6 MB: 1 project, 30 conversations of 200 messages of ~1 KiB. */
function bigFile(): string {
  const lines = [JSON.stringify({ kind: 'project', id: 'p_full', name: 'Full disk' })];
  for (let s = 0; s < 30; s++) {
    lines.push(JSON.stringify({ kind: 'session', id: `s-${s}`, project_id: 'p_full', title: `conversation ${s}` }));
    for (let m = 0; m < 200; m++) lines.push(JSON.stringify({ kind: 'message', session_id: `s-${s}`, external_id: `m-${m}`, role: m % 2 ? 'assistant' : 'user', content: `${s}/${m} ${'lorem ipsum '.repeat(80)}` }));
  }
  const path = join(root, 'big.jsonl');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

function stored(home: string): { projects: number; sessions: number; messages: number } {
  const db = openDatabase(profileDatabasePath(home, 'default'), { readonly: true });
  try {
    const one = (sql: string) => db.raw.prepare(sql).pluck().get() as number;
    return { projects: one('select count(*) from projects'), sessions: one('select count(*) from sessions'), messages: one('select count(*) from messages') };
  } finally {
    db.close();
  }
}

describe.skipIf(!canMount)(`recall import on a full tmpfs${canMount ? '' : ' (skipped: needs root and mount -t tmpfs)'}`, () => {
  beforeAll(() => assertCliBuilt());

  test('plain message with [disk_full], no stack, exit 1; what it reports as saved is what the database holds', async () => {
    const file = bigFile();
    const home = mountPoint;
    const result = await runCli(['import', file, '--home', home, '--json'], { timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/disk .*full.*\[disk_full\]/i);
    expect(result.stderr).not.toMatch(/\n\s+at |internal_error|SqliteError|SQLITE_FULL/);
    const out = json<{ committed: { lines: number; projects: number; sessions: number; messages: number; lastCommittedLine: number }; error: { code: string } }>(result);
    expect(out.error.code).toBe('disk_full');
    expect(out.committed.lines).toBeLessThan(1 + 30 * 201);
    expect(stored(home)).toEqual({ projects: out.committed.projects, sessions: out.committed.sessions, messages: out.committed.messages });
    expect(result.stderr).toContain(`up to line ${out.committed.lastCommittedLine}`);
    // Reading a full disk still works.
    const listed = await runCli(['projects', '--home', home, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    // Without --json the same plain message (and still no stack).
    const again = await runCli(['import', file, '--home', home], { timeoutMs: 60_000 });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/\[disk_full\]/);
    expect(again.stderr).not.toMatch(/\n\s+at /);
    expect(execFileSync('df', ['-k', mountPoint]).toString()).toContain(mountPoint);
  }, 120_000);
});
