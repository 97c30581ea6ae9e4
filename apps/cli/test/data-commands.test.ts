/**
 * `recall backup`, `restore`, `export` and `delete` as child processes on real homes: a backup taken
 * while `recall serve` keeps writing restores to a consistent profile; restore refuses while serve
 * runs, a newer profile without --force, and files that are not Recall backups; export round-trips
 * through `recall import` into an empty home; delete asks, refuses without a terminal (exit 2),
 * and with --yes leaves no byte of the deleted text in the database files or a later backup.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, profileDatabasePath } from '@recall/schema';
import { assertCliBuilt, cleanupTemp, json, runCli, startCli, tempDir } from './cli-helpers.js';

beforeAll(assertCliBuilt);
afterEach(cleanupTemp);

const marker = `zq${randomBytes(10).toString('hex')}`;
const zh = '獬豸貔貅';

function jsonl(): string {
  return [
    { kind: 'project', id: 'p_alpha', name: 'Alpha', folders: ['/work/alpha'] },
    { kind: 'project', id: 'p_beta', name: 'Beta' },
    { kind: 'session', id: 's-1', project_id: 'p_alpha', title: 'Secret plan', started_at: 1_700_000_000_000 },
    { kind: 'message', session_id: 's-1', external_id: 'm1', role: 'user', content: `the token is ${marker} ${zh}`, created_at: 1_700_000_000_001 },
    { kind: 'message', session_id: 's-1', external_id: 'm2', role: 'assistant', content: 'noted', created_at: 1_700_000_000_002 },
    { kind: 'session', id: 's-1b', project_id: 'p_alpha', lineage: 'compression', parent_session_id: 's-1', title: 'Secret plan (cont.)' },
    { kind: 'message', session_id: 's-1b', external_id: 'm3', role: 'user', content: `again ${marker}`, visibility: 'rewound', created_at: 1_700_000_000_003 },
    { kind: 'session', id: 's-2', project_id: 'p_alpha', title: 'Keep' },
    { kind: 'message', session_id: 's-2', external_id: 'k1', role: 'user', content: 'ordinary words stay', created_at: 1_700_000_000_004 },
    { kind: 'session', id: 's-3', project_id: 'p_beta', title: 'Beta talk' },
    { kind: 'message', session_id: 's-3', external_id: 'b1', role: 'user', content: 'beta words', created_at: 1_700_000_000_005 },
  ]
    .map((l) => JSON.stringify(l))
    .join('\n');
}

async function home(): Promise<string> {
  const dir = tempDir();
  const file = join(dir, 'in.jsonl');
  writeFileSync(file, jsonl());
  const r = await runCli(['import', file, '--home', dir]);
  expect(r.code, r.stderr).toBe(0);
  return dir;
}

function rawHits(files: readonly string[]): string[] {
  return files.filter((f) => existsSync(f)).flatMap((f) => [marker.slice(0, 14), zh, '獬豸'].filter((n) => readFileSync(f).includes(Buffer.from(n))).map((n) => `${f}: ${n}`));
}

describe('backup and restore', () => {
  it('backs up while serve runs, refuses restore while serve runs, restores after, and checks the file', { timeout: 120_000 }, async () => {
    const h = await home();
    const server = startCli(['serve', '--home', h, '--port', '0', '--no-ui']);
    await server.firstLine;
    const full = join(h, 'full.db');
    const lean = join(h, 'lean.db');
    expect((await runCli(['backup', '--home', h, '--to', full])).code).toBe(0);
    const leanRun = await runCli(['backup', '--home', h, '--to', lean, '--without-index', '--json']);
    expect(leanRun.code, leanRun.stderr).toBe(0);
    expect(json<{ withoutIndex: boolean; bytes: number }>(leanRun)).toMatchObject({ withoutIndex: true });
    expect(existsSync(`${full}-wal`)).toBe(false);
    const again = await runCli(['backup', '--home', h, '--to', full]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('[backup_target_exists]');

    const busy = await runCli(['restore', lean, '--home', h]);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/in use by "recall serve" \(process \d+.*\[profile_in_use\]/s);
    server.child.kill('SIGTERM');
    expect((await server.exit).code).toBe(0);

    const restored = await runCli(['restore', lean, '--home', h]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain('Rebuilt the keyword index (5 messages)');
    const hit = await runCli(['search', '--home', h, '--session', 's-1', '--query', 'ordinary', '--json']);
    expect(hit.stdout).toContain('«ordinary» words stay');

    const text = join(h, 'notes.txt');
    writeFileSync(text, 'not a database');
    const bad = await runCli(['restore', text, '--home', h]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('it is not a SQLite database. [backup_invalid]');
  });

  it('refuses to replace a profile with newer changes unless --force', { timeout: 60_000 }, async () => {
    const h = await home();
    const backup = join(h, 'b.db');
    expect((await runCli(['backup', '--home', h, '--to', backup])).code).toBe(0);
    const db = openDatabase(profileDatabasePath(h, 'default'));
    db.raw.prepare('update projects set updated_at = ? where id = ?').run(Date.now() + 60_000, 'p_beta');
    db.close();
    const refused = await runCli(['restore', backup, '--home', h]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('[restore_target_newer]');
    expect(refused.stderr).toContain('--force');
    expect((await runCli(['restore', backup, '--home', h, '--force'])).code).toBe(0);
  });
});

describe('export', () => {
  it('recall-jsonl round-trips through import into an empty home; markdown is for people', { timeout: 60_000 }, async () => {
    const h = await home();
    const out = join(h, 'alpha.jsonl');
    const r = await runCli(['export', '--project', 'alpha', '--to', out, '--home', h]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Exported 3 session(s), 4 message(s)');
    const fresh = tempDir();
    const imported = await runCli(['import', out, '--home', fresh]);
    expect(imported.code, imported.stderr).toBe(0);
    const rows = (dir: string) => {
      const db = openDatabase(profileDatabasePath(dir, 'default'));
      try {
        return {
          sessions: db.raw.prepare("select id, project_id, parent_session_id, lineage, title, started_at, hidden, archived from sessions where project_id = 'p_alpha' order by id").all(),
          messages: db.raw.prepare("select m.session_id, m.external_id, m.role, m.content, m.visibility, m.created_at from messages m join sessions s on s.id = m.session_id where s.project_id = 'p_alpha' order by m.id").all(),
        };
      } finally {
        db.close();
      }
    };
    expect(rows(fresh)).toEqual(rows(h));
    const md = await runCli(['export', '--session', 's-1b', '--format', 'markdown', '--home', h]);
    expect(md.code).toBe(0);
    expect(md.stdout.startsWith('# Secret plan\n')).toBe(true);
    expect(md.stdout).not.toContain('ordinary words');
    const usage = await runCli(['export', '--home', h]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Give exactly one of --project P or --session S.');
  });
});

describe('delete', () => {
  it('refuses without a terminal (exit 2), then deletes for real with --yes', { timeout: 60_000 }, async () => {
    const h = await home();
    const refused = await runCli(['delete', '--session', 's-1', '--home', h]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('Nothing was deleted: there is no terminal to ask for confirmation. Add --yes');
    const path = profileDatabasePath(h, 'default');
    expect(rawHits([path, `${path}-wal`]).length).toBeGreaterThan(0);

    const done = await runCli(['delete', '--session', 's-1b', '--yes', '--home', h]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toBe('Deleted 2 sessions and 3 messages.\n');
    const backup = join(h, 'after.db');
    expect((await runCli(['backup', '--home', h, '--to', backup])).code).toBe(0);
    expect(rawHits([path, `${path}-wal`, `${path}-shm`, backup])).toEqual([]);
    const sessions = await runCli(['sessions', '--home', h, '--json']);
    expect(sessions.stdout).not.toContain('"s-1"');
  });

  it('deletes a project with its conversations', { timeout: 60_000 }, async () => {
    const h = await home();
    const r = await runCli(['delete', '--project', 'Beta', '--yes', '--home', h]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Deleted 1 session and 1 message and the project.\n');
    const projects = await runCli(['projects', '--home', h, '--json']);
    expect(projects.stdout).not.toContain('p_beta');
    expect(projects.stdout).toContain('p_alpha');
  });
});
