/**
 * Transactions of the PostgreSQL adapter. `write(fn)` runs fn on one pooled client inside
 * BEGIN … COMMIT (rolled back when fn throws); `scoped(scope, fn)` is a read-only transaction as
 * role recall_scoped with `SET LOCAL recall.project_id` (or `recall.session_ids`), so row-level
 * security limits every query inside it to that scope (migration 0002). Rows come back as
 * snake_case records; the mappers turn them into the wire objects.
 */
import { randomBytes } from 'node:crypto';
import type { Message, Project, Session } from '@recall/rpc-contract';
import { StorageUnsupportedError } from '@recall/storage-ports';
import type pg from 'pg';
import { isConnectionLoss } from './unreachable.js';

/** One client of the pool inside a transaction. */
export type Tx = pg.PoolClient;

/** Marks the pool stand-in of a scoped read (scopedPool): its one client is already inside the scope's transaction. */
const BOUND = Symbol('recall.scopedClient');
/** The pool a read scope's stand-in was taken from (scopedPool's `root`). */
const ROOT = Symbol('recall.scopeRoot');

/**
 * A pool stand-in whose every query runs on `client`, already inside a `scoped()` transaction: the
 * adapters' stores built over it read within that transaction (Storage.withReadScope). `scoped()` on
 * it runs on the same client under the outer scope (never widened); `write()` on it is refused.
 */
export function scopedPool(client: Tx, root?: pg.Pool): pg.Pool {
  return { query: client.query.bind(client), [BOUND]: client, [ROOT]: root } as unknown as pg.Pool;
}

/**
 * The pool whose caches a store may use: the real pool behind a read scope's stand-in (a new
 * stand-in per scope, so caches keyed on it would never be hit again), else `pool` itself.
 */
export function poolIdentity(pool: pg.Pool): object {
  return (pool as unknown as { [ROOT]?: pg.Pool })[ROOT] ?? pool;
}

function boundClient(pool: pg.Pool): Tx | undefined {
  return (pool as unknown as { [BOUND]?: Tx })[BOUND];
}

/** True for a pool bound to one client of an enclosing read scope (withReadScope): its reads run in that transaction. */
export function isBound(pool: pg.Pool): boolean {
  return boundClient(pool) !== undefined;
}

/** Where the stores run: the pool (each write its own transaction) or one client inside a batch transaction. */
export type Db = pg.Pool | Tx;

/** Clients of a bulk batch: their writes take no savepoint each (the batch rolls back as a whole). */
const bulkClients = new WeakSet<Tx>();

const isClient = (db: Db): db is Tx => typeof (db as Partial<Tx>).release === 'function';

/** Marks `tx` as a bulk batch's client while `fn` runs (see WriteBatches' bulk mode). */
export async function asBulk<T>(tx: Tx, fn: () => Promise<T>): Promise<T> {
  bulkClients.add(tx);
  try {
    return await fn();
  } finally {
    bulkClients.delete(tx);
  }
}

/** Runs `fn` in a savepoint of the transaction open on `tx`: when it throws, only its writes are undone. */
export async function inSavepoint<T>(tx: Tx, fn: () => Promise<T>): Promise<T> {
  await tx.query('savepoint recall_step');
  try {
    const out = await fn();
    await tx.query('release savepoint recall_step');
    return out;
  } catch (error) {
    await tx.query('rollback to savepoint recall_step');
    await tx.query('release savepoint recall_step');
    throw error;
  }
}

/** SQLSTATEs after which the whole transaction was rolled back by the server and may simply run again: deadlock, serialization failure. */
const RETRY_CODES = new Set(['40P01', '40001']);
/** Attempts of one write transaction when it keeps meeting those. */
const WRITE_ATTEMPTS = 4;

/**
 * Runs `fn` in a read-write transaction on one client of the pool; given a client already inside a
 * batch transaction, in a savepoint of it (or, in a bulk batch, directly); refused on the pool
 * stand-in of a read scope. A transaction the server aborted as a
 * deadlock victim or a serialization failure (concurrent appends to one conversation from several
 * gateways) is run again from the start, a few times with a short random pause: nothing of the
 * failed attempt was committed, so `fn` sees a clean state again.
 */
export async function write<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (isClient(db)) return bulkClients.has(db) ? fn(db) : inSavepoint(db, () => fn(db));
  const pool = db;
  if (boundClient(pool)) throw new StorageUnsupportedError('postgres', 'a write inside a read scope');
  for (let attempt = 1; ; attempt++) {
    try {
      return await writeOnce(pool, fn);
    } catch (error) {
      const code = (error as { code?: unknown })?.code;
      if (attempt >= WRITE_ATTEMPTS || typeof code !== 'string' || !RETRY_CODES.has(code)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
    }
  }
}

async function writeOnce<T>(pool: pg.Pool, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const { client, release } = await checkout(pool);
  let failure: unknown;
  try {
    await client.query('begin');
    const out = await fn(client);
    await client.query('commit');
    return out;
  } catch (error) {
    failure = error;
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    release(failure);
  }
}

/**
 * A pooled client with an error listener for as long as it is checked out: a connection lost
 * mid-transaction (a database restart) makes pg emit `error` on the client, which without a
 * listener would end the process. Its queries reject instead; release() then discards a client
 * that failed, so the pool opens a fresh connection for the next request.
 */
async function checkout(pool: pg.Pool): Promise<{ client: pg.PoolClient; release: (failure?: unknown, discard?: boolean) => void }> {
  const client = await pool.connect();
  let lost: unknown = null;
  const onError = (error: unknown): void => {
    lost = error;
  };
  client.on('error', onError);
  return {
    client,
    release: (failure, discard = false) => {
      client.off('error', onError);
      const broken = discard || lost !== null || (failure !== undefined && isConnectionLoss(failure));
      client.release(broken ? (lost instanceof Error ? lost : true) : undefined);
    },
  };
}

/** The scope a row-level-security read is limited to. */
export type RlsScope = { projectId: string } | { sessionIds: readonly string[] };

/** Runs `fn` in a read-only transaction as recall_scoped, limited by RLS to `scope`. */
export async function scoped<T>(pool: pg.Pool, scope: RlsScope, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return scopedWith(pool, scope, () => [], (tx) => fn(tx));
}

/**
 * scoped(), with the first reads of `fn` sent in the round trip that opens the scope: `first`
 * returns statements with their values written in as literals (inlineParameters), which the server
 * runs after BEGIN, the role and the scope's setting, in that transaction; it stops at the first
 * statement that fails, so none of them runs unscoped. `fn` gets their results in order. Inside
 * withReadScope (the scope already open) they are sent as one round trip of their own.
 */
export async function scopedWith<T>(pool: pg.Pool, scope: RlsScope, first: (client: Pick<Tx, 'escapeLiteral'>) => readonly string[], fn: (tx: Tx, results: pg.QueryResult[]) => Promise<T>): Promise<T> {
  // Inside withReadScope: the outer transaction's scope already limits every row; the caller's own
  // filters narrow it further. Changing the setting here could only widen it, so it is kept.
  const bound = boundClient(pool);
  if (bound) {
    const statements = first(bound);
    return fn(bound, statements.length === 0 ? [] : results(await bound.query(statements.join(';\n'))));
  }
  const { client, release } = await checkout(pool);
  let out: T;
  try {
    // One round trip: BEGIN, the role and the scope setting as one simple-query string (the
    // setting's value an escaped literal), then `first`. All three are transaction-local; the
    // server runs them in order and stops at the first failure, so no read of fn runs unscoped.
    const statements = first(client);
    const opened = results(await client.query([scopeOpening(client, scope), ...statements].join(';\n')));
    out = await fn(client, opened.slice(opened.length - statements.length));
  } catch (error) {
    await client.query('rollback').catch(() => {});
    release(error);
    throw error;
  }
  // COMMIT of a read-only transaction is not waited for: every row fn read is already in `out`, and
  // the client goes back to the pool only once the COMMIT is done (a client whose COMMIT failed
  // is discarded, never reused inside the old transaction).
  client.query('commit').then(
    () => release(),
    (error: unknown) => release(error, true),
  );
  return out;
}

/** The results of a simple query, one per statement (pg answers one statement with a single result). */
function results(answer: pg.QueryResult | pg.QueryResult[]): pg.QueryResult[] {
  return Array.isArray(answer) ? answer : [answer];
}

/**
 * `sql` with its placeholders ($1, $2, …) replaced by `values` written as SQL literals: strings
 * escaped by the client, finite numbers, booleans, null, and arrays of those as ARRAY[…] ('{}' when
 * empty; the statement's casts give the types). For statements sent in a simple query (scopedWith).
 */
export function inlineParameters(client: Pick<Tx, 'escapeLiteral'>, sql: string, values: readonly unknown[]): string {
  const literal = (v: unknown): string => {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'string') return client.escapeLiteral(v);
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new TypeError('inlineParameters: a number that is not finite');
      return String(v);
    }
    if (Array.isArray(v)) return v.length === 0 ? "'{}'" : `array[${v.map(literal).join(', ')}]`;
    throw new TypeError(`inlineParameters: no literal for a ${typeof v}`);
  };
  return sql.replace(/\$(\d+)/g, (_, n: string) => {
    const i = Number(n) - 1;
    if (i < 0 || i >= values.length) throw new RangeError(`inlineParameters: no value for $${n}`);
    return literal(values[i]);
  });
}

/** BEGIN READ ONLY + SET LOCAL ROLE recall_scoped + the scope's transaction-local setting, as one simple query. */
export function scopeOpening(client: Pick<Tx, 'escapeLiteral'>, scope: RlsScope): string {
  const [name, value] = 'projectId' in scope ? ['recall.project_id', scope.projectId] : ['recall.session_ids', scope.sessionIds.join(',')];
  return `begin read only; set local role recall_scoped; select set_config('${name}', ${client.escapeLiteral(value)}, true)`;
}

/** Serialises writers of one logical conversation (moves, continuations, delegations) for this transaction. */
export async function lockConversation(tx: Tx, rootId: string): Promise<void> {
  await tx.query("select pg_advisory_xact_lock(hashtextextended('recall.conversation:' || $1, 0))", [rootId]);
}

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
function token(length: number): string {
  let out = '';
  for (const b of randomBytes(length)) out += ALPHABET[b % 32];
  return out;
}
/** A new project id, as @recall/schema mints them (`p_` + 12). */
export const newProjectId = (): string => `p_${token(12)}`;
/** A new session id, as @recall/schema mints them (`s_` + 16). */
export const newSessionId = (): string => `s_${token(16)}`;

/** Milliseconds since the epoch, the stores' one time unit. */
export const nowMs = (): number => Date.now();

/** Whether a pg error is a unique violation (optionally of one constraint/index). */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

type Row = Record<string, unknown>;
const n = (v: unknown): number => Number(v);
const nn = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** A sessions row (+ optional message_count, last_message_at) as the wire Session. */
export function toSession(r: Row): Session {
  return {
    id: r.id as string,
    projectId: (r.project_id as string | null) ?? null,
    parentSessionId: (r.parent_session_id as string | null) ?? null,
    lineage: r.lineage as Session['lineage'],
    source: r.source as string,
    title: (r.title as string | null) ?? null,
    cwd: (r.cwd as string | null) ?? null,
    gitRepoRoot: (r.git_repo_root as string | null) ?? null,
    gitBranch: (r.git_branch as string | null) ?? null,
    model: (r.model as string | null) ?? null,
    startedAt: n(r.started_at),
    endedAt: nn(r.ended_at),
    endReason: (r.end_reason as string | null) ?? null,
    archived: r.archived === true,
    hidden: r.hidden === true,
    createdAt: n(r.created_at),
    updatedAt: n(r.updated_at),
    messageCount: n(r.message_count ?? 0),
    lastMessageAt: nn(r.last_message_at),
  };
}

/** A messages row as the wire Message. */
export function toMessage(r: Row): Message {
  return {
    id: n(r.id),
    sessionId: r.session_id as string,
    role: r.role as Message['role'],
    content: r.content as string,
    toolName: (r.tool_name as string | null) ?? null,
    toolCalls: (r.tool_calls as string | null) ?? null,
    toolCallId: (r.tool_call_id as string | null) ?? null,
    externalId: (r.external_id as string | null) ?? null,
    createdAt: n(r.created_at),
    visibility: r.visibility as Message['visibility'],
    editedAt: nn(r.edited_at),
  };
}

/** A projects row + its folders as the wire Project. */
export function toProject(r: Row, folders: Array<{ path: string; isPrimary: boolean }>): Project {
  return {
    id: r.id as string,
    name: r.name as string,
    slug: r.slug as string,
    description: (r.description as string | null) ?? null,
    color: (r.color as string | null) ?? null,
    icon: (r.icon as string | null) ?? null,
    archived: r.archived === true,
    createdAt: n(r.created_at),
    updatedAt: n(r.updated_at),
    folders,
    sessionCount: n(r.session_count ?? 0),
  };
}

/** Visible visibilities as an SQL list literal (constants, never user input). */
export const VISIBLE_SQL = "('live','compacted')";

/** Session columns plus the visible-message aggregates of the wire Session. */
export const SESSION_SELECT = `select s.*,
  (select count(*) from messages m where m.session_id = s.id and m.visibility in ${VISIBLE_SQL}) as message_count,
  (select max(m.created_at) from messages m where m.session_id = s.id and m.visibility in ${VISIBLE_SQL}) as last_message_at
  from sessions s`;
