/**
 * The drizzle schema of a profile database: projects, their folders, sessions and messages. This is
 * the source drizzle-kit generates migrations from; the FTS5 keyword index is custom SQL in
 * `drizzle/` because drizzle has no virtual-table support. Timestamps are integer milliseconds
 * since the epoch (UTC).
 */
import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { LINEAGE_KINDS, MESSAGE_ROLES, VISIBILITIES } from './enums.js';

const nowMs = sql`(cast(unixepoch('subsec') * 1000 as integer))`;

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
  },
  (t) => [
    index('messages_session_idx').on(t.sessionId, t.id),
    uniqueIndex('messages_session_external_uq').on(t.sessionId, t.externalId),
  ],
);
