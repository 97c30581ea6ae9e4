/**
 * One throwaway PostgreSQL cluster per test file (started in beforeAll, stopped in afterAll) and a
 * fresh database per test. A cluster that cannot start fails the file with the reason: these tests
 * are never skipped (`node tooling/scripts/ensure-postgres.mjs` installs what they need).
 */
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { openPostgres, type OpenPostgresOptions, type RecallPostgres } from '../src/index.js';

export interface TestCluster {
  /** A new empty database's URL. */
  freshUrl(): string;
  /** openPostgres on a new database (or `url`), closed after the test. */
  open(url?: string, options?: OpenPostgresOptions): Promise<RecallPostgres>;
}

export function useCluster(): TestCluster {
  let cluster: ThrowawayPostgres | undefined;
  const opened: RecallPostgres[] = [];
  beforeAll(async () => {
    cluster = await startThrowawayPostgres();
  });
  afterEach(async () => {
    for (const db of opened.splice(0)) await db.close();
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  const freshUrl = (): string => {
    if (!cluster) throw new Error('the PostgreSQL cluster did not start (see the beforeAll error)');
    return cluster.createDatabase('recall');
  };
  return {
    freshUrl,
    async open(url = freshUrl(), options = {}) {
      const db = await openPostgres(url, options);
      opened.push(db);
      return db;
    },
  };
}
