/**
 * Test support for the PostgreSQL semantic tests of one storage: a throwaway cluster (tooling/config
 * startThrowawayPostgres) and its storage with one test fingerprint, opened before the file's tests
 * and closed after them.
 */
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import type { Storage } from '@recall/storage-ports';
import { openPostgresStorage } from '@recall/store-postgres';
import { afterAll, beforeAll } from 'vitest';

/**
 * Registers the file's beforeAll/afterAll: starts a cluster, opens a storage on a fresh database,
 * ensures the fingerprint (provider 't', model 'm', `dims`, l2, chunker 1, at `endpoint`) and hands
 * both to `ready`; stops everything after the file.
 */
export function usePostgresSemantic(dims: number, endpoint: string, ready: (storage: Storage, fingerprintId: number) => void): void {
  let cluster: ThrowawayPostgres | undefined;
  let storage: Storage | undefined;
  beforeAll(async () => {
    cluster = await startThrowawayPostgres();
    storage = await openPostgresStorage({ kind: 'postgres', url: cluster.createDatabase('recall') });
    ready(storage, await storage.semantic!.chunks.ensureFingerprint({ provider: 't', endpoint, model: 'm', dims, normalization: 'l2', chunkerVersion: 1 }));
  }, 120_000);
  afterAll(async () => {
    await storage?.close();
    await cluster?.stop();
  });
}
