/**
 * The drizzle schema of a profile database: projects, their folders, sessions and messages. This is
 * the source drizzle-kit generates migrations from; the FTS5 keyword index is custom SQL in
 * `drizzle/` because drizzle has no virtual-table support, and so are the semantic index's triggers
 * (0003_semantic_index.sql). Timestamps are integer milliseconds
 * since the epoch (UTC).
 */
import { sql } from 'drizzle-orm';
import { blob, check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { LINEAGE_KINDS, MESSAGE_ROLES, VISIBILITIES } from './enums.js';

const nowMs = sql`(cast(unixepoch('subsec') * 1000 as integer))`;

/** `projects`: one row per project (id `p_…`, unique `slug`, `archived` flag, ms timestamps). */
export const projects = sqliteTable(
  'projects',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    description: text('description'),
    color: text('color'),
    icon: text('icon'),
    archived: integer('archived', { mode: 'boolean' }).notNull().default(false),
    createdAt: integer('created_at').notNull().default(nowMs),
    updatedAt: integer('updated_at').notNull().default(nowMs),
  },
  (t) => [uniqueIndex('projects_slug_uq').on(t.slug)],
);

/** Folders are metadata (default cwd, repo discovery), never the membership rule. */
export const projectFolders = sqliteTable(
  'project_folders',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    isPrimary: integer('is_primary', { mode: 'boolean' }).notNull().default(false),
    createdAt: integer('created_at').notNull().default(nowMs),
  },
  // A normalised path belongs to at most one project, so "which project owns this folder" has one answer.
  (t) => [uniqueIndex('project_folders_path_uq').on(t.path), index('project_folders_project_idx').on(t.projectId)],
);

/**
 * `sessions`: one row per conversation segment. `projectId` (NULL = no project) is the only
 * membership rule; `parentSessionId` + `lineage` link continuations, branches, resets and delegations.
 */
export const sessions = sqliteTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    /** NULL = no project. The only membership rule; cwd/folders never decide it. */
    projectId: text('project_id').references(() => projects.id, { onDelete: 'restrict' }),
    parentSessionId: text('parent_session_id'),
    lineage: text('lineage', { enum: LINEAGE_KINDS }).notNull().default('root'),
    source: text('source').notNull().default('desktop'),
    title: text('title'),
    cwd: text('cwd'),
    gitRepoRoot: text('git_repo_root'),
    gitBranch: text('git_branch'),
    model: text('model'),
    startedAt: integer('started_at').notNull().default(nowMs),
    endedAt: integer('ended_at'),
    endReason: text('end_reason'),
    archived: integer('archived', { mode: 'boolean' }).notNull().default(false),
    hidden: integer('hidden', { mode: 'boolean' }).notNull().default(false),
    createdAt: integer('created_at').notNull().default(nowMs),
    updatedAt: integer('updated_at').notNull().default(nowMs),
  },
  (t) => [index('sessions_parent_idx').on(t.parentSessionId), index('sessions_project_idx').on(t.projectId, t.startedAt)],
);

/**
 * `messages`: the stored messages of a session, integer ids in insertion order. `visibility` says
 * whether readers see a row (live/compacted) or not (rewound/deleted); a rewind or a delete only
 * changes it, the row stays. The FTS5 keyword index over `content` is custom SQL (0002_keyword_index.sql).
 */
export const messages = sqliteTable(
  'messages',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sessionId: text('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    role: text('role', { enum: MESSAGE_ROLES }).notNull(),
    content: text('content').notNull().default(''),
    toolName: text('tool_name'),
    toolCalls: text('tool_calls'),
    toolCallId: text('tool_call_id'),
    externalId: text('external_id'),
    createdAt: integer('created_at').notNull().default(nowMs),
    visibility: text('visibility', { enum: VISIBILITIES }).notNull().default('live'),
    editedAt: integer('edited_at'),
    /**
     * For a copy made by createBranch: the message it was copied from. Lets the semantic index
     * reuse the source's vectors when the content hash matches (a branch costs no embedding
     * calls). No foreign key on purpose: the source may be deleted later and the copy stays valid,
     * and a FK here would make drizzle-kit rebuild the messages table (and its FTS triggers' world).
     */
    originMessageId: integer('origin_message_id'),
  },
  (t) => [
    index('messages_session_idx').on(t.sessionId, t.id),
    uniqueIndex('messages_session_external_uq').on(t.sessionId, t.externalId),
  ],
);

/**
 * Semantic index (stage B, packages/semantic). Everything below is DERIVED and rebuildable from
 * messages + config: dropping these rows loses no user data. Contract: /work/coord SEMANTIC-CONTRACT
 * (docs/architecture.md "Semantic index"). Triggers in 0003_semantic_index.sql keep the invariants.
 */

/** One row per embedding configuration; vectors of different fingerprints are never compared. Never holds a key. */
export const semanticFingerprints = sqliteTable('semantic_fingerprints', {
  id: integer('id').primaryKey(),
  /** sha256 of the canonical JSON of provider, endpoint, model, dims, normalization, chunker_version. */
  key: text('key').notNull().unique(),
  provider: text('provider').notNull(),
  endpoint: text('endpoint').notNull(),
  model: text('model').notNull(),
  dims: integer('dims').notNull(),
  normalization: text('normalization').notNull().default('l2'),
  chunkerVersion: integer('chunker_version').notNull(),
  createdAt: integer('created_at').notNull().default(nowMs),
});

/**
 * Explicit per-project consent. Text of a project is sent only when enabled = 1 AND `endpoint`
 * equals the active fingerprint's endpoint. `rerank_endpoint` = the reranker (`semantic.rerank`)
 * the consent named too (NULL = none was configured when it was given): search-time reranking
 * sends text only when it equals the configured rerank endpoint, so a reranker added or moved
 * later needs a new consent (migration 0006). `planned_fingerprint_id` = the fingerprint whose chunk
 * rows were last planned for every session of the project (NULL = never / rebuild requested).
 */
export const semanticProjects = sqliteTable('semantic_projects', {
  projectId: text('project_id')
    .primaryKey()
    .references(() => projects.id, { onDelete: 'cascade' }),
  enabled: integer('enabled', { mode: 'boolean' }).notNull().default(false),
  endpoint: text('endpoint').notNull(),
  enabledAt: integer('enabled_at'),
  updatedAt: integer('updated_at').notNull().default(nowMs),
  plannedFingerprintId: integer('planned_fingerprint_id'),
  rerankEndpoint: text('rerank_endpoint'),
});

/** Chunks of messages and their vectors. No project_id copy: the project is always JOINed via sessions. */
export const semanticChunks = sqliteTable(
  'semantic_chunks',
  {
    id: integer('id').primaryKey(),
    fingerprintId: integer('fingerprint_id')
      .notNull()
      .references(() => semanticFingerprints.id, { onDelete: 'cascade' }),
    messageId: integer('message_id')
      .notNull()
      .references(() => messages.id, { onDelete: 'cascade' }),
    sessionId: text('session_id').notNull(),
    chunkIndex: integer('chunk_index').notNull(),
    /** UTF-16 code units of messages.content, [start, end). */
    start: integer('start').notNull(),
    end: integer('end').notNull(),
    /** sha256 hex of the message content the chunk was cut from. */
    contentHash: text('content_hash').notNull(),
    chunkerVersion: integer('chunker_version').notNull(),
    /** Float32 little-endian, L2-normalised, dims*4 bytes; NULL until ready. */
    vector: blob('vector', { mode: 'buffer' }),
    status: text('status', { enum: ['pending', 'ready', 'failed'] }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    leaseOwner: text('lease_owner'),
    leaseUntil: integer('lease_until'),
    nextAttemptAt: integer('next_attempt_at'),
    createdAt: integer('created_at').notNull().default(nowMs),
    updatedAt: integer('updated_at').notNull().default(nowMs),
  },
  (t) => [
    uniqueIndex('semantic_chunks_uq').on(t.fingerprintId, t.messageId, t.contentHash, t.chunkIndex),
    index('semantic_chunks_fp_status_idx').on(t.fingerprintId, t.status),
    index('semantic_chunks_message_idx').on(t.messageId),
    index('semantic_chunks_session_idx').on(t.sessionId),
    check('semantic_chunks_status_ck', sql`${t.status} in ('pending', 'ready', 'failed')`),
  ],
);

/**
 * Sessions whose chunk rows may be out of date, drained by the planner. Filled by triggers for edits,
 * visibility changes, moves, hiding and consent, and by the discovery step for NEW messages (see
 * semanticMessageMark: an insert trigger on messages would slow every ingest, docs/benchmarks.md).
 */
export const semanticDirtySessions = sqliteTable('semantic_dirty_sessions', {
  sessionId: text('session_id').primaryKey(),
  seq: integer('seq').notNull().default(1),
});

/** Per project ('' = no project), bumped by triggers whenever the project's searchable vector set may change. */
export const semanticGeneration = sqliteTable('semantic_generation', {
  projectId: text('project_id').primaryKey(),
  gen: integer('gen').notNull().default(0),
});

/**
 * Work discovery for new messages: one row (id = 1) holding the highest messages.id already
 * looked at. messages.id is AUTOINCREMENT (never reused), so every message written after the mark
 * moved has a larger id; the semantic discovery step (packages/semantic/src/discovery.ts) queues the
 * sessions of switched-on projects among the messages above the mark and moves it, in one
 * transaction. Replaces an AFTER INSERT trigger on messages (migration 0004): any such trigger
 * makes each message INSERT a statement transaction, and FTS5 flushes its pending index at every
 * one (-30 % keyword ingest).
 */
export const semanticMessageMark = sqliteTable('semantic_message_mark', {
  id: integer('id').primaryKey(),
  lastMessageId: integer('last_message_id').notNull().default(0),
});
