/**
 * Test support: real SQLite files in a fresh temp directory per test, opened through the one
 * openDatabase(); everything is closed and removed after each test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { openDatabase, type RecallDatabase } from '@recall/schema';

const opened: RecallDatabase[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'recall-semantic-'));
  dirs.push(dir);
  return dir;
}

export function tempDb(dir = tempDir(), name = 'recall.db'): RecallDatabase {
  const db = openDatabase(join(dir, name));
  opened.push(db);
  return db;
}

export function openAgain(path: string): RecallDatabase {
  const db = openDatabase(path);
  opened.push(db);
  return db;
}
