/**
 * The PostgreSQL adapter of @recall/storage-ports: `openPostgresStorage({ kind: 'postgres', url })`
 * opens a pool (migrating under the advisory lock) and returns every port, semantic rows included.
 */
import type { Storage, StorageConfig } from '@recall/storage-ports';
import { openPostgres, type RecallPostgres } from '../database.js';
import { postgresBulkImport, postgresTransferSource } from './bulk.js';
import { postgresChangeFeed } from './feed.js';
import { postgresKeyword } from './keyword.js';
import { postgresMessages } from './messages.js';
import { postgresProjects } from './projects.js';
import { postgresChunks, postgresClaims } from './semantic.js';
import { postgresSessions } from './sessions.js';
import { postgresStats } from './stats.js';
import { guardPort } from './unreachable.js';

/** The storage ports over an open team database; close() ends the feed's connections and, with `ownsPool`, the pool. */
export function postgresStorage(db: RecallPostgres, url: string, options: { ownsPool?: boolean } = {}): Storage {
  const feed = postgresChangeFeed(url);
  let closed = false;
  return {
    kind: 'postgres',
    // A lost connection surfaces as the typed retryable storage_unavailable (unreachable.ts).
    projects: guardPort(postgresProjects(db.pool)),
    sessions: guardPort(postgresSessions(db.pool)),
    messages: guardPort(postgresMessages(db.pool)),
    keyword: guardPort(postgresKeyword(db.pool)),
    changes: feed,
    semantic: { chunks: guardPort(postgresChunks(db.pool)), claims: guardPort(postgresClaims(db.pool)) },
    transfer: guardPort(postgresTransferSource(db.pool)),
    bulk: guardPort(postgresBulkImport(db.pool)),
    stats: guardPort(postgresStats(db.pool)),
    async close() {
      if (closed) return;
      closed = true;
      await feed.closeAll();
      if (options.ownsPool) await db.close();
    },
  };
}

/** Opens a team database (pool + migrations) and returns its storage ports; close() ends the pool. */
export async function openPostgresStorage(config: Extract<StorageConfig, { kind: 'postgres' }>): Promise<Storage> {
  const db = await openPostgres(config.url, config.maxConnections === undefined ? {} : { maxConnections: config.maxConnections });
  return postgresStorage(db, config.url, { ownsPool: true });
}
