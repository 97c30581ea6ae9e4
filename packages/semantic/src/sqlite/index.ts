/**
 * `@recall/semantic/sqlite`: the SQLite adapter of the semantic index — the profile database's
 * semantic rows (fingerprints, consent, chunk rows, claims, the allowed set and its exact scan)
 * behind the storage ports' ChunkStore / ClaimQueue, and the SQLite-only compositions a host of a
 * profile database uses: the index, the search source with its synchronous status and certified
 * int8 scan over the matrix cache, and the reranker reading consent from the file. Everything
 * else — config, providers, the worker, status logic, the scan kernels — is the core
 * (`@recall/semantic`), which reads and writes only through the ports; the PostgreSQL side of the
 * same ports is @recall/store-postgres.
 */
/** Builds the `SemanticIndex` of a SQLite profile database (its fingerprint created at once). */
export { sqliteSemanticIndex } from './semantic-index.js';
/** What `sqliteSemanticIndex()` takes: the profile database and the index options. */
export type { SqliteSemanticIndexOptions } from './semantic-index.js';
/** The semantic rows of a profile database behind @recall/storage-ports (ChunkStore, ClaimQueue) on SQLite. */
export { sqliteSemanticStorage } from './sqlite-storage.js';
/** Options of `sqliteSemanticStorage()`: the process's matrix cache shared with the search source. */
export type { SqliteSemanticStorageOptions } from './sqlite-storage.js';
/** The semantic source of `session_search` for a profile database (null when semantic is off). */
export { createConfiguredSemanticSource } from './source.js';
/** What `createConfiguredSemanticSource()` takes: the database, the config, the query provider, the worker's health and a cache. */
export type { ConfiguredSourceOptions } from './source.js';
/** The reranker of a profile database (consent read from its rows; null unless configured and on). */
export { createConfiguredReranker } from './rerank.js';
/** What `createConfiguredReranker()` takes: the database, the config, the key and the redaction pass. */
export type { ConfiguredRerankerOptions } from './rerank.js';
