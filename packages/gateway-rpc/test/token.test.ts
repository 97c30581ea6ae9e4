/**
 * The per-install token file: created 0600 on first use, reused afterwards, tightened if its mode
 * was loosened, rejected with a stable code if corrupted, identical across concurrent creators; and
 * the Bearer parsing / constant-time comparison used by both transports.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { bearerToken, ensureToken, tokenMatches, tokenPath, TokenFileError } from '../src/index.js';
import { cleanup, startTestGateway, tempHome } from './helpers.js';

afterEach(cleanup);

describe('ensureToken', () => {
  test('creates <home>/gateway.token with mode 0600 and reuses it', () => {
    const home = join(tempHome(), 'nested', 'home');
    const token = ensureToken(home);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(tokenPath(home)).mode & 0o777).toBe(0o600);
    expect(readFileSync(tokenPath(home), 'utf8').trim()).toBe(token);
    expect(ensureToken(home)).toBe(token);
  });

  test('tightens a loosened mode back to 0600', () => {
    const home = tempHome();
    const token = ensureToken(home);
    chmodSync(tokenPath(home), 0o644);
    expect(ensureToken(home)).toBe(token);
    expect(statSync(tokenPath(home)).mode & 0o777).toBe(0o600);
  });

  // A full disk: no stand-in works for root (it ignores modes), so assert that nothing is written at
  // all — the token file keeps its inode and mtime and the home directory (whose mtime any temp file
  // created and removed would bump) is untouched. Non-root also runs it on a read-only (0500) home.
  test('an existing valid token file is read, not rewritten (a full disk still starts the gateway)', async () => {
    const home = tempHome();
    const token = ensureToken(home);
    const past = new Date(Date.now() - 60_000);
    utimesSync(tokenPath(home), past, past);
    utimesSync(home, past, past);
    const before = statSync(tokenPath(home));
    const homeBefore = statSync(home);
    expect(ensureToken(home)).toBe(token);
    const after = statSync(tokenPath(home));
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(statSync(home).mtimeMs).toBe(homeBefore.mtimeMs);
    expect(readdirSync(home).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    const gw = await startTestGateway({ home });
    expect(gw.token).toBe(token);
    expect(statSync(tokenPath(home)).ino).toBe(before.ino);
    expect(statSync(tokenPath(home)).mtimeMs).toBe(before.mtimeMs);
  });

  test.skipIf(process.getuid?.() === 0 || process.platform === 'win32')('a read-only home with a valid token file still yields the token', () => {
    const home = tempHome();
    const token = ensureToken(home);
    chmodSync(home, 0o500);
    try {
      expect(ensureToken(home)).toBe(token);
    } finally {
      chmodSync(home, 0o700);
    }
  });

  test.each(['', 'short', 'has whitespace inside it but is otherwise long enough'])('a corrupt token file (%j) is a TokenFileError', (content) => {
    const home = tempHome();
    writeFileSync(tokenPath(home), content, { mode: 0o600 });
    expect(() => ensureToken(home)).toThrow(TokenFileError);
  });

  // Real processes run the built module (the test task depends on this package's build).
  test('concurrent processes creating the file agree on one token', async () => {
    const home = tempHome();
    const tokenModule = new URL('../dist/token.js', import.meta.url).href;
    expect(existsSync(fileURLToPath(tokenModule)), 'build the package first (turbo runs build before test)').toBe(true);
    const script = `import { ensureToken } from ${JSON.stringify(tokenModule)}; process.stdout.write(ensureToken(${JSON.stringify(home)}));`;
    const run = () =>
      new Promise<string>((resolve, reject) => {
        execFile(process.execPath, ['--input-type=module', '-e', script], { timeout: 30_000 }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
      });
    const tokens = await Promise.all(Array.from({ length: 6 }, run));
    expect(new Set(tokens).size).toBe(1);
    expect(readFileSync(tokenPath(home), 'utf8').trim()).toBe(tokens[0]);
  });

  test('the gateway uses the file token and two gateways on one home share it', async () => {
    const home = tempHome();
    const a = await startTestGateway({ home });
    const b = await startTestGateway({ home, profile: 'other' });
    expect(a.token).toBe(b.token);
    expect(readFileSync(tokenPath(home), 'utf8').trim()).toBe(a.token);
  });
});

describe('bearer parsing and comparison', () => {
  test.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER   abc  ', 'abc'],
    ['Bearer', null],
    ['Bearer a b', null],
    ['Basic abc', null],
    ['abc', null],
  ])('%j → %j', (header, expected) => {
    expect(bearerToken(header)).toBe(expected);
  });

  test('undefined and repeated headers carry no token', () => {
    expect(bearerToken(undefined)).toBeNull();
    expect(bearerToken(['Bearer a', 'Bearer b'])).toBeNull();
  });

  test('tokenMatches is exact', () => {
    expect(tokenMatches('secret-token', 'secret-token')).toBe(true);
    for (const candidate of ['secret-toke', 'secret-token ', 'SECRET-TOKEN', '', null, undefined]) expect(tokenMatches('secret-token', candidate)).toBe(false);
  });
});
