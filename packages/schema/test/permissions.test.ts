/**
 * File modes of what openDatabase() writes: the home, `profiles/` and the profile folder 0700 and
 * recall.db, -wal and -shm 0600, whatever the umask (000 included), and an existing file that others
 * can read is tightened on open. POSIX only (Windows has no mode bits).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { openDatabase, profileDatabasePath } from '../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'recall-perm-'));
  dirs.push(d);
  return d;
}
const mode = (path: string): number => statSync(path).mode & 0o777;

describe.skipIf(process.platform === 'win32')('openDatabase file modes', () => {
  test.each([0o000, 0o022, 0o002, 0o077])('umask %o: home, profiles/ and the profile folder 0700; recall.db, -wal, -shm 0600', (umask) => {
    const root = tempDir();
    const home = join(root, 'new-home');
    const path = profileDatabasePath(home, 'default');
    const previous = process.umask(umask);
    try {
      const db = openDatabase(path, { profile: 'default' });
      // A write makes sure -wal and -shm exist.
      db.raw.prepare("insert into sessions (id) values ('s1')").run();
      expect({
        home: mode(home),
        profiles: mode(join(home, 'profiles')),
        profile: mode(join(home, 'profiles', 'default')),
        db: mode(path),
        wal: mode(`${path}-wal`),
        shm: mode(`${path}-shm`),
      }).toEqual({ home: 0o700, profiles: 0o700, profile: 0o700, db: 0o600, wal: 0o600, shm: 0o600 });
      db.close();
    } finally {
      process.umask(previous);
    }
  });

  test('an existing database and sidecars readable by others are tightened to 0600 on open', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'p'));
    const path = join(dir, 'p', 'recall.db');
    const first = openDatabase(path);
    first.raw.prepare("insert into sessions (id) values ('s1')").run();
    first.close();
    writeFileSync(`${path}-wal`, '');
    for (const f of [path, `${path}-wal`]) chmodSync(f, 0o666);
    const again = openDatabase(path);
    expect([mode(path), mode(`${path}-wal`)]).toEqual([0o600, 0o600]);
    again.close();
  });

  test('a folder that already exists keeps its mode (openDatabase owns only what it creates)', () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    const db = openDatabase(join(dir, 'x.db'));
    expect(mode(dir)).toBe(0o755);
    expect(mode(join(dir, 'x.db'))).toBe(0o600);
    db.close();
  });
});
