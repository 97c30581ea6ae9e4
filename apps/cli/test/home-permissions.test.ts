/**
 * Private files, as users run Recall: every command (not only `serve`) leaves the home, `profiles/`
 * and the profile folder 0700 and recall.db/-wal/-shm 0600, under umask 000 too (the built CLI in a
 * real child process started through `sh -c "umask 000; …"`), and a home that others can read is
 * reported and tightened when the gateway or a command starts.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { assertCliBuilt, childEnv, CLI_PATH, cleanupTemp, FIXTURES, REPO_ROOT, runCli, startCli, tempDir } from './cli-helpers.js';
import { cleanup, startTestGateway } from './helpers.js';

beforeAll(() => assertCliBuilt());
afterEach(async () => {
  cleanupTemp();
  await cleanup();
});

const mode = (path: string): number => statSync(path).mode & 0o777;

/** Every folder and file under `root` that group or others can access, as "path mode" lines. */
function exposed(root: string): string[] {
  const found: string[] = [];
  const visit = (path: string) => {
    const stat = statSync(path);
    if ((stat.mode & 0o077) !== 0) found.push(`${path.slice(root.length) || '/'} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return found;
}

function cliUnderUmask(umask: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolveRun, rejectRun) => {
    const child = spawn('sh', ['-c', `umask ${umask} && exec "$0" "$@"`, process.execPath, CLI_PATH, ...args], { env: childEnv(), cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', rejectRun);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stderr });
    });
  });
}

describe.skipIf(process.platform === 'win32')('file modes', () => {
  test.each([
    ['000', ['import', join(FIXTURES, 'small.jsonl')]],
    ['022', ['import', join(FIXTURES, 'small.jsonl')]],
    ['000', ['import', join(FIXTURES, 'small.jsonl'), '--profile', 'work']],
    ['000', ['sync', '--once', '--claude-code', join(FIXTURES, 'claude-code'), '--project-per-folder']],
  ])('umask %s: recall %j creates the home and profiles/ 0700 and recall.db, -wal, -shm 0600', async (umask, args) => {
    const home = join(tempDir(), 'new-home');
    const result = await cliUnderUmask(umask, [...args, '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const profile = args.includes('work') ? 'work' : 'default';
    const db = join(home, 'profiles', profile, 'recall.db');
    const found: Record<string, number> = { home: mode(home), profiles: mode(join(home, 'profiles')), profile: mode(join(home, 'profiles', profile)), db: mode(db) };
    // The CLI closes the database cleanly, which checkpoints and removes -wal/-shm; whatever remains must be private.
    for (const suffix of ['-wal', '-shm']) if (existsSync(db + suffix)) found[suffix] = mode(db + suffix);
    for (const [name, m] of Object.entries(found)) expect([name, m.toString(8)]).toEqual([name, ['home', 'profiles', 'profile'].includes(name) ? '700' : '600']);
    // Nothing else the command wrote (sync checkpoints, the token, …) is open to others either.
    expect(exposed(home)).toEqual([]);
  });

  test('umask 000: recall serve creates a private home, token and database, and keeps them private while it runs', async () => {
    const home = join(tempDir(), 'new-home');
    const server = startCli(['serve', '--home', home, '--port', '0', '--no-ui'], { umask: '000' });
    const url = await server.firstLine;
    const token = readFileSync(join(home, 'gateway.token'), 'utf8').trim();
    const response = await fetch(new URL('/rpc', url), {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'projects.create', params: { name: 'P' } }),
    });
    expect(response.status).toBe(200);
    const db = join(home, 'profiles', 'default', 'recall.db');
    // While serving, the WAL sidecars exist and must be private too.
    expect([db, `${db}-wal`, `${db}-shm`, join(home, 'gateway.token')].map((p) => existsSync(p))).toEqual([true, true, true, true]);
    expect(exposed(home)).toEqual([]);
    server.child.kill('SIGTERM');
    const exit = await server.exit;
    expect(exit.code, exit.stderr).toBe(0);
    expect(exposed(home)).toEqual([]);
  });

  test('the gateway (umask of this test process) keeps -wal and -shm 0600 while it runs', async () => {
    const gw = await startTestGateway();
    await gw.call('projects.create', { name: 'P' });
    const db = join(gw.home, 'profiles', 'default', 'recall.db');
    expect([mode(db), mode(`${db}-wal`), mode(`${db}-shm`)].map((m) => m.toString(8))).toEqual(['600', '600', '600']);
  });

  test('start: a home and profiles/ readable by others are reported and tightened to 0700', async () => {
    const home = tempDir();
    mkdirSync(join(home, 'profiles'));
    chmodSync(home, 0o755);
    chmodSync(join(home, 'profiles'), 0o775);
    const gw = await startTestGateway({ home });
    expect(mode(home).toString(8)).toBe('700');
    expect(mode(join(home, 'profiles')).toString(8)).toBe('700');
    const warnings = gw.logs.filter((l) => l.level === 'warn').map((l) => l.message);
    expect(warnings).toEqual([expect.stringContaining('readable by other users (mode 755)'), expect.stringContaining('readable by other users (mode 775)')]);
  });

  test('a command: a home readable by others is reported on stderr and tightened', async () => {
    const home = tempDir();
    chmodSync(home, 0o750);
    const result = await runCli(['import', join(FIXTURES, 'small.jsonl'), '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('readable by other users (mode 750)');
    expect(mode(home).toString(8)).toBe('700');
  });
});
