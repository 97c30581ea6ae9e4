/**
 * Test support shared by every package that tests against real SQLite files: a fresh temp
 * directory per call and databases opened through the caller's opener (each package passes the one
 * `openDatabase()` of @recall/schema — this package depends on none of ours, so the opener is a
 * parameter). Everything opened or created is closed and removed after each test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

export interface TempDatabases<D> {
  /** A new empty directory, removed after the test. */
  tempDir(): string;
  /** A database file `name` in `dir` (default: a new temp directory), closed after the test. */
  tempDb(name?: string, dir?: string): D;
  /** Opens an existing path again (a second connection), closed after the test. */
  openAgain(path: string): D;
}

export function tempDatabases<D extends { close(): void }>(open: (path: string) => D, prefix: string): TempDatabases<D> {
  const opened: D[] = [];
  const dirs: string[] = [];
  afterEach(() => {
    for (const db of opened.splice(0)) db.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  const openAgain = (path: string): D => {
    const db = open(path);
    opened.push(db);
    return db;
  };
  return { tempDir, openAgain, tempDb: (name = 'recall.db', dir = tempDir()) => openAgain(join(dir, name)) };
}
