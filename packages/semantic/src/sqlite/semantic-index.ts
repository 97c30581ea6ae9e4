/**
 * The `SemanticIndex` of a SQLite profile database: the core index (../semantic-index.ts) over
 * the profile's projects and semantic rows behind the ports (sqlite-storage.ts), with the one
 * synchronous step the SQLite path keeps — the active fingerprint is created while the index is
 * constructed, so a SQLite index is ready at once (no `await SemanticIndex.open()`).
 */
import type { RecallDatabase } from '@recall/schema';
import { SemanticIndex, type SemanticIndexOptions } from '../semantic-index.js';
import { sqliteIndexStorage } from './sqlite-storage.js';

/** What `sqliteSemanticIndex()` takes: the profile database instead of `storage`, and the rest of `SemanticIndexOptions`. */
export interface SqliteSemanticIndexOptions extends Omit<SemanticIndexOptions, 'storage'> {
  /** The SQLite profile database (openDatabase() of @recall/schema). */
  db: RecallDatabase;
}

/**
 * The semantic index of a SQLite profile database (what `new SemanticIndex({ db })` was): its
 * storage is the database's projects and semantic rows, its active fingerprint is created at once
 * when semantic is configured and on. Constructing never calls the model.
 */
export function sqliteSemanticIndex(options: SqliteSemanticIndexOptions): SemanticIndex {
  const { db, ...rest } = options;
  const sqlite = sqliteIndexStorage(db);
  return new SemanticIndex({ ...rest, storage: sqlite.storage, fingerprint: sqlite.ensureFingerprint });
}
