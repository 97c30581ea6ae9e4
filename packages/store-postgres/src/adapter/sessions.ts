/**
 * SessionStore on PostgreSQL: @recall/store's sessions.ts, lineage.ts and moves.ts rules with the
 * same typed errors. Writers of one logical conversation (moves, compression continuations,
 * delegations) serialise on a transaction-scoped advisory lock of the conversation's root (edges
 * never change, so the root is stable): a continuation created while the conversation moves either
 * is included in the move or reads the new project — the SQLite path gets this from BEGIN IMMEDIATE.
 */
import { LINEAGE_KINDS, type LineageKind, type MoveResult, type Session } from '@recall/rpc-contract';
import { LineageError, ProjectArchivedError, ProjectNotFoundError, SessionAlreadyCompressedError, SessionExistsError, SessionNotFoundError, ValidationError } from '@recall/store/portable';
import { boundedText, idSchema, newMessageSchema, parseInput, titleSchema, toWellFormed } from '@recall/store/portable';
import type { NewSession, SessionChanges, SessionRecord, SessionStore } from '@recall/storage-ports';
import type pg from 'pg';
import { z } from 'zod';
import { conversationContainingOn, conversationMembers, conversationRoot, conversationRootsOn, listConversationsOn, ownHistory, recentConversationsOn, segmentsOf, segmentsOfMany } from './conversations.js';
import { insertParsedMessages } from './messages.js';
import { lockConversation, newSessionId, nowMs, SESSION_SELECT, toSession, write, type Db, type Tx } from './tx.js';

const sessionIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'session ids are 1-128 characters of letters, digits, . _ : -');
const pathField = boundedText(4096).nullish();
const fieldsSchema = z.object({
  title: titleSchema.nullish(),
  cwd: pathField,
  gitRepoRoot: pathField,
  gitBranch: boundedText(500).nullish(),
  model: boundedText(200).nullish(),
  source: z.string().min(1).max(64).transform(toWellFormed).optional(),
  startedAt: z.number().int().nonnegative().optional(),
  endedAt: z.number().int().nonnegative().nullish(),
  endReason: boundedText(200).nullish(),
  archived: z.boolean().optional(),
  hidden: z.boolean().optional(),
});
const createSchema = fieldsSchema.extend({
  id: sessionIdSchema.optional(),
  projectId: idSchema.nullish(),
  parentSessionId: idSchema.nullish(),
  lineage: z.enum(LINEAGE_KINDS).optional(),
  messages: z.array(newMessageSchema).max(100_000).optional(),
});
const upsertSchema = createSchema.extend({ id: sessionIdSchema });
const cwdSchema = z.object({ cwd: boundedText(4096).pipe(z.string().min(1)), gitRepoRoot: pathField, gitBranch: boundedText(500).nullish() });
const CONVERSATION_EDGES: readonly LineageKind[] = ['compression', 'delegation'];
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

type Q = Tx | pg.Pool;

async function findSession(q: Q, id: string): Promise<Session | undefined> {
  const row = (await q.query(`${SESSION_SELECT} where s.id = $1`, [id])).rows[0];
  return row ? toSession(row) : undefined;
}
async function getSession(q: Q, id: string): Promise<Session> {
  const s = await findSession(q, id);
  if (!s) throw new SessionNotFoundError(id);
  return s;
}
async function projectOf(q: Q, id: string): Promise<string | null> {
  const row = (await q.query('select project_id from sessions where id = $1', [id])).rows[0];
  if (!row) throw new SessionNotFoundError(id);
  return (row.project_id as string | null) ?? null;
}
async function assertProjectAccepts(tx: Tx, projectId: string): Promise<void> {
  // FOR SHARE: a concurrent delete or archive of the project waits for this transaction.
  const row = (await tx.query('select name, archived from projects where id = $1 for share', [projectId])).rows[0];
  if (!row) throw new ProjectNotFoundError(projectId);
  if (row.archived === true) throw new ProjectArchivedError(projectId, row.name as string);
}
async function assertNotCompressed(tx: Tx, sessionId: string): Promise<void> {
  const existing = (await tx.query("select id from sessions where parent_session_id = $1 and lineage = 'compression' order by started_at, id limit 1", [sessionId])).rows[0]?.id as string | undefined;
  if (existing !== undefined) throw new SessionAlreadyCompressedError(sessionId, existing);
}

async function createTx(tx: Tx, input: NewSession): Promise<Session> {
  const data = parseInput(createSchema, input, 'session');
  const hasProjectKey = Object.prototype.hasOwnProperty.call(input, 'projectId') && input.projectId !== undefined;
  const id = data.id ?? newSessionId();
  const lineage = data.lineage ?? 'root';
  const parentId = data.parentSessionId ?? null;
  if (lineage !== 'root' && parentId === null) throw new LineageError(`A ${lineage} session needs a parent session.`, { lineage });
  if (lineage === 'root' && parentId !== null) throw new LineageError('A root session has no parent; use compression, branch, reset or delegation.', { parentId });
  // A child of a conversation edge joins the parent's conversation: lock it before reading the project.
  if (parentId !== null && CONVERSATION_EDGES.includes(lineage)) await lockConversation(tx, await conversationRoot(tx, parentId));
  if ((await tx.query('select 1 from sessions where id = $1', [id])).rowCount) throw new SessionExistsError(id);
  const parentProject = parentId === null ? null : await projectOf(tx, parentId);
  let projectId: string | null;
  if (CONVERSATION_EDGES.includes(lineage)) {
    if (hasProjectKey && (data.projectId ?? null) !== parentProject) {
      throw new LineageError(`A ${lineage} session belongs to its parent's conversation and so to its project (${parentProject ?? 'none'}).`, { lineage, parentProject, projectId: data.projectId ?? null });
    }
    projectId = parentProject;
  } else if (lineage === 'root') projectId = data.projectId ?? null;
  else projectId = hasProjectKey ? (data.projectId ?? null) : parentProject;
  const keepsArchived = parentId !== null && lineage !== 'root' && lineage !== 'reset' && parentProject === projectId;
  if (projectId !== null) {
    if (keepsArchived) {
      if (!(await tx.query('select 1 from projects where id = $1 for share', [projectId])).rowCount) throw new ProjectNotFoundError(projectId);
    } else await assertProjectAccepts(tx, projectId);
  }
  if (lineage === 'compression' && parentId !== null) await assertNotCompressed(tx, parentId);
  const now = nowMs();
  const startedAt = data.startedAt ?? data.messages?.[0]?.createdAt ?? now;
  try {
    await tx.query('savepoint create_session');
    await tx.query(
      `insert into sessions (id, project_id, parent_session_id, lineage, source, title, cwd, git_repo_root, git_branch, model,
         started_at, ended_at, end_reason, archived, hidden, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16)`,
      [
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
        data.archived ?? false,
        data.hidden ?? lineage === 'delegation',
        now,
      ],
    );
    await tx.query('release savepoint create_session');
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw new SessionExistsError(id);
    throw error;
  }
  if (data.messages && data.messages.length > 0) await insertParsedMessages(tx, id, data.messages);
  return getSession(tx, id);
}

async function moveTx(tx: Tx, sessionId: string, projectId: string | null): Promise<MoveResult> {
  const root = await conversationRoot(tx, sessionId);
  await lockConversation(tx, root);
  const previous = await projectOf(tx, sessionId);
  if (projectId !== null) await assertProjectAccepts(tx, projectId);
  const ids = (await conversationMembers(tx, sessionId)).map((m) => m.id);
  await tx.query('update sessions set project_id = $1, updated_at = $2 where id = any($3)', [projectId, nowMs(), ids]);
  return { sessionIds: ids, projectId, previousProjectId: previous };
}

async function updateFields(tx: Tx, sessionId: string, fields: z.output<typeof fieldsSchema>): Promise<void> {
  const sets: string[] = [];
  const values: unknown[] = [];
  for (const [key, column] of Object.entries(COLUMN_OF)) {
    const value = (fields as Record<string, unknown>)[key];
    if (value === undefined) continue;
    values.push(value);
    sets.push(`${column} = $${values.length}`);
  }
  values.push(nowMs());
  sets.push(`updated_at = $${values.length}`);
  values.push(sessionId);
  await tx.query(`update sessions set ${sets.join(', ')} where id = $${values.length}`, values);
}

async function updateTx(tx: Tx, sessionId: string, changes: SessionChanges): Promise<Session> {
  const data = parseInput(fieldsSchema, changes, 'session update');
  await getSession(tx, sessionId);
  await updateFields(tx, sessionId, data);
  return getSession(tx, sessionId);
}

/** The SessionStore of a PostgreSQL team database. */
export function postgresSessions(pool: Db): SessionStore {
  const store: SessionStore = {
    create: (input = {}) => write(pool, (tx) => createTx(tx, input)),
    async upsert(input) {
      const data = parseInput(upsertSchema, input, 'session');
      const hasProjectKey = Object.prototype.hasOwnProperty.call(input, 'projectId') && input.projectId !== undefined;
      return write(pool, async (tx) => {
        // One upsert per session id at a time: two gateways syncing the same transcript both find
        // no row, and the second would fail on the primary key; under the lock it sees the first's.
        await tx.query("select pg_advisory_xact_lock(hashtextextended('recall.session:' || $1, 0))", [data.id]);
        const current = await findSession(tx, data.id);
        if (!current) return createTx(tx, input);
        if (data.lineage !== undefined && data.lineage !== current.lineage) throw new LineageError('The lineage of an existing session cannot change.', { sessionId: data.id });
        if (data.parentSessionId !== undefined && (data.parentSessionId ?? null) !== current.parentSessionId) throw new LineageError('The parent of an existing session cannot change.', { sessionId: data.id });
        await updateFields(tx, data.id, data);
        if (hasProjectKey && (data.projectId ?? null) !== current.projectId) await moveTx(tx, data.id, data.projectId ?? null);
        if (data.messages && data.messages.length > 0) await insertParsedMessages(tx, data.id, data.messages);
        return getSession(tx, data.id);
      });
    },
    update: (sessionId, changes) => write(pool, (tx) => updateTx(tx, sessionId, changes)),
    get: (id) => getSession(pool, id),
    find: (id) => findSession(pool, id),
    async getRecord(id) {
      const { messageCount: _c, lastMessageAt: _l, ...record } = await getSession(pool, id);
      return record;
    },
    async findRecord(id) {
      const row = (await pool.query('select * from sessions where id = $1', [id])).rows[0];
      if (!row) return undefined;
      const { messageCount: _c, lastMessageAt: _l, ...record } = toSession(row);
      return record;
    },
    async findRecords(ids) {
      const out = new Map<string, SessionRecord>();
      if (ids.length === 0) return out;
      for (const row of (await pool.query('select * from sessions where id = any($1::text[])', [[...new Set(ids)]])).rows) {
        const { messageCount: _c, lastMessageAt: _l, ...record } = toSession(row);
        out.set(record.id, record);
      }
      return out;
    },
    projectId: (id) => projectOf(pool, id),
    async list(options = {}) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (options.projectId === null) where.push('s.project_id is null');
      else if (options.projectId !== undefined) {
        params.push(options.projectId);
        where.push(`s.project_id = $${params.length}`);
      }
      if (!options.includeArchived) where.push('not s.archived');
      if (!options.includeHidden) where.push('not s.hidden');
      const limit = Math.min(Math.max(options.limit ?? 200, 1), 5000);
      const offset = Math.max(options.offset ?? 0, 0);
      if (!Number.isInteger(limit) || !Number.isInteger(offset)) throw new ValidationError('limit and offset must be integers');
      const rows = (
        await pool.query(`select * from (${SESSION_SELECT} ${where.length ? `where ${where.join(' and ')}` : ''}) x order by coalesce(last_message_at, started_at) desc, id collate "C" limit ${limit} offset ${offset}`, params)
      ).rows;
      return rows.map(toSession);
    },
    async setCwd(sessionId, input) {
      const data = parseInput(cwdSchema, input, 'working directory');
      return write(pool, async (tx) => {
        await getSession(tx, sessionId);
        await tx.query('update sessions set cwd = $1, git_repo_root = $2, git_branch = $3, updated_at = $4 where id = $5', [data.cwd, data.gitRepoRoot ?? null, data.gitBranch ?? null, nowMs(), sessionId]);
        return getSession(tx, sessionId);
      });
    },
    setTitle: (sessionId, title) => store.update(sessionId, { title }),
    end: (sessionId, reason) => store.update(sessionId, { endedAt: nowMs(), endReason: reason }),
    async move(sessionId, projectId) {
      parseInput(idSchema, sessionId, 'session id');
      if (projectId !== null) parseInput(idSchema, projectId, 'project id');
      return write(pool, (tx) => moveTx(tx, sessionId, projectId));
    },
    continueCompressed: (sourceId, options = {}) =>
      write(pool, async (tx) => {
        await lockConversation(tx, await conversationRoot(tx, sourceId));
        const source = await getSession(tx, sourceId);
        await assertNotCompressed(tx, sourceId);
        const now = nowMs();
        await tx.query("update sessions set ended_at = coalesce(ended_at, $1), end_reason = 'compression', updated_at = $1 where id = $2", [now, sourceId]);
        const session = await createTx(tx, {
          ...(options.id ? { id: options.id } : {}),
          parentSessionId: sourceId,
          lineage: 'compression',
          source: source.source,
          title: options.title ?? source.title,
          cwd: source.cwd,
          gitRepoRoot: source.gitRepoRoot,
          gitBranch: source.gitBranch,
          model: source.model,
          messages: options.note ? [{ role: 'system', content: options.note }] : [],
        });
        return { previous: await getSession(tx, sourceId), session };
      }),
    branch: (sourceId, options = {}) =>
      write(pool, async (tx) => {
        const source = await getSession(tx, sourceId);
        const history = (await tx.query("select * from messages where session_id = $1 and visibility in ('live','compacted') order by id limit 10000", [sourceId])).rows;
        let upTo = history.length;
        if (options.fromMessageId !== undefined) {
          upTo = history.findIndex((m) => Number(m.id) === options.fromMessageId) + 1;
          if (upTo === 0) throw new ValidationError(`Message ${options.fromMessageId} is not a visible message of session ${sourceId}.`, { sourceId });
        }
        const session = await createTx(tx, {
          ...(options.id ? { id: options.id } : {}),
          parentSessionId: sourceId,
          lineage: 'branch',
          source: source.source,
          title: options.title ?? (source.title ? `${source.title} (branch)` : null),
          cwd: source.cwd,
          gitRepoRoot: source.gitRepoRoot,
          gitBranch: source.gitBranch,
          model: source.model,
        });
        const copied = history.slice(0, upTo);
        const out = await insertParsedMessages(
          tx,
          session.id,
          copied.map((m) => ({ role: m.role, content: m.content, toolName: m.tool_name, toolCalls: m.tool_calls, toolCallId: m.tool_call_id, createdAt: Number(m.created_at) })),
        );
        // Each copy remembers its source, so the semantic index can reuse the source's vectors.
        await tx.query('update messages m set origin_message_id = o.origin from unnest($1::bigint[], $2::bigint[]) as o(id, origin) where m.id = o.id', [out.messages.map((m) => m.id), copied.map((m) => Number(m.id))]);
        return getSession(tx, session.id);
      }),
    reset: (sourceId, options = {}) =>
      write(pool, async (tx) => {
        const source = await getSession(tx, sourceId);
        return createTx(tx, {
          ...(options.id ? { id: options.id } : {}),
          parentSessionId: sourceId,
          lineage: 'reset',
          source: source.source,
          title: options.title ?? null,
          cwd: source.cwd,
          gitRepoRoot: source.gitRepoRoot,
          gitBranch: source.gitBranch,
          model: source.model,
        });
      }),
    delegate: (parentId, options = {}) =>
      write(pool, async (tx) => {
        const parent = await getSession(tx, parentId);
        return createTx(tx, {
          ...(options.id ? { id: options.id } : {}),
          parentSessionId: parentId,
          lineage: 'delegation',
          source: options.source ?? 'delegation',
          title: options.title ?? null,
          cwd: parent.cwd,
          gitRepoRoot: parent.gitRepoRoot,
          gitBranch: parent.gitBranch,
        });
      }),
    conversationRoot: (id) => conversationRoot(pool, id),
    conversationRoots: (ids) => conversationRootsOn(pool, ids),
    conversation: (id) => conversationMembers(pool, id),
    ownHistory: (id) => ownHistory(pool, id),
    segments: (id) => segmentsOf(pool, id),
    segmentsOf: (ids) => segmentsOfMany(pool, ids),
    listConversations: (options) => listConversationsOn(pool, options),
    conversationContaining: (id) => conversationContainingOn(pool, id),
    recentConversations: (scope, options) => recentConversationsOn(pool, scope, options),
  };
  return store;
}
