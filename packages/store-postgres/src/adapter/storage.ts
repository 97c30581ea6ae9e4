/**
 * The PostgreSQL adapter of @recall/storage-ports: `openPostgresStorage({ kind: 'postgres', url })`
 * opens a pool (migrating under the advisory lock) and returns every port, semantic rows included.
 */
import type { ReadScope, SessionStore, Storage, StorageConfig } from '@recall/storage-ports';
import { openPostgres, type RecallPostgres } from '../database.js';
import { postgresWriteBatches } from './batches.js';
import { postgresBulkImport, postgresTransferSource } from './bulk.js';
import { segmentsAndRootsOn } from './conversations.js';
import { postgresChangeFeed } from './feed.js';
import { postgresKeyword } from './keyword.js';
import { postgresMessages } from './messages.js';
import { postgresProjects } from './projects.js';
import { postgresPurges } from './purges.js';
import { postgresChunks, postgresClaims } from './semantic.js';
import { postgresSessions } from './sessions.js';
import { postgresStats } from './stats.js';
import type pg from 'pg';
import { asUnreachable, guardPort } from './unreachable.js';
import { scoped, scopedPool, type RlsScope, type Tx } from './tx.js';

/** The row-level-security scope of a port ReadScope (an empty session list sees nothing). */
function rlsOf(scope: ReadScope): RlsScope {
  if (scope?.kind === 'project' && typeof scope.projectId === 'string') return { projectId: scope.projectId };
  if (scope?.kind === 'sessions') return { sessionIds: (scope.sessionIds ?? []).filter((id): id is string => typeof id === 'string') };
  return { sessionIds: [] }; // an unknown scope kind sees nothing
}

/**
 * The stores over one client inside a `scoped()` transaction (withReadScope): every read of `fn`
 * runs in that transaction, limited by row-level security; writes are refused (read-only).
 */
function scopedStorage(client: Tx, feed: Storage['changes'], root: pg.Pool): Storage {
  const pool = scopedPool(client, root);
  const storage: Storage = {
    kind: 'postgres',
    projects: postgresProjects(pool),
    sessions: withRootsOfSegments(postgresSessions(pool), pool),
    messages: postgresMessages(pool),
    keyword: postgresKeyword(pool),
    changes: feed,
    semantic: { chunks: postgresChunks(pool), claims: postgresClaims(pool) },
    withReadScope: (_scope, fn) => fn(storage), // already scoped: a nested scope never widens the outer one
    close: async () => {},
  };
  return storage;
}

/**
 * Inside one read scope: segmentsOf and conversationRoots each read both facts of their sessions
 * in one statement (segmentsAndRootsOn; the search tool asks for both, for the same ids, one after
 * the other), and the second answers from the first's rows without a round trip. Kept for that
 * one scope only (never across calls or transactions).
 */
function withRootsOfSegments(sessions: SessionStore, pool: pg.Pool): SessionStore {
  const segments = new Map<string, string[]>();
  const roots = new Map<string, string>();
  const seen = new Set<string>();
  const read = async (ids: readonly string[]): Promise<void> => {
    if (ids.every((id) => seen.has(id))) return;
    const both = await segmentsAndRootsOn(pool, ids);
    for (const id of ids) seen.add(id);
    for (const [id, chain] of both.segments) segments.set(id, chain);
    for (const [id, root] of both.roots) roots.set(id, root);
  };
  const pick = <V>(from: Map<string, V>, ids: readonly string[]): Map<string, V> => {
    const out = new Map<string, V>();
    for (const id of ids) {
      const v = from.get(id);
      if (v !== undefined) out.set(id, v);
    }
    return out;
  };
  return {
    ...sessions,
    async segmentsOf(ids) {
      await read(ids);
      return pick(segments, ids);
    },
    async conversationRoots(ids) {
      await read(ids);
      return pick(roots, ids);
    },
  };
}

/** The scoped stores with lost connections typed, as the pool's are. */
function guardStorage(storage: Storage): Storage {
  return {
    ...storage,
    projects: guardPort(storage.projects),
    sessions: guardPort(storage.sessions),
    messages: guardPort(storage.messages),
    keyword: guardPort(storage.keyword),
  };
}

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
    batches: guardPort(postgresWriteBatches(db.pool)),
    purges: guardPort(postgresPurges(db.pool)),
    withReadScope: (scope, fn) => scoped(db.pool, rlsOf(scope), (client) => fn(guardStorage(scopedStorage(client, feed, db.pool)))).catch((error: unknown) => Promise.reject(asUnreachable(error))),
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
