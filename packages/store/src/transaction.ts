/**
 * Write transactions. Every store mutation runs in `writeTransaction`, which is BEGIN IMMEDIATE: the
 * write lock is taken before anything is read, so a move and a compression continuation created
 * from two connections serialise and each reads the other's committed result (no stale
 * project_id). Nested calls become savepoints inside the outer transaction, so a caller may catch a
 * refused write and go on (the importer does, per line). `bulkWrite` is the batch path for ingest:
 * one all-or-nothing transaction whose nested calls run without savepoints, because FTS5 flushes
 * its pending index data at every savepoint (measured: ~26k vs ~19k messages/s, docs/benchmarks.md).
 */
import type { RecallDatabase } from '@recall/schema';
import type { Statement } from 'better-sqlite3';

const bulkConnections = new WeakSet<object>();

export function writeTransaction<T>(db: RecallDatabase, fn: () => T): T {
  if (db.raw.inTransaction) return bulkConnections.has(db.raw) ? fn() : db.raw.transaction(fn)();
  return db.raw.transaction(fn).immediate();
}

/**
 * Runs `fn` as one atomic batch: any error rolls the whole batch back. Store calls inside it take no
 * savepoints, so do not catch a store error inside the batch and continue — rethrow it.
 */
export function bulkWrite<T>(db: RecallDatabase, fn: () => T): T {
  if (db.raw.inTransaction) return writeTransaction(db, fn);
  bulkConnections.add(db.raw);
  try {
    return db.raw.transaction(fn).immediate();
  } finally {
    bulkConnections.delete(db.raw);
  }
}

export function readTransaction<T>(db: RecallDatabase, fn: () => T): T {
  if (db.raw.inTransaction) return fn();
  return db.raw.transaction(fn).deferred();
}

/** Per-connection prepared statement cache: statements are compiled once per handle. */
const caches = new WeakMap<object, Map<string, Statement>>();
export function prepared(db: RecallDatabase, sql: string): Statement {
  let cache = caches.get(db.raw);
  if (!cache) {
    cache = new Map();
    caches.set(db.raw, cache);
  }
  let stmt = cache.get(sql);
  if (!stmt) {
    stmt = db.raw.prepare(sql);
    cache.set(sql, stmt);
  }
  return stmt;
}
