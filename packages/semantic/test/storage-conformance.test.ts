/**
 * The storage ports' conformance suite's semantic part on SQLite (the rest runs in packages/store): @recall/store's
 * adapter plus this package's sqliteSemanticStorage, on a real profile database file per test, without and with a matrix cache.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@recall/schema';
import { sqliteStorage } from '@recall/store';
import { describeStorageConformance } from '@recall/storage-ports/testing';
import { afterAll } from 'vitest';
import { MatrixCache } from '../src/matrix-cache.js';
import { sqliteSemanticStorage } from '../src/sqlite/index.js';

const dir = mkdtempSync(join(tmpdir(), 'recall-semantic-conformance-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

describeStorageConformance(
  'sqlite + semantic',
  async () => {
    const db = openDatabase(join(dir, `db${++n}.db`));
    return { ...sqliteStorage(db, { ownsDatabase: true }), semantic: sqliteSemanticStorage(db) };
  },
  { semantic: true, only: ['semantic'] },
);

// The same with a matrix cache (the serving path): searches scan the cached copy of a project's
// allowed set, rebuilt when its semantic_generation changes.
describeStorageConformance(
  'sqlite + semantic, cached',
  async () => {
    const db = openDatabase(join(dir, `db${++n}.db`));
    return { ...sqliteStorage(db, { ownsDatabase: true }), semantic: sqliteSemanticStorage(db, { cache: new MatrixCache() }) };
  },
  { semantic: true, only: ['semantic'] },
);
