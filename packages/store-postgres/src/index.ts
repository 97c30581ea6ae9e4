/**
 * @recall/store-postgres: Recall's team-mode storage on PostgreSQL (issue 19, foundations). Tables
 * mirroring @recall/schema, embedded migrations, a pg Pool, the message write path with its keyword
 * index, and project-scoped keyword search. Not yet behind the async storage ports (README).
 */

/** Opens a team database (pg Pool + drizzle) and applies pending migrations under an advisory lock. */
export { openPostgres } from './database.js';
/** Applies the embedded migrations to a pool (idempotent; openPostgres calls it). */
export { migratePostgres } from './database.js';
/** Advisory-lock key held while migrating. */
export { MIGRATION_LOCK_KEY } from './database.js';
/** An open team database, its drizzle type and openPostgres's options. */
export type { RecallPostgres, PostgresOrm, OpenPostgresOptions } from './database.js';

/**
 * The drizzle pg-core tables (`pgTables.projects`, `.projectFolders`, `.sessions`, `.messages`,
 * `.messageKeywords`): one namespace, so the names do not collide with @recall/schema's SQLite tables.
 */
export * as pgTables from './tables.js';

/** Appends messages to a session and writes their keyword-index rows in the same transaction. */
export { insertMessages } from './messages.js';
/** One message for insertMessages. */
export type { NewPostgresMessage } from './messages.js';

/** Keyword search inside one project, ranked with ts_rank, project filter before LIMIT. */
export { searchKeyword } from './keyword-search.js';
/** Defaults and bounds of searchKeyword. */
export { DEFAULT_PG_KEYWORD_LIMIT, MAX_PG_KEYWORD_LIMIT, DEFAULT_PG_SNIPPET_CHARS } from './keyword-search.js';
/** searchKeyword's arguments, hits and result. */
export type { PostgresKeywordSearch, PostgresKeywordHit, PostgresKeywordResult } from './keyword-search.js';

/** A message's document text (weight A body, weight B CJK unigrams) from the shared tokenizer. */
export { documentText } from './keyword-text.js';
/** The tsvector literal of a document (lexemes, positions, weights), as message_keywords stores it. */
export { tsvectorLiteral } from './keyword-text.js';
/** A user query as a tsquery literal over the same lexemes. */
export { keywordQuery } from './keyword-text.js';
/** One token as the index stores it (lower case, Latin diacritics removed, Porter stem; CJK unchanged). */
export { lexeme } from './keyword-text.js';
/** Tokenizer version written to message_keywords.tokenizer_version, and the indexed-length cap. */
export { PG_KEYWORD_TOKENIZER_VERSION, PG_MAX_INDEXED_CHARS } from './keyword-text.js';
/** documentText's and keywordQuery's results. */
export type { DocumentText, KeywordQuery } from './keyword-text.js';

/** Typed errors with stable codes. */
export { RecallPostgresError, InvalidPostgresUrlError, PostgresMigrationError, InvalidKeywordSearchError, DatabaseUnreachableError } from './errors.js';

/** The storage ports (@recall/storage-ports) on PostgreSQL: over an open team database, or opening one. */
export { postgresStorage, openPostgresStorage } from './adapter/storage.js';
/** The LISTEN/NOTIFY channel the change feed's triggers notify. */
export { CHANGE_CHANNEL } from './adapter/feed.js';
/** Runs a read-only transaction as role recall_scoped limited by row-level security to one project (or session list). */
export { scoped as scopedRead } from './adapter/tx.js';
/** The row-level-security scope of scopedRead. */
export type { RlsScope } from './adapter/tx.js';

/**
 * Builds the fingerprint's HNSW index when missing, measures its recall@10 in one project against
 * the exact search and records it in `semantic_ann`: ChunkStore.search uses the index for that
 * project only while the recorded recall is ≥ HNSW_MIN_RECALL (what `recall index hnsw` runs).
 */
export { measureHnswRecall } from './adapter/hnsw-gate.js';
/** Removes a project's HNSW measurement, so its searches are exact again (the index itself stays). */
export { closeHnswGate } from './adapter/hnsw-gate.js';
/** measureHnswRecall's result and its progress reports. */
export type { HnswMeasurement, HnswProgress } from './adapter/hnsw-gate.js';
/** The recall@10 against the exact search a project's HNSW measurement must reach (0.98). */
export { HNSW_MIN_RECALL } from './adapter/vector-ann.js';
/** The settings of one HNSW search (ef_search, iterative scan mode, max scan tuples). */
export type { HnswSettings } from './adapter/vector-ann.js';
