/**
 * The storage ports' conformance suite on the SQLite adapter: a real profile database file per test
 * (and a second connection on the same file for the change feed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Storage } from '@recall/storage-ports';
import { describeStorageConformance } from '@recall/storage-ports/testing';
import { afterAll } from 'vitest';
import { openSqliteStorage } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'recall-conformance-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const paths = new WeakMap<Storage, string>();
let n = 0;

describeStorageConformance(
  'sqlite',
  async () => {
    const path = join(dir, `db${++n}.db`);
    const storage = await openSqliteStorage({ kind: 'sqlite', path });
    paths.set(storage, path);
    return storage;
  },
  { reopen: (storage) => openSqliteStorage({ kind: 'sqlite', path: paths.get(storage)! }) },
);
