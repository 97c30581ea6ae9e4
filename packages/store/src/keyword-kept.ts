/**
 * What a connection keeps between searches for the SQLite scoped ranking (keyword-scope-stats.ts):
 * each project's index rows as a bitmap and each phrase's document frequency in the project and in
 * the whole index. Kept while the index changes only by new messages and logged moves
 * (`keyword_scope_totals`' revisions, migration 0008; `keyword_scope_moves`, migration 0009): new
 * rows are read once as text and counted for every kept phrase (catchUp), a moved session's rows
 * are taken in or out (movedSessions); any other write (an edit, a delete, a rebuild) drops them.
 */
import type { RecallDatabase } from '@recall/schema';
import { FTS_TABLE, indexRevision, lastMoveSeq, movesSince, scopeToken, type ScopeMove } from './fts-index.js';
import { stmt } from './keyword-sql.js';
import { columnTokens, type MatchLeaf } from './keyword-tokens.js';
import { testKnob } from './test-knob.js';

const SCOPE_ROWS_SQL = `SELECT rowid FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH @match AND rowid > @after`;
const PROJECT_ROWS_AFTER_SQL = `SELECT x.id FROM ${FTS_TABLE}_docsize AS x CROSS JOIN messages AS m ON m.id = x.id
  CROSS JOIN sessions AS s ON s.id = m.session_id WHERE x.id > @after AND s.project_id = @projectId`;

/** The largest rowid of the index: new messages get rowids above it. */
export const INDEX_TOP_SQL = `SELECT coalesce(max(id), 0) FROM ${FTS_TABLE}_docsize`;
/**
 * New index rows a connection reads as text to bring its kept phrase counts up to date, at most;
 * more than that since the last search (a bulk import), and the counts are taken again instead.
 */
const CATCH_UP_ROWS = 512;
const NEW_ROWS_SQL = `SELECT x.id AS id, m.content AS content FROM ${FTS_TABLE}_docsize AS x CROSS JOIN messages AS m ON m.id = x.id
  WHERE x.id > @after AND x.id <= @upTo ORDER BY x.id LIMIT @cap`;
const PHRASE_ROWS_SQL = `SELECT rowid FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH @match AND rowid <= cast(@upTo AS integer)`;
const PHRASE_COUNT_SQL = `SELECT count(*) FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH @match AND rowid <= cast(@upTo AS integer)`;
/**
 * How a phrase is counted in a project, by its rows in the whole index: up to this many (or an
 * eighth of the project's rows, if more), its rows are read into JavaScript and tested against the
 * project's row set (about 0.15 µs a row); above, FTS5 counts `scope token AND phrase` and the whole
 * index's rows in C (about 0.05 µs a row, plus the project's token list: ~1.2 ms for 100k rows),
 * so a character in a third of a million messages costs ~24 ms instead of ~64 ms (docs/benchmarks.md).
 */
const READ_PHRASE_ROWS_MAX = 4_000;
const phraseReadMax = testKnob<number>();

/**
 * Test knob: counts every phrase by reading its rows up to `max` rows in the whole index (0: always
 * FTS5's `scope token AND phrase` count), or by the default rule again with null. Returns the
 * previous setting. Never changes a count, only how it is taken.
 */
export function setPhraseReadMax(max: number | null): number | null {
  return phraseReadMax.set(max);
}
/**
 * Each phrase's last known row count in the whole index, per connection, kept across every change:
 * it only chooses how the phrase is counted next (never a statistic). Unknown: counted first.
 */
const phraseSizeHint = new WeakMap<object, Map<string, number>>();
const PHRASE_SIZE_HINTS_KEPT = 100_000;

/** A phrase's rows in the project (`rows`: its row set; `token`: its scope token) and in the whole index, up to `upTo`. */
function countPhrase(db: RecallDatabase, phrase: string, rows: Uint8Array, token: string, projectRowCount: number, upTo: number): { scoped: number; whole: number } {
  let hints = phraseSizeHint.get(db.raw);
  if (!hints) phraseSizeHint.set(db.raw, (hints = new Map()));
  const readMax = phraseReadMax.get() ?? Math.max(READ_PHRASE_ROWS_MAX, projectRowCount / 8);
  const hint = hints.get(phrase);
  const whole = hint !== undefined && hint <= readMax ? null : (stmt(db, PHRASE_COUNT_SQL).pluck().get({ match: phrase, upTo }) as number);
  let out: { scoped: number; whole: number };
  if (whole === null || whole <= readMax) {
    const ids = stmt(db, PHRASE_ROWS_SQL).pluck().all({ match: phrase, upTo }) as number[];
    let n = 0;
    for (const id of ids) n += rows[id] ?? 0;
    out = { scoped: n, whole: ids.length };
  } else {
    const scoped = stmt(db, PHRASE_COUNT_SQL).pluck().get({ match: `scope : "${token}" AND (${phrase})`, upTo }) as number;
    out = { scoped, whole };
  }
  if (hints.size >= PHRASE_SIZE_HINTS_KEPT) hints.clear();
  hints.set(phrase, out.whole);
  return out;
}
/** Phrases whose counts a connection keeps per project at most. */
const PHRASE_COUNTS_KEPT = 50_000;

/** A phrase's document frequency in a project and in the whole index (over the rows up to its entry's `upTo`). */
interface PhraseCount {
  readonly weight: 'A' | 'B';
  readonly tokens: readonly string[];
  scoped: number;
  whole: number;
}

/**
 * A connection's kept phrase counts for one project: every count is exact over the index rows up
 * to `upTo`, as of the project's `revision`, the sum of every revision (`revisionSum`) and the
 * newest logged move (`moveSeq`) it has taken in (fts-index.ts, migrations 0008 and 0009).
 */
interface PhraseCounts {
  revision: number;
  revisionSum: number;
  moveSeq: number;
  upTo: number;
  readonly counts: Map<string, PhraseCount>;
  /** The kept phrases of each column by their first token (how a new row finds the phrases it holds). */
  readonly byFirst: { readonly A: Map<string, PhraseCount[]>; readonly B: Map<string, PhraseCount[]> };
}
const phraseCountCache = new WeakMap<object, Map<string, PhraseCounts>>();

function clearCounts(entry: PhraseCounts): void {
  entry.counts.clear();
  entry.byFirst.A.clear();
  entry.byFirst.B.clear();
}

/** Where the searched state stands: the project's revision, every revision's sum, the newest move. */
export interface IndexState {
  readonly revision: number;
  readonly revisionSum: number;
  readonly moveSeq: number;
}

/** Moves a connection applies to what it kept, at most, and moved rows it reads for them. */
const MOVES_APPLIED_MAX = 64;
const MOVED_ROWS_MAX = 4_096;
const SESSION_ROWS_SQL = `SELECT x.id AS id, m.content AS content FROM messages AS m CROSS JOIN ${FTS_TABLE}_docsize AS x ON x.id = m.id
  WHERE m.session_id = @sessionId AND x.id <= @upTo ORDER BY x.id LIMIT @cap`;

/** Every move logged from `from.moveSeq` up to `to.moveSeq`, or null when the log no longer holds them or more than MOVES_APPLIED_MAX happened. */
function logSince(db: RecallDatabase, from: Pick<IndexState, 'moveSeq'>, to: Pick<IndexState, 'moveSeq'>): ScopeMove[] | null {
  const log = movesSince(db.raw, from.moveSeq, MOVES_APPLIED_MAX);
  return log && log.last === to.moveSeq ? log.moves : null;
}

/**
 * The moves since `from` when they are all that changed any revision since (each bumps two by one,
 * so every revision's sum grows by twice their number), or null: then something else was written.
 */
export function onlyMovesSince(db: RecallDatabase, from: Omit<IndexState, 'revision'>, to: Omit<IndexState, 'revision'>): ScopeMove[] | null {
  const moves = logSince(db, from, to);
  return moves && to.revisionSum - from.revisionSum === 2 * moves.length ? moves : null;
}

/**
 * The sessions whose rows joined (+1) or left (−1) `projectId` since `from`, when the moves logged
 * since then are exactly what moved its revision from `from.revision` (each move bumps its two
 * projects' revisions by one, fts-index.ts) and, with `sums`, every revision's sum (two per move):
 * then nothing but those moves and new messages changed what is counted. Otherwise null.
 */
function movedSessions(db: RecallDatabase, projectId: string, from: IndexState, to: IndexState, sums: boolean): Map<string, number> | null {
  const log = sums ? onlyMovesSince(db, from, to) : logSince(db, from, to);
  if (!log) return null;
  let touching = 0;
  const net = new Map<string, number>();
  for (const m of log) {
    const delta = (m.toProject === projectId ? 1 : 0) - (m.fromProject === projectId ? 1 : 0);
    if (m.toProject === projectId || m.fromProject === projectId) touching++;
    if (delta !== 0) net.set(m.sessionId, (net.get(m.sessionId) ?? 0) + delta);
  }
  if (to.revision - from.revision !== touching) return null;
  for (const [id, d] of net) if (d === 0) net.delete(id);
  return net;
}

/**
 * The phrase counts this connection already took for a project, brought to `state` where only
 * moves and new messages happened since (movedSessions: the moved sessions' rows, read once as
 * text, add to or take from the project's count of each kept phrase they hold; the whole index's
 * counts do not change with a move), else empty. New rows are added by catchUp. Questions share
 * characters and words, and a conversation appends between them.
 */
function phraseCounts(db: RecallDatabase, projectId: string, state: IndexState): PhraseCounts {
  let cache = phraseCountCache.get(db.raw);
  if (!cache) phraseCountCache.set(db.raw, (cache = new Map()));
  let known = cache.get(projectId);
  if (known && (known.revision !== state.revision || known.revisionSum !== state.revisionSum || known.moveSeq !== state.moveSeq)) {
    const net = known.counts.size > 0 ? movedSessions(db, projectId, known, state, true) : null;
    if (!net || !applyMoves(db, known, net)) clearCounts(known);
    known.revision = state.revision;
    known.revisionSum = state.revisionSum;
    known.moveSeq = state.moveSeq;
  }
  if (!known) {
    if (cache.size >= PROJECT_ROWS_KEPT) cache.clear();
    cache.set(projectId, (known = { ...state, upTo: 0, counts: new Map(), byFirst: { A: new Map(), B: new Map() } }));
  }
  if (known.counts.size >= PHRASE_COUNTS_KEPT) clearCounts(known);
  return known;
}

/** Adds each moved session's rows up to `entry.upTo` to (or takes them from) the project's kept counts; false when there were too many to read. */
function applyMoves(db: RecallDatabase, entry: PhraseCounts, net: ReadonlyMap<string, number>): boolean {
  let budget = MOVED_ROWS_MAX;
  const held = new Set<PhraseCount>();
  for (const [sessionId, delta] of net) {
    const rows = stmt(db, SESSION_ROWS_SQL).all({ sessionId, upTo: entry.upTo, cap: budget + 1 }) as { id: number; content: string }[];
    budget -= rows.length;
    if (budget < 0) return false;
    for (const r of rows) {
      held.clear();
      heldPhrases(r.content, entry, held);
      for (const c of held) c.scoped += delta;
    }
  }
  return true;
}

/** The kept phrases of `entry` that a message's indexed text holds (the index's own tokenisation). */
function heldPhrases(content: string, entry: PhraseCounts, held: Set<PhraseCount>): void {
  const cols = columnTokens(content);
  phrasesIn(cols.body, entry.byFirst.A, held);
  phrasesIn(cols.cjk, entry.byFirst.B, held);
}

/** Keeps `count` and indexes it by its first token. */
function keepCount(entry: PhraseCounts, phrase: string, count: PhraseCount): void {
  entry.counts.set(phrase, count);
  const first = count.tokens[0];
  if (first === undefined) return;
  const byFirst = entry.byFirst[count.weight];
  const list = byFirst.get(first);
  if (list) list.push(count);
  else byFirst.set(first, [count]);
}

/** Adds to `held` every kept phrase of one column that occurs in its tokens. */
function phrasesIn(column: readonly string[], byFirst: Map<string, PhraseCount[]>, held: Set<PhraseCount>): void {
  for (let i = 0; i < column.length; i++) {
    const list = byFirst.get(column[i]!);
    if (!list) continue;
    for (const c of list) {
      if (held.has(c)) continue;
      let k = 1;
      while (k < c.tokens.length && column[i + k] === c.tokens[k]) k++;
      if (k === c.tokens.length) held.add(c);
    }
  }
}

/**
 * Brings every kept count of `entry` from its `upTo` to `upTo`: the rows added since are read once
 * and tokenised as the index tokenises them, and each kept phrase they hold is counted (in the
 * whole index, and in the project where `rows` holds the row) — one read for every phrase, however
 * many there are, instead of an FTS5 range read per phrase (about 1 ms each, even for one new row).
 * More than CATCH_UP_ROWS new rows: the counts are dropped and taken again as phrases are asked for.
 */
function catchUp(db: RecallDatabase, entry: PhraseCounts, rows: Uint8Array, upTo: number): void {
  if (entry.upTo >= upTo) return;
  if (entry.counts.size > 0) {
    const fresh = stmt(db, NEW_ROWS_SQL).all({ after: entry.upTo, upTo, cap: CATCH_UP_ROWS + 1 }) as { id: number; content: string }[];
    if (fresh.length > CATCH_UP_ROWS) clearCounts(entry);
    else {
      const held = new Set<PhraseCount>();
      for (const r of fresh) {
        held.clear();
        heldPhrases(r.content, entry, held);
        const inProject = rows[r.id] ?? 0;
        for (const c of held) {
          c.whole++;
          c.scoped += inProject;
        }
      }
    }
  }
  entry.upTo = upTo;
}

/** A project's index rows as a bitmap by rowid, as of a revision of its totals and a logged move (migrations 0008, 0009). */
interface ProjectRows {
  revision: number;
  moveSeq: number;
  count: number;
  maxId: number;
  bits: Uint8Array;
}
/** Projects whose row sets a connection keeps (1 byte per rowid up to the project's largest). */
const PROJECT_ROWS_KEPT = 8;
const projectRowCache = new WeakMap<object, Map<string, ProjectRows>>();
const SESSION_IDS_SQL = `SELECT x.id FROM messages AS m CROSS JOIN ${FTS_TABLE}_docsize AS x ON x.id = m.id WHERE m.session_id = @sessionId AND x.id <= @upTo`;

/**
 * A kept row set brought to `state` through the moves since (movedSessions): a joining session's
 * rows up to the set's largest are set, a leaving one's cleared. False when a row is not where the
 * moves say it was (then the set is read again).
 */
function moveRows(db: RecallDatabase, set: ProjectRows, net: ReadonlyMap<string, number>): boolean {
  for (const [sessionId, delta] of net) {
    for (const id of stmt(db, SESSION_IDS_SQL).pluck().all({ sessionId, upTo: set.maxId }) as number[]) {
      const was = set.bits[id] ?? 0;
      if ((delta > 0) === (was === 1)) return false;
      set.bits[id] = delta > 0 ? 1 : 0;
      set.count += delta > 0 ? 1 : -1;
    }
  }
  return true;
}

/**
 * The project's index rows (1 = the row carries its scope token), read once per connection,
 * extended by the rows added since (new messages only: ids above every indexed one) and moved
 * with the sessions that joined or left it (movedSessions), and read again after any other
 * change. Null if the set does not add up to the project's totals (then the caller counts through
 * the JOIN).
 */
function projectRows(db: RecallDatabase, projectId: string, totals: { messages: number; revision: number }, state: IndexState): Uint8Array | null {
  let cache = projectRowCache.get(db.raw);
  if (!cache) projectRowCache.set(db.raw, (cache = new Map()));
  let set = cache.get(projectId);
  if (set && set.revision === totals.revision && set.moveSeq === state.moveSeq && set.count === totals.messages) return set.bits;
  if (set && (set.revision !== totals.revision || set.moveSeq !== state.moveSeq)) {
    const net = movedSessions(db, projectId, { revision: set.revision, revisionSum: 0, moveSeq: set.moveSeq }, state, false);
    if (net && moveRows(db, set, net)) {
      set.revision = totals.revision;
      set.moveSeq = state.moveSeq;
    } else set = undefined;
  }
  if (!set) set = { revision: totals.revision, moveSeq: state.moveSeq, count: 0, maxId: 0, bits: new Uint8Array(0) };
  // Extending: the new rows by their session's project (what their scope token says while no move
  // awaits its rewrite, the only case this is called in), cheaper than FTS5 loading the token's rows.
  const ids = (set.maxId > 0
    ? stmt(db, PROJECT_ROWS_AFTER_SQL).pluck().all({ projectId, after: set.maxId })
    : stmt(db, SCOPE_ROWS_SQL).pluck().all({ match: `scope : "${scopeToken(projectId)}"`, after: set.maxId })) as number[];
  if (ids.length > 0) {
    const top = ids.reduce((a, b) => (b > a ? b : a), set.maxId);
    if (top >= set.bits.length) {
      const bits = new Uint8Array(Math.max(top + 1, Math.ceil(set.bits.length * 1.25)));
      bits.set(set.bits);
      set.bits = bits;
    }
    for (const id of ids) set.bits[id] = 1;
    set.count += ids.length;
    set.maxId = top;
  }
  if (set.count !== totals.messages) {
    cache.delete(projectId);
    return null;
  }
  if (!cache.has(projectId) && cache.size >= PROJECT_ROWS_KEPT) cache.clear();
  cache.set(projectId, set);
  return set.bits;
}

/**
 * The searched project's document frequency of each leaf (in the project, and in the whole index
 * for the window bound), from what this connection keeps, brought up to the index rows up to
 * `upTo`, and the project's index rows as a bitmap by rowid (`rows`, 1 = the project's, as of this
 * read); null while a moved session awaits its scope-token rewrite or the kept row set does not
 * add up to the project's totals (the caller counts through the JOIN).
 */
export function keptFrequencies(
  db: RecallDatabase,
  projectId: string,
  totals: { messages: number; revision: number },
  leaves: readonly MatchLeaf[],
  upTo: number,
  clean: boolean,
): { state: IndexState; scoped: number[] | null; whole: number[] | null; rows: Uint8Array | null } {
  const state: IndexState = { revision: totals.revision, revisionSum: indexRevision(db.raw), moveSeq: lastMoveSeq(db.raw) };
  const rows = clean ? projectRows(db, projectId, totals, state) : null;
  if (!rows) return { state, scoped: null, whole: null, rows: null };
  // One read of each phrase's rows gives both counts: in the project (its row set) and in the
  // whole index (for the window bound only). Kept per connection while only new messages were
  // added, brought up to date by the rows added since (catchUp).
  const known = phraseCounts(db, projectId, state);
  const token = scopeToken(projectId);
  catchUp(db, known, rows, upTo);
  const whole: number[] = [];
  const scoped = leaves.map((l) => {
    let c = known.counts.get(l.phrase);
    if (!c) {
      const n = countPhrase(db, l.phrase, rows, token, totals.messages, upTo);
      keepCount(known, l.phrase, (c = { weight: l.weight, tokens: l.tokens, scoped: n.scoped, whole: n.whole }));
    }
    whole.push(c.whole);
    return c.scoped;
  });
  return { state, scoped, whole, rows };
}
