/**
 * Public surface of @recall/storage-ports: the async storage interfaces of Recall, named after what
 * they own — ProjectStore, SessionStore (lineage, moves, logical conversations), MessageStore
 * (append, edits, windows, pages), KeywordIndex (the project-scoped ranked keyword query),
 * ChunkStore and ClaimQueue (the semantic index's derived rows and leased work), ChangeFeed
 * (outside writes) — the Storage bundle and openStorage(). Types only, plus the ports' own typed
 * errors: @recall/store implements them on SQLite, @recall/store-postgres on PostgreSQL, and
 * `@recall/storage-ports/testing` is the conformance suite both run.
 */
/** Projects and folders. */
export type { ProjectStore, NewProject, ProjectChanges, AddFolderOptions } from './projects.js';
/** Sessions, ownership, lineage, logical conversations. */
export type {
  SessionStore,
  SessionRecord,
  SessionChanges,
  NewSession,
  SessionUpsert,
  SessionListOptions,
  ConversationNode,
  ConversationListOptions,
  RecentScope,
  RecentOptions,
  RecentConversationEntry,
  RecentConversationList,
  LineageOptions,
} from './sessions.js';
/** Messages, windows and pages. */
export type { MessageStore, MessageInput, AppendOutcome, WindowSlice, HeadAndTail, PagePosition, MessageSlice } from './messages.js';
/** One window of MessageStore.windows (a batch of window reads). */
export type { WindowRequest } from './messages.js';
/** The project-scoped keyword query. */
export type { KeywordIndex, KeywordQueryScope, KeywordQueryOptions, KeywordMatch, KeywordTitleMatch, KeywordAnswer } from './keyword.js';
/** Semantic chunk rows and claims. */
export type {
  ChunkStore,
  ClaimQueue,
  FingerprintSpec,
  ChunkPlan,
  ChunkScope,
  ChunkHit,
  ChunkSearchOptions,
  ProjectConsentState,
  ChunkCountsByStatus,
  ClaimedChunkWork,
  ClaimRequest,
  CompletionOutcome,
} from './semantic.js';
/** Scoped reads of a project's allowed set for an in-process vector cache (optional on ChunkStore). */
export type { ProjectVectorSource, ProjectVectorReads, AllowedSetRows, AllowedRoleRows, StoredChunkRow } from './semantic.js';
/** The embedding worker's planning step and a project's index counts. */
export type { PlanWorkRequest, PlanWorkResult, IndexCounts } from './semantic.js';
/** Whole-profile transfers (`recall migrate`): reading rows with their ids, importing them unchanged, counting. */
export type { TransferSource, BulkImport, StorageCounts, TransferredConsent } from './bulk.js';
/** Many writes in one transaction (importers): the batch stores, programs and their steps. */
export type { WriteBatches, BatchStores, BatchProgram, BatchStep, BatchRunOptions, Awaitable } from './batches.js';
/** Batch program steps: a store call (`yield* call(…)`) and a savepoint-isolated sub-program (`yield* isolate(…)`). */
export { batchCall, batchIsolate } from './batches.js';
/** The adapters' drivers of batch programs: synchronous (SQLite) and awaiting (PostgreSQL). */
export { driveBatchSync, driveBatchAsync } from './batches.js';

/** Deleting for real (conversations, projects with their conversations, hidden messages). */
export type { PurgeStore, PurgeOutcome, ProjectPurgeOptions } from './purges.js';

/** Counts and samples for status screens. */
export type { StorageStats, KeywordCounts, TextSampleOptions } from './stats.js';
/** Outside writes. */
export type { ChangeFeed, ChangeSubscription, StorageChange } from './feed.js';
/** The bundle, its configuration and the openers. */
export type { Storage, SemanticStorage, StorageKind, StorageConfig, StorageOpener, StorageOpeners, ReadScope } from './storage.js';
/** Runs a function on the storage's read scope when it has one (withReadScope), else on the storage itself. */
export { withReadScope } from './storage.js';
/** Picks and opens the adapter for a configuration. */
export { openStorage } from './storage.js';
/** A connection URL with its password masked, for logs and errors. */
export { redactStorageUrl } from './storage.js';
/** The ports' typed errors and the stable codes every adapter throws. */
export { StoragePortError, StorageConfigError, StorageUnavailableError, StorageUnsupportedError } from './errors.js';
/** Error codes (see StorageErrorCode, StoragePortErrorCode). */
export type { StorageErrorCode, StoragePortErrorCode } from './errors.js';
