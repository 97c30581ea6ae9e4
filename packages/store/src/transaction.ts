/**
 * Write transactions. Every store mutation runs in `writeTransaction`, which is BEGIN IMMEDIATE: the
 * write lock is taken before anything is read, so a move and a compression continuation created
 * from two connections serialise and each reads the other's committed result (no stale
 * project_id). Nested calls become savepoints inside the outer transaction.
 */
import type { RecallDatabase } from '@recall/schema';
import type { Statement } from 'better-sqlite3';

export function writeTransaction<T>(db: RecallDatabase, fn: () => T): T {
  if (db.raw.inTransaction) return db.raw.transaction(fn)();
  return db.raw.transaction(fn).immediate();
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
