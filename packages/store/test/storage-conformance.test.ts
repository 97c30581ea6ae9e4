/**
 * The storage ports' conformance suite on the SQLite adapter: a real profile database file per test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStorageConformance } from '@recall/storage-ports/testing';
import { afterAll } from 'vitest';
import { openSqliteStorage } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'recall-conformance-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

describeStorageConformance('sqlite', () => openSqliteStorage({ kind: 'sqlite', path: join(dir, `db${++n}.db`) }));
