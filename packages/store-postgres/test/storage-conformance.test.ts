/**
 * The storage ports' conformance suite on the PostgreSQL adapter: one throwaway cluster for the
 * file, a fresh database per test, a second pool on the same database for the change feed (the same
 * suite runs on SQLite in packages/store and, with the semantic rows, in packages/semantic).
 */
import type { Storage } from '@recall/storage-ports';
import { describeStorageConformance } from '@recall/storage-ports/testing';
import { openPostgresStorage } from '../src/index.js';
import { useCluster } from './cluster.js';

const cluster = useCluster();
const urls = new WeakMap<Storage, string>();

describeStorageConformance(
  'postgres',
  async () => {
    const url = cluster.freshUrl();
    const storage = await openPostgresStorage({ kind: 'postgres', url });
    urls.set(storage, url);
    return storage;
  },
  { semantic: true, enforcedReadScope: true, reopen: (storage) => openPostgresStorage({ kind: 'postgres', url: urls.get(storage)! }) },
);
