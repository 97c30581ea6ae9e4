/**
 * Keeps the FTS5 keyword index (`messages_fts`, created by migration 0002_keyword_index, recreated by
 * 0007_keyword_index_totals) in step with `messages`. The table is contentless (`content=''`): it
 * stores only the token index of the text produced by `indexColumns()` in search-text.ts, keyed by
 * `messages.id`, so the original text lives once, in `messages`. A row is removed with FTS5's
 * 'delete' command given the exact values it was indexed with (recomputed from the message's stored
 * text and the project its session had when the row was written), which also takes it out of the
 * row count and column-length totals BM25 reads: a replaced or deleted row leaves no trace in any
 * score, so after any number of moves, edits and deletes the scores equal a fresh build's. (0002's
 * `contentless_delete=1` removed postings but never the totals, so every rewrite drifted the
 * ranking.) Whether a message is indexed is read from the table's `_docsize` row, never assumed.
 * Hence the one rule for callers: remove a row while `messages` still holds the text it was indexed
 * from (editMessage unindexes before it writes the new text). The store's write path calls
 * `indexMessages` / `unindexMessages` inside its own write transaction (these functions never open
 * one), which keeps a reader from seeing a message without its index row. The index may hold rows
 * of any visibility: the search query filters visibility and hidden sessions through its JOIN, so
 * rewind and compaction need no index write.
 *
 * Each row also carries a `scope` token derived from its session's project. It is only a pre-filter
 * that lets FTS5 intersect a project's rows before BM25 ranking (measured necessary at 1M messages:
 * docs/benchmarks.md); the search always JOINs `sessions.project_id` as well, so a stale token can
 * hide a row but never leak one. A trigger records every session whose project_id changes in
 * `keyword_scope_dirty`, with the project its rows were indexed under; `refreshScopeTokens` rewrites
 * those rows, and the search skips the token
 * while any remain. Tokenisation happens in JS, so SQL migrations cannot fill the index; a state row
 * records which tokenizer version built it and `ensureKeywordIndex` rebuilds on mismatch.
 */
import type { RawDatabase } from '@recall/schema';
import type { Statement } from 'better-sqlite3';
import { indexColumns } from './search-text.js';

/** Bump when `indexColumns()` or `scopeToken()` change their output: the index is then rebuilt once. */
// 2: <private> spans are no longer indexed (an index built before is rebuilt once, dropping their words).
export const KEYWORD_INDEX_VERSION = 2;
export const FTS_TABLE = 'messages_fts';
/** FTS5's per-row token counts of `messages_fts`: a message is indexed exactly when it has a row here. */
const DOCSIZE_TABLE = `${FTS_TABLE}_docsize`;
/** A message's project as its index row carries it: the project before the first pending move, if any. */
const INDEXED_PROJECT_SQL = 'case when d.session_id is null then s.project_id else d.indexed_project_id end';

/**
 * The definition of `messages_fts`, identical to migration 0007 (a test compares them). A database
 * whose table has another definition (made by an earlier draft of 0002, or a future tokenizer
 * change) gets the table recreated and rebuilt by ensureKeywordIndex: the index is derived data.
 */
export const FTS_TABLE_SQL = `CREATE VIRTUAL TABLE \`messages_fts\` USING fts5(
	body,
	cjk,
	scope,
	content = '',
	tokenize = 'porter unicode61 remove_diacritics 2'
)`;

const squash = (sql: string): string => sql.replace(/\s+/g, ' ').trim();

interface IndexStatements {
  insert: Statement;
  projectsOfMessages: Statement;
  remove: Statement;
  indexedRows: Statement;
  version: Statement;
  setVersion: Statement;
  clear: Statement;
  batch: Statement;
  dirtyAny: Statement;
  dirtyList: Statement;
  dirtyClear: Statement;
  dirtyProjects: Statement;
  carries: Statement;
  sessionMessages: Statement;
  sizes: Statement;
  totalsAdd: Statement;
  totalsClear: Statement;
  totalsFlag: Statement;
  setTotalsFlag: Statement;
  totalsOf: Statement;
  revisionSum: Statement;
  allSizes: Statement;
  moveLog: Statement;
  movePrune: Statement;
  movesSince: Statement;
  lastMove: Statement;
}

const statements = new WeakMap<RawDatabase, IndexStatements>();
/** Connections whose index version has been verified (or rebuilt) since they were opened. */
const verified = new WeakSet<RawDatabase>();

function stmts(raw: RawDatabase): IndexStatements {
  let s = statements.get(raw);
  if (!s) {
    s = {
      // Only new ids are inserted (an indexed id is removed first: editMessage, the scope rewrite).
      insert: raw.prepare(`insert into ${FTS_TABLE} (rowid, body, cjk, scope) values (?, ?, ?, ?)`),
      // The 'delete' command must be given the values the row was indexed with (see the file header).
      remove: raw.prepare(`insert into ${FTS_TABLE} (${FTS_TABLE}, rowid, body, cjk, scope) values ('delete', ?, ?, ?, ?)`),
      indexedRows: raw.prepare(
        `select m.id as id, m.content as content, ${INDEXED_PROJECT_SQL} as projectId, x.sz as sz
        from ${DOCSIZE_TABLE} as x
        join messages m on m.id = x.id
        left join sessions s on s.id = m.session_id
        left join keyword_scope_dirty d on d.session_id = m.session_id
        where x.id in (select value from json_each(?))`,
      ),
      projectsOfMessages: raw.prepare(
        `select m.id as id, ${INDEXED_PROJECT_SQL} as projectId
        from messages m
        left join sessions s on s.id = m.session_id
        left join keyword_scope_dirty d on d.session_id = m.session_id
        where m.id in (select value from json_each(?))`,
      ),
      version: raw.prepare('select version from keyword_index_state where id = 1').pluck(),
      setVersion: raw.prepare('insert into keyword_index_state (id, version) values (1, ?) on conflict (id) do update set version = excluded.version'),
      clear: raw.prepare(`insert into ${FTS_TABLE} (${FTS_TABLE}) values ('delete-all')`),
      batch: raw.prepare(
        "select m.id, m.content, s.project_id as projectId from messages m left join sessions s on s.id = m.session_id where m.id > ? and m.visibility <> 'deleted' order by m.id limit ?",
      ),
      dirtyAny: raw.prepare('select exists (select 1 from keyword_scope_dirty)').pluck(),
      dirtyList: raw.prepare('select session_id from keyword_scope_dirty limit 1000').pluck(),
      dirtyClear: raw.prepare('delete from keyword_scope_dirty where session_id = ?'),
      carries: raw.prepare(`select 1 from ${FTS_TABLE} where ${FTS_TABLE} match ? and rowid = cast(? as integer)`).pluck(), // FTS5 drops a `rowid = ?` bound as a JS number (a REAL) next to MATCH
      dirtyProjects: raw.prepare(
        'select d.indexed_project_id as indexed, s.project_id as current from keyword_scope_dirty d left join sessions s on s.id = d.session_id where d.session_id = ?',
      ),
      sessionMessages: raw.prepare(
        `select m.id as id, m.content as content, x.sz as sz from messages m join ${DOCSIZE_TABLE} as x on x.id = m.id where m.session_id = ? and m.id > ? order by m.id limit 2000`,
      ),
      sizes: raw.prepare(`select id, sz from ${DOCSIZE_TABLE} where id in (select value from json_each(?))`),
      totalsAdd: raw.prepare(
        `insert into keyword_scope_totals (project_id, messages, tokens, revision) values (?, ?, ?, ?)
        on conflict (project_id) do update set messages = messages + excluded.messages, tokens = tokens + excluded.tokens, revision = revision + excluded.revision`,
      ),
      totalsClear: raw.prepare('update keyword_scope_totals set messages = 0, tokens = 0, revision = revision + 1'),
      totalsFlag: raw.prepare('select totals from keyword_index_state where id = 1').pluck(),
      setTotalsFlag: raw.prepare('update keyword_index_state set totals = 1 where id = 1'),
      totalsOf: raw.prepare('select messages, tokens, revision from keyword_scope_totals where project_id = ?'),
      revisionSum: raw.prepare('select coalesce(sum(revision), 0) from keyword_scope_totals').pluck(),
      moveLog: raw.prepare('insert into keyword_scope_moves (session_id, from_project, to_project) values (?, ?, ?)'),
      movePrune: raw.prepare('delete from keyword_scope_moves where seq <= ?'),
      movesSince: raw.prepare('select seq, session_id as sessionId, from_project as fromProject, to_project as toProject from keyword_scope_moves where seq > ? order by seq limit ?'),
      lastMove: raw.prepare("select coalesce((select seq from sqlite_sequence where name = 'keyword_scope_moves'), 0)").pluck(),
      allSizes: raw.prepare(
        `select x.sz as sz, ${INDEXED_PROJECT_SQL} as projectId
        from ${DOCSIZE_TABLE} as x
        join messages m on m.id = x.id
        left join sessions s on s.id = m.session_id
        left join keyword_scope_dirty d on d.session_id = m.session_id`,
      ),
    };
    statements.set(raw, s);
  }
  return s;
}

// --------------------------------------------------------------------------------------------
// Scope tokens

const tokenCache = new Map<string, string>();

/**
 * The `scope` token of a project: `ps` + two 32-bit FNV-1a hashes in hex, a single unicode61 token.
 * Any deterministic function works; a collision only makes the pre-filter admit another project's
 * rows, which the JOIN on sessions.project_id then drops. NULL projects get no token.
 */
export function scopeToken(projectId: string | null | undefined): string {
  if (projectId === null || projectId === undefined || projectId === '') return '';
  let token = tokenCache.get(projectId);
  if (token === undefined) {
    let h1 = 0x811c9dc5;
    let h2 = 0x01000193 ^ 0x5bd1e995;
    for (let i = 0; i < projectId.length; i++) {
      const c = projectId.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
      h2 = Math.imul(h2 ^ c, 0x01000193 ^ 0x2f) >>> 0;
    }
    token = `ps${h1.toString(16).padStart(8, '0')}${h2.toString(16).padStart(8, '0')}`;
    if (tokenCache.size > 100_000) tokenCache.clear();
    tokenCache.set(projectId, token);
  }
  return token;
}

// --------------------------------------------------------------------------------------------
// Write path

/**
 * Adds the index rows of NEW messages. Call AFTER the `messages` rows (and their session) are
 * written, inside the caller's write transaction. An id that is already indexed must be unindexed
 * first (the edit path does `unindexMessages` then `indexMessages`): FTS5 refuses a second row with
 * the same id. Empty content is indexed too (no tokens).
 */
export function indexMessages(raw: RawDatabase, rows: ReadonlyArray<{ id: number; content: string }>): void {
  if (rows.length === 0) return;
  // A rebuild reads every stored message, including the rows the caller has just written.
  if (ensureKeywordIndex(raw)) return;
  const s = stmts(raw);
  // We are inside a write transaction: a good moment to rewrite tokens queued by moves.
  if (s.dirtyAny.get() === 1) refreshScopeTokens(raw);
  // One statement for the batch (bulk import). A session still queued for a token rewrite gets the
  // token its other rows carry, so the rewrite (and any removal) knows every row's values.
  const projectOf = new Map<number, string | null>();
  for (const r of s.projectsOfMessages.all(JSON.stringify(rows.map((r) => r.id))) as { id: number; projectId: string | null }[]) projectOf.set(r.id, r.projectId);
  for (const row of rows) {
    const cols = indexColumns(row.content);
    s.insert.run(row.id, cols.body, cols.cjk, scopeToken(projectOf.get(row.id)));
  }
  const totals = new ScopeTotals();
  for (const r of s.sizes.all(JSON.stringify(rows.map((r) => r.id))) as { id: number; sz: Buffer }[]) totals.add(projectOf.get(r.id), 1, decodeDocsize(r.sz));
  // New messages have ids above every indexed row; a re-indexed (edited) one was unindexed first,
  // which moved the revision already.
  totals.write(s, true);
}

/**
 * Removes index rows, with the 'delete' command and the values each was indexed with (so BM25's
 * totals lose it too). Ids that are not indexed are ignored. Call while `messages` still holds the
 * text the row was indexed from, inside the caller's transaction.
 */
export function unindexMessages(raw: RawDatabase, ids: readonly number[]): void {
  if (ids.length === 0) return;
  if (ensureKeywordIndex(raw)) return;
  const s = stmts(raw);
  const totals = new ScopeTotals();
  for (const r of s.indexedRows.all(JSON.stringify(ids)) as { id: number; content: string; projectId: string | null; sz: Buffer }[]) {
    const cols = indexColumns(r.content);
    s.remove.run(r.id, cols.body, cols.cjk, scopeToken(r.projectId));
    totals.add(r.projectId, -1, -decodeDocsize(r.sz));
  }
  totals.write(s);
}

/**
 * Whether an indexed row carries the scope token `token` ('' = none): FTS5's scope-column size (one
 * token or none) and, for a project token, a rowid-bounded MATCH of it.
 */
function carriesScope(s: IndexStatements, id: number, sz: Uint8Array, token: string): boolean {
  const scopeSize = decodeVarints(sz)[2] ?? 0;
  if (token === '') return scopeSize === 0;
  return scopeSize === 1 && s.carries.get(`scope : "${token}"`, id) !== undefined;
}

/**
 * Rewrites the scope tokens of these sessions' messages from their current project_id and clears
 * them from `keyword_scope_dirty`. Optional for the move code (the trigger queues moved sessions
 * and the next search or index write drains the queue), but calling it inside the move transaction
 * makes the very next search use the fast path. Each row is removed with the values it was indexed
 * with (the queued project's token) and added with the new token, so the totals BM25 reads stay
 * those of a fresh build. A session that is not queued already carries its project's token and is
 * left as it is. Runs in the caller's transaction. Returns the number of messages rewritten.
 */
export function reindexSessionsScope(raw: RawDatabase, sessionIds: readonly string[]): number {
  const s = stmts(raw);
  let count = 0;
  for (const sessionId of sessionIds) {
    const queued = s.dirtyProjects.get(sessionId) as { indexed: string | null; current: string | null } | undefined;
    if (!queued) continue;
    const from = scopeToken(queued.indexed);
    const to = scopeToken(queued.current);
    // Pages, not iterate(): better-sqlite3 cannot write while a read cursor is open.
    let last = 0;
    const totals = new ScopeTotals();
    while (from !== to) {
      const page = s.sessionMessages.all(sessionId, last) as { id: number; content: string; sz: Buffer }[];
      if (page.length === 0) break;
      if (last === 0 && !carriesScope(s, page[0]!.id, page[0]!.sz, from)) {
        // The queue says the rows carry `from`, the index says otherwise (a file changed behind the
        // index's triggers). A 'delete' with values the row was not indexed with would corrupt the
        // contentless table, so the whole index is rebuilt from `messages` instead (it also clears
        // the queue and the totals), in the caller's transaction.
        return count + rebuildKeywordIndex(raw);
      }
      for (const m of page) {
        const cols = indexColumns(m.content);
        s.remove.run(m.id, cols.body, cols.cjk, from);
        s.insert.run(m.id, cols.body, cols.cjk, to);
        // The row's length counts its scope token: one token with a project, none without.
        const size = decodeDocsize(m.sz);
        totals.add(queued.indexed, -1, -size);
        totals.add(queued.current, 1, size - (from === '' ? 0 : 1) + (to === '' ? 0 : 1));
      }
      count += page.length;
      last = page[page.length - 1]!.id;
    }
    totals.write(s);
    if (last > 0) {
      // Rows were rewritten: two revisions moved (the rows' old and new project); say which (0009).
      const seq = Number(s.moveLog.run(sessionId, queued.indexed, queued.current).lastInsertRowid);
      if (seq % 64 === 0) s.movePrune.run(seq - MOVES_KEPT);
    }
    s.dirtyClear.run(sessionId);
  }
  return count;
}

/**
 * Drains `keyword_scope_dirty` if possible. Returns true when no dirty session remains (the scope
 * token can be trusted as a pre-filter). Inside a transaction it works only if the transaction can
 * write; outside one it opens its own. Read-only connections just report the state.
 */
export function refreshScopeTokens(raw: RawDatabase): boolean {
  const s = stmts(raw);
  if (s.dirtyAny.get() !== 1) return true;
  if (raw.readonly) return false;
  const drain = (): void => {
    for (;;) {
      const ids = s.dirtyList.all() as string[];
      if (ids.length === 0) break;
      reindexSessionsScope(raw, ids);
    }
  };
  try {
    if (raw.inTransaction) drain();
    else raw.transaction(drain).immediate();
  } catch {
    // A read transaction that cannot be upgraded (or a busy writer): leave it for the next caller.
    return false;
  }
  return s.dirtyAny.get() !== 1;
}

/**
 * Makes sure the index was built by the current tokenizer version; rebuilds it otherwise (a database
 * migrated from before 0002, or after a tokenizer change). Checked once per connection. Returns
 * true when it rebuilt. Runs in the caller's transaction if there is one, else in its own.
 */
export function ensureKeywordIndex(raw: RawDatabase): boolean {
  if (verified.has(raw)) return false;
  const current = raw.prepare("select sql from sqlite_master where type = 'table' and name = ?").pluck().get(FTS_TABLE) as string | undefined;
  const sameTable = current !== undefined && squash(current) === squash(FTS_TABLE_SQL);
  if (sameTable && stmts(raw).version.get() === KEYWORD_INDEX_VERSION) {
    if (stmts(raw).totalsFlag.get() !== 1 && !raw.readonly) {
      if (raw.inTransaction) fillScopeTotals(raw);
      else raw.transaction(() => fillScopeTotals(raw)).immediate();
    }
    verified.add(raw);
    return false;
  }
  if (raw.readonly) return false; // searchable but possibly incomplete; a writer will rebuild
  const recreateAndRebuild = (): void => {
    if (!sameTable) {
      statements.delete(raw); // prepared statements refer to the old table
      raw.exec(`DROP TABLE IF EXISTS ${FTS_TABLE}`);
      raw.exec(FTS_TABLE_SQL);
    }
    rebuildKeywordIndex(raw);
  };
  if (raw.inTransaction) recreateAndRebuild();
  else raw.transaction(recreateAndRebuild).immediate();
  return true;
}

/** Drops and rebuilds the whole keyword index from `messages` (e.g. `recall index rebuild`). */
export function rebuildKeywordIndex(raw: RawDatabase, onProgress?: (indexed: number) => void): number {
  const s = stmts(raw);
  const run = (): number => {
    s.clear.run();
    s.totalsClear.run();
    let last = 0;
    let count = 0;
    const totals = new ScopeTotals();
    for (;;) {
      const rows = s.batch.all(last, 5000) as { id: number; content: string; projectId: string | null }[];
      if (rows.length === 0) break;
      const projectOf = new Map<number, string | null>();
      for (const row of rows) {
        const cols = indexColumns(row.content);
        s.insert.run(row.id, cols.body, cols.cjk, scopeToken(row.projectId));
        projectOf.set(row.id, row.projectId);
      }
      for (const r of s.sizes.all(JSON.stringify(rows.map((r) => r.id))) as { id: number; sz: Buffer }[]) totals.add(projectOf.get(r.id), 1, decodeDocsize(r.sz));
      count += rows.length;
      last = rows[rows.length - 1]!.id;
      onProgress?.(count);
    }
    raw.prepare('delete from keyword_scope_dirty').run();
    totals.write(s);
    s.setVersion.run(KEYWORD_INDEX_VERSION);
    s.setTotalsFlag.run();
    return count;
  };
  const count = raw.inTransaction ? run() : raw.transaction(run).immediate();
  verified.add(raw);
  return count;
}

/** SQLite/FTS5 varints (big-endian groups of 7 bits, the 9th byte whole) from a blob. */
export function decodeVarints(blob: Uint8Array): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < blob.length) {
    let v = 0;
    let k = 0;
    for (;;) {
      const b = blob[i++]!;
      if (k === 8) {
        v = v * 256 + b;
        break;
      }
      v = v * 128 + (b & 0x7f);
      k++;
      if ((b & 0x80) === 0 || i >= blob.length) break;
    }
    out.push(v);
  }
  return out;
}

// --------------------------------------------------------------------------------------------
// Per-project totals (migration 0008): messages and summed length of each project's index rows,
// for BM25 with the project's own statistics (keyword-scope-stats.ts). Rows without a project
// are not counted here (a project-less conversation's statistics are summed when it is searched).

/** Changes to keyword_scope_totals gathered over a batch and written once per project. */
class ScopeTotals {
  private readonly byProject = new Map<string, { messages: number; tokens: number }>();
  add(projectId: string | null | undefined, messages: number, tokens: number): void {
    if (projectId === undefined) return;
    // Rows without a project are kept under '' (no project has that id): never a project's
    // statistics, but its revision moves with theirs, so keyword-scope-stats.ts can tell that only
    // new messages were added anywhere (every revision unchanged) and extend its counts.
    if (projectId === null) projectId = '';
    const t = this.byProject.get(projectId);
    if (t) {
      t.messages += messages;
      t.tokens += tokens;
    } else this.byProject.set(projectId, { messages, tokens });
  }
  /** `appended`: the rows were only new messages (ids above every indexed one), the revision stays. */
  write(s: IndexStatements, appended = false): void {
    for (const [projectId, t] of this.byProject) s.totalsAdd.run(projectId, t.messages, t.tokens, appended ? 0 : 1);
    this.byProject.clear();
  }
}

/** Fills keyword_scope_totals from the index rows as they are (FTS5's per-row sizes; nothing re-tokenised). */
function fillScopeTotals(raw: RawDatabase): void {
  const s = stmts(raw);
  s.totalsClear.run();
  const totals = new ScopeTotals();
  for (const r of s.allSizes.iterate() as Iterable<{ sz: Buffer; projectId: string | null }>) totals.add(r.projectId, 1, decodeDocsize(r.sz));
  totals.write(s);
  s.setTotalsFlag.run();
}

/** Moves kept in keyword_scope_moves (the newest; migration 0009). */
const MOVES_KEPT = 1024;

/** One move that rewrote a session's scope tokens (keyword_scope_moves, migration 0009). */
export interface ScopeMove {
  readonly seq: number;
  readonly sessionId: string;
  /** The project the session's index rows carried before (null: none). */
  readonly fromProject: string | null;
  /** The project they carry since (null: none). */
  readonly toProject: string | null;
}

/**
 * Every move logged after `seq`, oldest first, and the newest logged seq; null when the log no
 * longer holds every one of them (pruned, or `seq` is not of this log) or when there are more
 * than `limit`.
 */
export function movesSince(raw: RawDatabase, seq: number, limit: number): { moves: ScopeMove[]; last: number } | null {
  const s = stmts(raw);
  const last = s.lastMove.get() as number;
  if (seq > last) return null;
  if (seq === last) return { moves: [], last };
  if (last - seq > limit) return null;
  const moves = s.movesSince.all(seq, limit) as ScopeMove[];
  // AUTOINCREMENT never reuses a seq and a rolled-back insert takes none: the log holds every seq
  // from seq + 1 to last unless the prune took some.
  if (moves.length !== last - seq || moves[0]!.seq !== seq + 1) return null;
  return { moves, last };
}

/** The seq of the newest logged move (0: none yet). */
export function lastMoveSeq(raw: RawDatabase): number {
  return stmts(raw).lastMove.get() as number;
}

/** Whether every index row carries its session's current project token (no move awaits a rewrite). */
export function scopeTokensClean(raw: RawDatabase): boolean {
  return stmts(raw).dirtyAny.get() !== 1;
}

/** Whether keyword_scope_totals is filled (false only on a read-only connection to a database never opened for writing since migration 0008). */
export function scopeTotalsReady(raw: RawDatabase): boolean {
  return stmts(raw).totalsFlag.get() === 1;
}

/** The sum of every revision in keyword_scope_totals: unchanged while the index changed only by new messages. */
export function indexRevision(raw: RawDatabase): number {
  return stmts(raw).revisionSum.get() as number;
}

/** A project's indexed messages, their summed length in tokens (the scope token included) and the revision of its rows (see migration 0008). */
export function projectTotals(raw: RawDatabase, projectId: string): { messages: number; tokens: number; revision: number } {
  return (stmts(raw).totalsOf.get(projectId) as { messages: number; tokens: number; revision: number } | undefined) ?? { messages: 0, tokens: 0, revision: 0 };
}

/** A row's length in tokens from its FTS5 `_docsize` value (one varint per column, summed). */
export function decodeDocsize(sz: Uint8Array | null | undefined): number {
  if (!sz) return 0;
  let total = 0;
  for (const v of decodeVarints(sz)) total += v;
  return total;
}
