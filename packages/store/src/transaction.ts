/**
 * Write transactions. Every store mutation runs in `writeTransaction`, which is BEGIN IMMEDIATE: the
 * write lock is taken before anything is read, so a move and a compression continuation created
 * from two connections serialise and each reads the other's committed result (no stale
 * project_id). Nested calls become savepoints inside the outer transaction, so a caller may catch a
 * refused write and go on (the importer does, per line). `bulkWrite` is the batch path for ingest:
 * one all-or-nothing transaction whose nested calls run without savepoints, because FTS5 flushes
 * its pending index data at every savepoint (measured: ~26k vs ~19k messages/s, docs/benchmarks.md).
 * A write that fails for want of space (SQLITE_FULL, ENOSPC) leaves both as a `DiskFullError`
 * (`disk_full`), whichever statement or the COMMIT hit it.
 */
import type { RecallDatabase } from '@recall/schema';
import type { Statement } from 'better-sqlite3';
import { asDiskFullError } from './errors.js';

const bulkConnections = new WeakSet<object>();

/**
 * Runs `fn` in a write transaction (BEGIN IMMEDIATE: the write lock is taken before anything is read)
 * and returns its result; a throw rolls back and rethrows. Nested inside another transaction it
 * becomes a savepoint, so a caller may catch a refused store write and go on. Waits up to the
 * database's busy timeout for the lock, then throws SQLITE_BUSY; a full disk throws DiskFullError.
 */
export function writeTransaction<T>(db: RecallDatabase, fn: () => T): T {
  try {
    if (db.raw.inTransaction) return bulkConnections.has(db.raw) ? fn() : db.raw.transaction(fn)();
    return db.raw.transaction(fn).immediate();
  } catch (error) {
    throw asDiskFullError(error);
  }
}

/**
 * Runs `fn` as one atomic batch for ingest (many appends): any error rolls the whole batch back.
 * Store calls inside it take no savepoints (faster: FTS5 flushes at every savepoint), so do not catch
 * a store error inside the batch and continue — rethrow it.
 */
export function bulkWrite<T>(db: RecallDatabase, fn: () => T): T {
  if (db.raw.inTransaction) return writeTransaction(db, fn);
  bulkConnections.add(db.raw);
  try {
    return db.raw.transaction(fn).immediate();
  } catch (error) {
    throw asDiskFullError(error);
  } finally {
    bulkConnections.delete(db.raw);
  }
}

/**
 * Runs `fn` in a read transaction (BEGIN DEFERRED) so several reads see one snapshot; inside another
 * transaction it just calls `fn`.
 */
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
