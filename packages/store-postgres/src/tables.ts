/**
 * The drizzle pg-core schema of a team database: the same tables and columns as the SQLite profile
 * database (packages/schema/src/tables.ts — a test compares the column names), plus the keyword
 * index. drizzle-kit generates drizzle/ from this file (`pnpm --filter @recall/store-postgres
 * db:generate`). Timestamps stay integer milliseconds since the epoch (bigint), so rows move
 * between the two stores unchanged. The semantic tables (pgvector) are not here yet.
 */
import { sql } from 'drizzle-orm';
import { bigint, boolean, customType, doublePrecision, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { LINEAGE_KINDS, MESSAGE_ROLES, VISIBILITIES } from './enums.js';

const nowMs = sql`((extract(epoch from clock_timestamp()) * 1000)::bigint)`;
const ms = (name: string) => bigint(name, { mode: 'number' });

/** PostgreSQL's full-text document type; drizzle has no built-in column for it. */
const tsvector = customType<{ data: string; driverData: string }>({ dataType: () => 'tsvector' });

export const projects = pgTable(
  'projects',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    description: text('description'),
    color: text('color'),
    icon: text('icon'),
    archived: boolean('archived').notNull().default(false),
    createdAt: ms('created_at').notNull().default(nowMs),
    updatedAt: ms('updated_at').notNull().default(nowMs),
  },
  (t) => [uniqueIndex('projects_slug_uq').on(t.slug)],
);

/** Folders are metadata (default cwd, repo discovery), never the membership rule. */
export const projectFolders = pgTable(
  'project_folders',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    isPrimary: boolean('is_primary').notNull().default(false),
    createdAt: ms('created_at').notNull().default(nowMs),
  },
  (t) => [uniqueIndex('project_folders_path_uq').on(t.path), index('project_folders_project_idx').on(t.projectId)],
);

export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    /** NULL = no project. The only membership rule; a project with sessions cannot be deleted. */
    projectId: text('project_id').references(() => projects.id, { onDelete: 'restrict' }),
    parentSessionId: text('parent_session_id'),
    lineage: text('lineage', { enum: LINEAGE_KINDS }).notNull().default('root'),
    source: text('source').notNull().default('desktop'),
    title: text('title'),
    cwd: text('cwd'),
    gitRepoRoot: text('git_repo_root'),
    gitBranch: text('git_branch'),
    model: text('model'),
    startedAt: ms('started_at').notNull().default(nowMs),
    endedAt: ms('ended_at'),
    endReason: text('end_reason'),
    archived: boolean('archived').notNull().default(false),
    hidden: boolean('hidden').notNull().default(false),
    createdAt: ms('created_at').notNull().default(nowMs),
    updatedAt: ms('updated_at').notNull().default(nowMs),
  },
  (t) => [index('sessions_parent_idx').on(t.parentSessionId), index('sessions_project_idx').on(t.projectId, t.startedAt)],
);

export const messages = pgTable(
  'messages',
  {
    /** An identity column: like SQLite's AUTOINCREMENT, ids only grow and are never reused. */
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    sessionId: text('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    role: text('role', { enum: MESSAGE_ROLES }).notNull(),
    content: text('content').notNull().default(''),
    toolName: text('tool_name'),
    toolCalls: text('tool_calls'),
    toolCallId: text('tool_call_id'),
    externalId: text('external_id'),
    createdAt: ms('created_at').notNull().default(nowMs),
    visibility: text('visibility', { enum: VISIBILITIES }).notNull().default('live'),
    editedAt: ms('edited_at'),
    /** For a copy made by a branch: the message it was copied from (no FK, as in SQLite). */
    originMessageId: bigint('origin_message_id', { mode: 'number' }),
  },
  (t) => [index('messages_session_idx').on(t.sessionId, t.id), uniqueIndex('messages_session_external_uq').on(t.sessionId, t.externalId)],
);

/**
 * The keyword index: one tsvector per message, built by keyword-text.ts from the SAME tokenizer
 * output as SQLite's FTS5 index (packages/store/src/search-text.ts indexColumns): weight A = `body`
 * (Latin words, Porter-stemmed, and CJK bigrams), weight B = `cjk` (CJK unigrams), each run through
 * `to_tsvector('simple', …)`. Derived data: `tokenizer_version` records which tokenizer wrote the
 * row, so a tokenizer change can re-index only stale rows.
 *
 * Denormalised from the message and its session (migration 0003), so the ranked query and its
 * row-level-security policy need no per-row join: `session_id`, `role`, `visibility` and the
 * session's `project_id`. They are kept true in the same transaction as every write that changes
 * them: appends and imports write them with the row (the session is locked FOR SHARE, so a move
 * waits), and triggers (migration 0004) rewrite `project_id` when a session moves and `visibility`
 * when a message is rewound, compacted or deleted. sessions.project_id stays the one membership
 * rule; these copies are an index of it. One GIN index over (project_id, document) (btree_gin)
 * finds a project's matches without walking its messages.
 */
export const messageKeywords = pgTable(
  'message_keywords',
  {
    messageId: bigint('message_id', { mode: 'number' })
      .primaryKey()
      .references(() => messages.id, { onDelete: 'cascade' }),
    document: tsvector('document').notNull(),
    tokenizerVersion: integer('tokenizer_version').notNull(),
    /** messages.session_id of the message (a message never changes session). */
    sessionId: text('session_id').notNull(),
    /** sessions.project_id of that session (NULL: no project); rewritten by a move (trigger). */
    projectId: text('project_id'),
    /** messages.role (never changes). */
    role: text('role', { enum: MESSAGE_ROLES }).notNull(),
    /** messages.visibility (trigger on messages). */
    visibility: text('visibility', { enum: VISIBILITIES }).notNull(),
  },
  (t) => [index('message_keywords_project_document_gin').using('gin', t.projectId, t.document), index('message_keywords_session_idx').on(t.sessionId)],
);


/**
 * pgvector's `vector` without a fixed dimension: one column holds the vectors of every fingerprint,
 * so fingerprints of different dimensions coexist; vectors are only ever compared within one
 * fingerprint (the allowed set filters by fingerprint_id first).
 */
const vector = customType<{ data: string; driverData: string }>({ dataType: () => 'vector' });

/** pgvector's `halfvec` (2 bytes per dimension) without a fixed dimension, like `vector`. */
const halfvec = customType<{ data: string; driverData: string }>({ dataType: () => 'halfvec' });

/**
 * The compact copy of a chunk vector the exact search's first stage ranks (migration 0011): the
 * vector rounded to halfvec, only for unit vectors (norm within 1e-3 of 1, the bound the search's
 * certificate assumes) of at most 1024 dimensions (so a covering index entry fits a B-tree page);
 * NULL otherwise, and such rows are always re-ranked exactly. Generated by PostgreSQL, so every
 * writer of `embedding` keeps it true.
 */
const EMBEDDING_HALF_SQL = sql`case when vector_dims(embedding) <= 1024 and vector_norm(embedding) between 0.999 and 1.001 then embedding::halfvec end`;

/** The non-secret identity of an embedding configuration (as @recall/semantic's fingerprints). */
export const semanticFingerprints = pgTable(
  'semantic_fingerprints',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    key: text('key').notNull(),
    provider: text('provider').notNull(),
    endpoint: text('endpoint').notNull(),
    model: text('model').notNull(),
    dims: integer('dims').notNull(),
    normalization: text('normalization').notNull().default('l2'),
    chunkerVersion: integer('chunker_version').notNull(),
    createdAt: ms('created_at').notNull().default(nowMs),
  },
  (t) => [uniqueIndex('semantic_fingerprints_key_unique').on(t.key)],
);

/**
 * Per-project consent naming the endpoint that may receive the project's text, and the reranker
 * (`rerank_endpoint`, NULL = none) it named too — the same meaning as SQLite's (migration 0006 here).
 */
export const semanticProjects = pgTable('semantic_projects', {
  projectId: text('project_id')
    .primaryKey()
    .references(() => projects.id, { onDelete: 'cascade' }),
  enabled: boolean('enabled').notNull().default(false),
  endpoint: text('endpoint').notNull(),
  enabledAt: ms('enabled_at'),
  updatedAt: ms('updated_at').notNull().default(nowMs),
  rerankEndpoint: text('rerank_endpoint'),
});

/**
 * The HNSW gate (migration 0011): recall@10 of a fingerprint's HNSW index in one project against the
 * exact search, with the settings that reached it. ChunkStore.search uses the index for the project
 * only while recall_at_10 ≥ 0.98 here and the index exists.
 */
export const semanticAnn = pgTable(
  'semantic_ann',
  {
    fingerprintId: bigint('fingerprint_id', { mode: 'number' })
      .notNull()
      .references(() => semanticFingerprints.id, { onDelete: 'cascade' }),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    efSearch: integer('ef_search').notNull(),
    iterativeScan: text('iterative_scan', { enum: ['off', 'relaxed_order', 'strict_order'] }).notNull(),
    maxScanTuples: integer('max_scan_tuples').notNull(),
    recallAt10: doublePrecision('recall_at_10').notNull(),
    queries: integer('queries').notNull(),
    chunks: bigint('chunks', { mode: 'number' }).notNull(),
    measuredAt: ms('measured_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.fingerprintId, t.projectId] })],
);

/**
 * Chunk rows of the semantic index: a UTF-16 range of a message, the sha256 of the message content
 * it was cut from, and its vector once embedded. A content edit deletes the message's rows
 * (trigger, migration 0002). `project_id`, `role` and `visibility` are copies of the session's
 * project and the message's role and visibility (migration 0003), kept true by the same triggers as
 * message_keywords (a move rewrites project_id, never the vector), so the allowed set and its
 * row-level-security policy are conditions on the chunk row itself.
 */
export const semanticChunks = pgTable(
  'semantic_chunks',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    fingerprintId: bigint('fingerprint_id', { mode: 'number' })
      .notNull()
      .references(() => semanticFingerprints.id, { onDelete: 'cascade' }),
    messageId: bigint('message_id', { mode: 'number' })
      .notNull()
      .references(() => messages.id, { onDelete: 'cascade' }),
    sessionId: text('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    chunkIndex: integer('chunk_index').notNull(),
    start: integer('start').notNull(),
    end: integer('end').notNull(),
    contentHash: text('content_hash').notNull(),
    chunkerVersion: integer('chunker_version').notNull(),
    embedding: vector('embedding'),
    status: text('status', { enum: ['pending', 'ready', 'failed'] }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    leaseOwner: text('lease_owner'),
    leaseUntil: ms('lease_until'),
    nextAttemptAt: ms('next_attempt_at'),
    createdAt: ms('created_at').notNull().default(nowMs),
    updatedAt: ms('updated_at').notNull().default(nowMs),
    /** sessions.project_id of the chunk's session (NULL: no project); rewritten by a move (trigger). */
    projectId: text('project_id'),
    /** messages.role of the chunk's message. */
    role: text('role', { enum: MESSAGE_ROLES }).notNull(),
    /** messages.visibility of the chunk's message (trigger on messages). */
    visibility: text('visibility', { enum: VISIBILITIES }).notNull(),
    /** `embedding` as halfvec for unit vectors of ≤ 1024 dimensions, else NULL (generated; migration 0011). */
    embeddingHalf: halfvec('embedding_half').generatedAlwaysAs(EMBEDDING_HALF_SQL),
  },
  (t) => [
    index('semantic_chunks_project_fp_idx').on(t.projectId, t.fingerprintId),
    uniqueIndex('semantic_chunks_uq').on(t.fingerprintId, t.messageId, t.contentHash, t.chunkIndex),
    index('semantic_chunks_fp_status_idx').on(t.fingerprintId, t.status),
    index('semantic_chunks_message_idx').on(t.messageId),
    index('semantic_chunks_session_idx').on(t.sessionId),
  ],
);

/**
 * The semantic planning queue (migration 0009): one row per write that may leave a session's chunk
 * rows out of date, inserted by triggers in the same transaction as every message insert (one row
 * per statement and session), edit, visibility/role change, move and unhide of a session of a
 * switched-on project. Writers only insert (no row a writer updates, so no writer ever waits on
 * another or on the planner); the planner leases rows with `FOR UPDATE SKIP LOCKED` (several
 * gateways plan at once), plans their sessions and deletes only the rows it leased, so a write
 * committed meanwhile leaves its own row behind and is planned at the next step.
 */
export const semanticPlanQueue = pgTable(
  'semantic_plan_queue',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    sessionId: text('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    leaseOwner: text('lease_owner'),
    leaseUntil: ms('lease_until'),
  },
  (t) => [index('semantic_plan_queue_session_idx').on(t.sessionId)],
);

/**
 * Which fingerprints a switched-on project's sessions were queued for (SQLite keeps one
 * planned_fingerprint_id per project): a project switched on (again) or a rebuild deletes its rows,
 * and the next planning step for a fingerprint without a row queues every session of the project once.
 */
export const semanticPlannedProjects = pgTable(
  'semantic_planned_projects',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    fingerprintId: bigint('fingerprint_id', { mode: 'number' })
      .notNull()
      .references(() => semanticFingerprints.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.fingerprintId] })],
);
