/**
 * Where an import writes: the storage ports (either adapter), or — as a convenience for SQLite
 * callers — an open profile database, which is wrapped in the SQLite adapter's ports. Every write
 * goes through the ports (`Storage.batches` for the batched writers).
 */
import type { RecallDatabase } from '@recall/schema';
import { StorageUnsupportedError, type Storage, type WriteBatches } from '@recall/storage-ports';
import { sqliteStorage } from '@recall/store';

/** A storage (SQLite or PostgreSQL) or an open SQLite profile database. */
export type ImportTarget = Storage | RecallDatabase;

const wrapped = new WeakMap<RecallDatabase, Storage>();

/** The storage ports of a target (one wrapper per open database). */
export function storageOf(target: ImportTarget): Storage {
  if ('sessions' in target && 'kind' in target) return target;
  const db = target as RecallDatabase;
  let storage = wrapped.get(db);
  if (!storage) wrapped.set(db, (storage = sqliteStorage(db)));
  return storage;
}

/** The storage's write batches; throws storage_unsupported when the adapter has none. */
export function batchesOf(storage: Storage): WriteBatches {
  if (!storage.batches) throw new StorageUnsupportedError(storage.kind, 'batched import writes');
  return storage.batches;
}
