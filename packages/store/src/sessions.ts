/**
 * Sessions and their ownership attribute. Creation stores the chosen project (or NULL) together with
 * any first messages in one transaction, so a UI draft persisted on its first message keeps the
 * project it was drafted in; resume reads the stored project; upsert distinguishes `projectId`
 * omitted (keep) from `null` (clear); cwd/git changes never touch project_id. Compression and
 * delegation children always share their conversation's project (read inside the write
 * transaction); branch and reset inherit at creation only. An archived project keeps its
 * conversations and their continuations but accepts no brand-new conversation.
 */
import { LINEAGE_KINDS, type LineageKind } from '@recall/rpc-contract';
import { CONVERSATION_EDGES, newSessionId, type RecallDatabase } from '@recall/schema';
import { z } from 'zod';
import { nowMs } from './clock.js';
import { LineageError, SessionAlreadyCompressedError, SessionExistsError, SessionNotFoundError, ValidationError } from './errors.js';
import { insertMessages } from './messages.js';
import { setSessionProject } from './moves.js';
import { assertProjectAcceptsSessions } from './projects.js';
import { SESSION_COLUMNS, toSession, toSessionHeader, type Session, type SessionHeader, type SessionRow } from './rows.js';
import { prepared, writeTransaction } from './transaction.js';
import { idSchema, newMessageSchema, parseInput, text, titleSchema, toWellFormed } from './validation.js';

const sessionIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'session ids are 1-128 characters of letters, digits, . _ : -');
const pathField = text(4096).nullish();

const sessionFieldsSchema = z.object({
  title: titleSchema.nullish(),
  cwd: pathField,
  gitRepoRoot: pathField,
  gitBranch: text(500).nullish(),
  model: text(200).nullish(),
  source: z.string().min(1).max(64).transform(toWellFormed).optional(),
  startedAt: z.number().int().nonnegative().optional(),
  endedAt: z.number().int().nonnegative().nullish(),
  endReason: text(200).nullish(),
  archived: z.boolean().optional(),
  hidden: z.boolean().optional(),
});

/**
 * The session fields `updateSession` can change (title ≤ 500, cwd/gitRepoRoot ≤ 4096, gitBranch, model,
 * source, startedAt/endedAt in ms, endReason, archived, hidden); omitted fields keep their value, `null`
 * clears a nullable one. The project is changed only by `setSessionProject`.
 */
export type UpdateSessionFields = z.input<typeof sessionFieldsSchema>;

const createSessionSchema = sessionFieldsSchema.extend({
  id: sessionIdSchema.optional(),
  projectId: idSchema.nullish(),
  parentSessionId: idSchema.nullish(),
  lineage: z.enum(LINEAGE_KINDS).optional(),
  messages: z.array(newMessageSchema).max(100_000).optional(),
});
/**
 * Input of `createSession`: every UpdateSessionFields field plus `id` (1-128 letters, digits, `. _ : -`;
 * default a new `s_…` id), `projectId` (null/omitted = no project), `parentSessionId` + `lineage`
 * (default `root`) and up to 100,000 first `messages` stored in the same transaction.
 */
export type CreateSessionInput = z.input<typeof createSessionSchema>;

const upsertSessionSchema = createSessionSchema.extend({ id: sessionIdSchema });
/** Input of `upsertSession`: CreateSessionInput with a required `id`. */
export type UpsertSessionInput = z.input<typeof upsertSessionSchema>;

const SESSION_SELECT = `select ${SESSION_COLUMNS} from sessions s`;

/** The session with this id (with its visible-message count and last message time), or undefined. */
export function findSession(db: RecallDatabase, sessionId: string): Session | undefined {
  const row = prepared(db, `${SESSION_SELECT} where s.id = ?`).get(sessionId) as SessionRow | undefined;
  return row ? toSession(row) : undefined;
}

/**
 * The session's own row only (no message aggregates): one primary-key read whatever its length; undefined
 * when there is no such session.
 */
export function findSessionHeader(db: RecallDatabase, sessionId: string): SessionHeader | undefined {
  const row = prepared(db, 'select s.* from sessions s where s.id = ?').get(sessionId) as SessionRow | undefined;
  return row ? toSessionHeader(row) : undefined;
}

/** Like findSessionHeader, but throws SessionNotFoundError when there is no such session. */
export function getSessionHeader(db: RecallDatabase, sessionId: string): SessionHeader {
  const session = findSessionHeader(db, sessionId);
  if (!session) throw new SessionNotFoundError(sessionId);
  return session;
}

/** The session with this id; throws SessionNotFoundError when there is none. */
export function getSession(db: RecallDatabase, sessionId: string): Session {
  const session = findSession(db, sessionId);
  if (!session) throw new SessionNotFoundError(sessionId);
  return session;
}

/**
 * The stored project of a session (null = no project), read fresh from the database (never cached).
 * Throws SessionNotFoundError.
 */
export function sessionProjectId(db: RecallDatabase, sessionId: string): string | null {
  const row = prepared(db, 'select project_id from sessions where id = ?').get(sessionId) as { project_id: string | null } | undefined;
  if (!row) throw new SessionNotFoundError(sessionId);
  return row.project_id;
}

/**
 * Decides the project of a new session from its lineage. Conversation edges (compression,
 * delegation) always take the parent's current project; branch/reset take the caller's explicit
 * choice if given, else inherit once; roots take what the caller chose (NULL by default).
 */
function resolveProjectForNewSession(db: RecallDatabase, lineage: LineageKind, parentId: string | null, input: { projectId?: string | null | undefined }, hasProjectKey: boolean): string | null {
  if (lineage !== 'root' && parentId === null) throw new LineageError(`A ${lineage} session needs a parent session.`, { lineage });
  if (lineage === 'root' && parentId !== null) throw new LineageError('A root session has no parent; use compression, branch, reset or delegation.', { parentId });
  const parentProject = parentId === null ? null : sessionProjectId(db, parentId);
  if ((CONVERSATION_EDGES as readonly string[]).includes(lineage)) {
    if (hasProjectKey && (input.projectId ?? null) !== parentProject) {
      throw new LineageError(`A ${lineage} session belongs to its parent's conversation and so to its project (${parentProject ?? 'none'}).`, {
        lineage,
        parentProject,
        projectId: input.projectId ?? null,
      });
    }
    return parentProject;
  }
  if (lineage === 'root') return input.projectId ?? null;
  return hasProjectKey ? (input.projectId ?? null) : parentProject;
}

/**
 * Archiving a project keeps ownership (seed §4.1) and refuses only brand-new conversations. A
 * session that carries on existing history of the archived project inherits it without asking:
 * compression continuations and delegation children (the same logical conversation), and a branch
 * that inherits its parent's project (it copies that conversation's history, so it is a
 * continuation of it, not a fresh start). A reset (/new) starts an empty conversation, so it is
 * refused like any new conversation; so is choosing an archived project other than the parent's.
 */
function keepsArchivedOwnership(db: RecallDatabase, lineage: LineageKind, parentId: string | null, projectId: string): boolean {
  if (parentId === null || lineage === 'root' || lineage === 'reset') return false;
  return sessionProjectId(db, parentId) === projectId;
}

/**
 * A session compresses once: a second compression child would fork one logical conversation into
 * two live ends. Every writer of a compression session comes through createSession (the desktop's
 * /compress via createContinuation, the recall-jsonl importer, the Claude Code / Codex / Hermes
 * importers and live sync), so this one check, run inside the write transaction that inserts the
 * child, covers them all and two racing writers cannot both pass it.
 */
export function assertNotCompressed(db: RecallDatabase, sessionId: string): void {
  const existing = prepared(db, "select id from sessions where parent_session_id = ? and lineage = 'compression' order by started_at, id limit 1").pluck().get(sessionId) as
    | string
    | undefined;
  if (existing !== undefined) throw new SessionAlreadyCompressedError(sessionId, existing);
}

/**
 * Creates a session (optionally with its first messages, in one transaction) and returns it. Compression
 * and delegation children take their parent's project; branch and reset inherit it unless `projectId`
 * is given; delegation children are hidden. Throws ValidationError, SessionExistsError, LineageError,
 * SessionNotFoundError (parent), ProjectNotFoundError, ProjectArchivedError and
 * SessionAlreadyCompressedError.
 */
export function createSession(db: RecallDatabase, input: CreateSessionInput = {}): Session {
  const data = parseInput(createSessionSchema, input, 'session');
  const hasProjectKey = Object.prototype.hasOwnProperty.call(input, 'projectId') && input.projectId !== undefined;
  return writeTransaction(db, () => {
    const id = data.id ?? newSessionId();
    if (prepared(db, 'select 1 from sessions where id = ?').get(id)) throw new SessionExistsError(id);
    const lineage = data.lineage ?? 'root';
    const parentId = data.parentSessionId ?? null;
    const projectId = resolveProjectForNewSession(db, lineage, parentId, data, hasProjectKey);
    if (projectId !== null && !keepsArchivedOwnership(db, lineage, parentId, projectId)) assertProjectAcceptsSessions(db, projectId);
    if (lineage === 'compression' && parentId !== null) assertNotCompressed(db, parentId);
    const now = nowMs();
    const startedAt = data.startedAt ?? data.messages?.[0]?.createdAt ?? now;
    prepared(
      db,
      `insert into sessions (id, project_id, parent_session_id, lineage, source, title, cwd, git_repo_root, git_branch, model,
        started_at, ended_at, end_reason, archived, hidden, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      id,
      projectId,
      parentId,
      lineage,
      data.source ?? 'desktop',
      data.title ?? null,
      data.cwd ?? null,
      data.gitRepoRoot ?? null,
      data.gitBranch ?? null,
      data.model ?? null,
      startedAt,
      data.endedAt ?? null,
      data.endReason ?? null,
      data.archived ? 1 : 0,
      // Delegation children are hidden from recall and lists by rule.
      (data.hidden ?? lineage === 'delegation') ? 1 : 0,
      now,
      now,
    );
    if (data.messages && data.messages.length > 0) insertMessages(db, id, data.messages);
    return getSession(db, id);
  });
}

/**
 * Create-or-update by id. Absent fields are kept. `projectId` absent keeps the stored project (resume and
 * re-save never clear it); `projectId: null` removes the whole logical conversation from its project; a
 * new id moves it (through setSessionProject, so continuations follow). Messages are appended
 * (idempotent per `externalId`). Throws what createSession and setSessionProject throw, and LineageError
 * when the lineage or parent would change.
 */
export function upsertSession(db: RecallDatabase, input: UpsertSessionInput): Session {
  const data = parseInput(upsertSessionSchema, input, 'session');
  const hasProjectKey = Object.prototype.hasOwnProperty.call(input, 'projectId') && input.projectId !== undefined;
  return writeTransaction(db, () => {
    const current = findSession(db, data.id);
    if (!current) return createSession(db, input);
    if (data.lineage !== undefined && data.lineage !== current.lineage) throw new LineageError('The lineage of an existing session cannot change.', { sessionId: data.id });
    if (data.parentSessionId !== undefined && (data.parentSessionId ?? null) !== current.parentSessionId) {
      throw new LineageError('The parent of an existing session cannot change.', { sessionId: data.id });
    }
    updateSessionFields(db, data.id, data);
    if (hasProjectKey && (data.projectId ?? null) !== current.projectId) setSessionProject(db, data.id, data.projectId ?? null);
    if (data.messages && data.messages.length > 0) insertMessages(db, data.id, data.messages);
    return getSession(db, data.id);
  });
}

const COLUMN_OF: Record<string, string> = {
  title: 'title',
  cwd: 'cwd',
  gitRepoRoot: 'git_repo_root',
  gitBranch: 'git_branch',
  model: 'model',
  source: 'source',
  startedAt: 'started_at',
  endedAt: 'ended_at',
  endReason: 'end_reason',
  archived: 'archived',
  hidden: 'hidden',
};

function updateSessionFields(db: RecallDatabase, sessionId: string, fields: z.output<typeof sessionFieldsSchema>): void {
  const sets: string[] = [];
  const values: unknown[] = [];
  for (const [key, column] of Object.entries(COLUMN_OF)) {
    const value = (fields as Record<string, unknown>)[key];
    if (value === undefined) continue;
    sets.push(`${column} = ?`);
    values.push(typeof value === 'boolean' ? (value ? 1 : 0) : value);
  }
  sets.push('updated_at = ?');
  values.push(nowMs());
  db.raw.prepare(`update sessions set ${sets.join(', ')} where id = ?`).run(...values, sessionId);
}

/**
 * Updates a session's fields (not its project) and returns it. Throws ValidationError and
 * SessionNotFoundError.
 */
export function updateSession(db: RecallDatabase, sessionId: string, fields: UpdateSessionFields): Session {
  const data = parseInput(sessionFieldsSchema, fields, 'session update');
  return writeTransaction(db, () => {
    getSession(db, sessionId);
    updateSessionFields(db, sessionId, data);
    return getSession(db, sessionId);
  });
}

const cwdSchema = z.object({ cwd: text(4096).pipe(z.string().min(1)), gitRepoRoot: pathField, gitBranch: text(500).nullish() });
/** Input of `setSessionCwd`: the new `cwd` (1-4096 characters) and optionally its git root and branch (null or omitted = none). */
export type SetSessionCwdInput = z.input<typeof cwdSchema>;

/**
 * Directory change: sets cwd and git metadata only; the project is never touched here. Throws
 * ValidationError and SessionNotFoundError.
 */
export function setSessionCwd(db: RecallDatabase, sessionId: string, input: SetSessionCwdInput): Session {
  const data = parseInput(cwdSchema, input, 'working directory');
  return writeTransaction(db, () => {
    getSession(db, sessionId);
    prepared(db, 'update sessions set cwd = ?, git_repo_root = ?, git_branch = ?, updated_at = ? where id = ?').run(
      data.cwd,
      data.gitRepoRoot ?? null,
      data.gitBranch ?? null,
      nowMs(),
      sessionId,
    );
    return getSession(db, sessionId);
  });
}

/**
 * Sets (or with null clears) a session's title (≤ 500 characters). Throws ValidationError and
 * SessionNotFoundError.
 */
export function setSessionTitle(db: RecallDatabase, sessionId: string, title: string | null): Session {
  return updateSession(db, sessionId, { title });
}

/**
 * Marks a session ended now with `reason` as its end reason (≤ 200 characters). Throws ValidationError and
 * SessionNotFoundError.
 */
export function endSession(db: RecallDatabase, sessionId: string, reason: string): Session {
  return updateSession(db, sessionId, { endedAt: nowMs(), endReason: reason });
}

/** Options of `listSessions`. */
export interface ListSessionsOptions {
  /** undefined = every project; null = only sessions without a project; string = that project. */
  projectId?: string | null;
  includeArchived?: boolean;
  includeHidden?: boolean;
  limit?: number;
  offset?: number;
}

/**
 * Sessions newest activity first (last visible message, else start), paged by `limit` (1-5000, default
 * 200) and `offset`; archived and hidden sessions only when asked. Throws ValidationError for a
 * non-integer limit or offset.
 */
export function listSessions(db: RecallDatabase, options: ListSessionsOptions = {}): Session[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (options.projectId === null) where.push('s.project_id is null');
  else if (options.projectId !== undefined) {
    where.push('s.project_id = ?');
    params.push(options.projectId);
  }
  if (!options.includeArchived) where.push('s.archived = 0');
  if (!options.includeHidden) where.push('s.hidden = 0');
  const limit = Math.min(Math.max(options.limit ?? 200, 1), 5000);
  const offset = Math.max(options.offset ?? 0, 0);
  if (!Number.isInteger(limit) || !Number.isInteger(offset)) throw new ValidationError('limit and offset must be integers');
  const rows = db.raw
    .prepare(
      `select * from (${SESSION_SELECT} ${where.length ? `where ${where.join(' and ')}` : ''})
       order by coalesce(last_message_at, started_at) desc, id limit ? offset ?`,
    )
    .all(...params, limit, offset) as SessionRow[];
  return rows.map(toSession);
}
