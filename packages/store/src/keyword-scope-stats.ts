/**
 * BM25 with the searched scope's own statistics on SQLite. FTS5's `bm25()` takes the message
 * count, the mean length and each phrase's document frequency over the whole `messages_fts`
 * table — every project of the profile — so the order of two messages of project A changed with
 * what project B held (and revealed something of it). The ranked queries of keyword-rank.ts still
 * let FTS5 order the candidates (fast, in C); their best rows are then scored again here with the
 * scope's statistics, by the formula FTS5 uses (keyword-bm25.ts, the one PostgreSQL uses too):
 *
 * - messages and total length of a project: `keyword_scope_totals` (migration 0008, kept by
 *   fts-index.ts in the index's own transactions); of a project-less conversation's own history:
 *   summed from FTS5's per-row sizes of its messages;
 * - each phrase's document frequency: the phrase's rows tested against the project's rows (a
 *   bitmap of its scope-token rows), kept per connection while only new messages were added and
 *   then brought up to date from the new rows' own text, one read for every kept phrase (or, where the bitmap is not
 *   available, an FTS5 count joined to the project; for a list of sessions, joined to their messages);
 * - a candidate's term frequencies: its stored text through the index's own tokenisation
 *   (indexColumns, then FTS5's `porter unicode61 remove_diacritics 2` rules in TypeScript), its
 *   length from FTS5's per-row size.
 *
 * keyword-rank.ts reads more candidates until bm25ScopedBound proves that no unread match can
 * score above the last kept hit, so the answer is the full scoped ranking, not an approximation
 * of it. Nothing here reads another project's rows except through whole-table counts that only
 * bound the candidate window (never a score, a row or a count shown to anyone).
 */
import type { RecallDatabase } from '@recall/schema';
import { decodeDocsize, decodeVarints, FTS_TABLE, indexRevision, lastMoveSeq, movesSince, projectTotals, scopeToken, scopeTokensClean, scopeTotalsReady } from './fts-index.js';
import { bm25Score, bm25ScopedBound, type Bm25Leaf, type Bm25Stats } from './keyword-bm25.js';
import { stmt, type MessageDetails, type ScopeParams } from './keyword-sql.js';
import { hasCjk, indexColumns, indexedText, porterStem } from './search-text.js';

/** One distinct phrase of a MATCH expression: its column, its tokens, and how often the expression holds it. */
export interface MatchLeaf extends Bm25Leaf {
  /** The phrase as FTS5 syntax (`body : "…"`), counted on its own for its document frequency. */
  readonly phrase: string;
  readonly tokens: readonly string[];
  readonly count: number;
  /**
   * For a CJK phrase, the characters whose occurrences in the indexed text are exactly the phrase's
   * occurrences in its column (a bigram chain `番茄 茄炒` = `番茄炒`; a `cjk` character = itself):
   * counted without tokenising the message. Null: tokenise.
   */
  readonly needle: string | null;
}

/** The needle of a CJK phrase (see MatchLeaf.needle), or null. */
function needleOf(weight: 'A' | 'B', toks: readonly string[]): string | null {
  if (toks.length === 0 || !toks.every((x) => hasCjk(x) && [...x].every((c) => hasCjk(c)))) return null;
  const chars = toks.map((x) => [...x]);
  if (weight === 'B') return toks.length === 1 && chars[0]!.length === 1 ? toks[0]! : null;
  // body: every token a bigram overlapping the next by one character (one CJK run's bigrams).
  if (!chars.every((c) => c.length === 2)) return null;
  for (let i = 1; i < chars.length; i++) if (chars[i]![0] !== chars[i - 1]![1]) return null;
  return chars[0]![0]! + chars.map((c) => c[1]!).join('');
}

/** Occurrences of `needle` in `text`, overlapping ones included. */
function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) count++;
  return count;
}

const PHRASE_RE = /(body|cjk) : "((?:[^"]|"")*)"/g;
/** FTS5 unicode61's token characters (letters, numbers, private use; marks kept with their letter). */
const TOKEN_RE = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;
const LATIN_MARKS_RE = /(\p{Script=Latin})\p{M}+/gu;
const ASCII_RE = /^[\x00-\x7f]*$/;
const LEXEME_CACHE = new Map<string, string>();

/** A token as FTS5's `porter unicode61 remove_diacritics 2` stores it: CJK unchanged; else lower case, Latin diacritics removed, Porter stem. */
function lexeme(token: string): string {
  let out = LEXEME_CACHE.get(token);
  if (out !== undefined) return out;
  if (hasCjk(token)) out = token;
  else if (ASCII_RE.test(token)) out = porterStem(token.toLowerCase());
  else out = porterStem(token.toLowerCase().normalize('NFD').replace(LATIN_MARKS_RE, '$1').normalize('NFC'));
  if (LEXEME_CACHE.size >= 100_000) LEXEME_CACHE.clear();
  LEXEME_CACHE.set(token, out);
  return out;
}

function tokens(text: string): string[] {
  return (text.match(TOKEN_RE) ?? []).map(lexeme);
}

/**
 * tokens(text), except that an ASCII token whose lexeme cannot be one of the phrases' is left as
 * '' (never a phrase token) without stemming it: lower-casing and the Porter stem keep an ASCII
 * word's first character, so a token whose first character (lower case) starts no phrase token is
 * not one. Positions are kept, so phrase frequencies are those of tokens(text).
 */
function phraseTokens(text: string, firsts: ReadonlySet<string>): string[] {
  const out = text.match(TOKEN_RE) ?? [];
  for (let i = 0; i < out.length; i++) {
    const t = out[i]!;
    const c = t.charCodeAt(0);
    if (c < 0x80 && ASCII_RE.test(t) && !firsts.has(String.fromCharCode(c >= 65 && c <= 90 ? c + 32 : c))) out[i] = '';
    else out[i] = lexeme(t);
  }
  return out;
}

/** The distinct phrases FTS5 scores in `match` (the scope token's phrase, weight 0, is left out). */
export function matchLeaves(match: string): MatchLeaf[] {
  const byPhrase = new Map<string, { phrase: string; weight: 'A' | 'B'; tokens: string[]; count: number }>();
  for (const m of match.matchAll(PHRASE_RE)) {
    const known = byPhrase.get(m[0]);
    if (known) known.count++;
    else byPhrase.set(m[0], { phrase: m[0], weight: m[1] === 'body' ? 'A' : 'B', tokens: tokens(m[2]!.replace(/""/g, '"')), count: 1 });
  }
  return [...byPhrase.values()].map((l) => ({ ...l, needle: needleOf(l.weight, l.tokens) }));
}

/** How often `phrase` occurs as consecutive tokens of `column`. */
function phraseFrequency(column: readonly string[], phrase: readonly string[]): number {
  const n = phrase.length;
  if (n === 0) return 0;
  let count = 0;
  for (let i = 0; i + n <= column.length; i++) {
    if (column[i] !== phrase[0]) continue;
    let k = 1;
    while (k < n && column[i + k] === phrase[k]) k++;
    if (k === n) count++;
  }
  return count;
}

/** How often each leaf occurs in a message's indexed columns, by the index's own tokenisation. */
function frequencies(leaves: readonly MatchLeaf[]): (content: string) => number[] {
  const tokenise = leaves.some((l) => l.needle === null);
  const firsts = new Set(leaves.flatMap((l) => l.tokens.map((t) => t[0]!)));
  return (content) => {
    if (!tokenise) {
      const text = indexedText(content);
      return leaves.map((l) => occurrences(text, l.needle!));
    }
    const cols = indexColumns(content);
    const body = phraseTokens(cols.body, firsts);
    const cjk = cols.cjk === '' ? [] : phraseTokens(cols.cjk, firsts);
    return leaves.map((l) => phraseFrequency(l.weight === 'A' ? body : cjk, l.tokens));
  };
}

/** A search's per-scope BM25: the leaves, the scope's statistics, and (lazily) the whole table's for the window bound. */
export interface ScopedRanking {
  readonly leaves: readonly MatchLeaf[];
  readonly scoped: Bm25Stats;
  /**
   * Each leaf's document frequency in the whole index where this search already counted it (the
   * window bound's statistics), else null. With `scoped.documentFrequency` it tells keyword-rank.ts
   * how many rows a match can have without counting them (matchBounds).
   */
  readonly wholeFrequency: readonly number[] | null;
  /** Per-scope scores (higher is better) of these indexed messages. */
  score(ids: readonly number[]): Map<number, number>;
  /** The most a match scoring at most `wholeScore` by FTS5's bm25() can score in the scope. */
  bound(wholeScore: number): number;
}

const DF_SQL = `SELECT count(*) FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH @match`;
const DF_PROJECT_JOIN_SQL = `SELECT count(*) FROM ${FTS_TABLE}
  CROSS JOIN messages AS m ON m.id = ${FTS_TABLE}.rowid
  CROSS JOIN sessions AS s ON s.id = m.session_id
  WHERE ${FTS_TABLE} MATCH @match AND s.project_id = @projectId`;
const DF_SESSIONS_SQL = `SELECT count(*) FROM ${FTS_TABLE}
  CROSS JOIN messages AS m ON m.id = ${FTS_TABLE}.rowid
  WHERE ${FTS_TABLE} MATCH @match AND ${FTS_TABLE}.rowid BETWEEN @minId AND @maxId
    AND m.session_id IN (SELECT value FROM json_each(@sessions))`;
const SESSIONS_SIZES_SQL = `SELECT x.sz FROM messages AS m CROSS JOIN ${FTS_TABLE}_docsize AS x ON x.id = m.id
  WHERE m.session_id IN (SELECT value FROM json_each(@sessions))`;
const SIZES_SQL = `SELECT id, sz FROM ${FTS_TABLE}_docsize WHERE id IN (SELECT value FROM json_each(?))`;
const AVERAGES_SQL = `SELECT block FROM ${FTS_TABLE}_data WHERE id = 1`;
const DETAILS_SQL = `SELECT id, content FROM messages WHERE id IN (SELECT value FROM json_each(?))`;
const SCOPE_ROWS_SQL = `SELECT rowid FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH @match AND rowid > @after`;
const PROJECT_ROWS_AFTER_SQL = `SELECT x.id FROM ${FTS_TABLE}_docsize AS x CROSS JOIN messages AS m ON m.id = x.id
  CROSS JOIN sessions AS s ON s.id = m.session_id WHERE x.id > @after AND s.project_id = @projectId`;

/** The largest rowid of the index: new messages get rowids above it. */
const INDEX_TOP_SQL = `SELECT coalesce(max(id), 0) FROM ${FTS_TABLE}_docsize`;
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
let readPhraseRowsOverride: number | null = null;

/**
 * Test knob: counts every phrase by reading its rows up to `max` rows in the whole index (0: always
 * FTS5's `scope token AND phrase` count), or by the default rule again with null. Returns the
 * previous setting. Never changes a count, only how it is taken.
 */
export function setPhraseReadMax(max: number | null): number | null {
  const previous = readPhraseRowsOverride;
  readPhraseRowsOverride = max;
  return previous;
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
  const readMax = readPhraseRowsOverride ?? Math.max(READ_PHRASE_ROWS_MAX, projectRowCount / 8);
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
interface IndexState {
  readonly revision: number;
  readonly revisionSum: number;
  readonly moveSeq: number;
}

/** Moves a connection applies to what it kept, at most, and moved rows it reads for them. */
const MOVES_APPLIED_MAX = 64;
const MOVED_ROWS_MAX = 4_096;
const SESSION_ROWS_SQL = `SELECT x.id AS id, m.content AS content FROM messages AS m CROSS JOIN ${FTS_TABLE}_docsize AS x ON x.id = m.id
  WHERE m.session_id = @sessionId AND x.id <= @upTo ORDER BY x.id LIMIT @cap`;

/**
 * The sessions whose rows joined (+1) or left (−1) `projectId` since `from`, when the moves logged
 * since then are exactly what moved its revision from `from.revision` (each move bumps its two
 * projects' revisions by one, fts-index.ts) and, with `sums`, every revision's sum (two per move):
 * then nothing but those moves and new messages changed what is counted. Otherwise null.
 */
function movedSessions(db: RecallDatabase, projectId: string, from: IndexState, to: IndexState, sums: boolean): Map<string, number> | null {
  const log = movesSince(db.raw, from.moveSeq, MOVES_APPLIED_MAX);
  if (!log || log.last !== to.moveSeq) return null;
  let touching = 0;
  const net = new Map<string, number>();
  for (const m of log.moves) {
    const delta = (m.toProject === projectId ? 1 : 0) - (m.fromProject === projectId ? 1 : 0);
    if (m.toProject === projectId || m.fromProject === projectId) touching++;
    if (delta !== 0) net.set(m.sessionId, (net.get(m.sessionId) ?? 0) + delta);
  }
  if (to.revision - from.revision !== touching) return null;
  if (sums && to.revisionSum - from.revisionSum !== 2 * log.moves.length) return null;
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
  const cols = indexColumns(content);
  phrasesIn(tokens(cols.body), entry.byFirst.A, held);
  if (cols.cjk !== '') phrasesIn(tokens(cols.cjk), entry.byFirst.B, held);
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
    const net = movedSessions(db, projectId, { revision: set.revision, revisionSum: 0, moveSeq: set.moveSeq }, { ...state, revision: totals.revision }, false);
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
 * The scope's BM25 for `match`, or null where the scope's totals are not available (a read-only
 * connection to a database whose totals were never filled: FTS5's whole-table ranking is kept).
 */
export function scopedRanking(db: RecallDatabase, sp: ScopeParams, match: string, details?: Map<number, MessageDetails>): ScopedRanking | null {
  const leaves = matchLeaves(match);
  let messages: number;
  let tokensTotal: number;
  let documentFrequency: number[];
  let wholeFrequency: number[] | null = null;
  if (sp.kind === 'project') {
    if (!scopeTotalsReady(db.raw)) return null;
    const projectId = sp.params['projectId'] as string;
    const totals = projectTotals(db.raw, projectId);
    messages = totals.messages;
    tokensTotal = totals.tokens;
    // The scope token's rows are the project's only while no moved session awaits its rewrite
    // (never drained here: a search writes only where it needs the token's speed, keyword-rank.ts).
    // Read before the project's rows, so that their set holds every project row up to it.
    const upTo = stmt(db, INDEX_TOP_SQL).pluck().get() as number;
    const state: IndexState = { revision: totals.revision, revisionSum: indexRevision(db.raw), moveSeq: lastMoveSeq(db.raw) };
    const rows = scopeTokensClean(db.raw) ? projectRows(db, projectId, totals, state) : null;
    if (rows) {
      // One read of each phrase's rows gives both counts: in the project (its row set) and in the
      // whole index (for the window bound only). Kept per connection while only new messages were
      // added, brought up to date by the rows added since (catchUp).
      const known = phraseCounts(db, projectId, state);
      const token = scopeToken(projectId);
      catchUp(db, known, rows, upTo);
      const wholeCounts: number[] = [];
      documentFrequency = leaves.map((l) => {
        let c = known.counts.get(l.phrase);
        if (!c) {
          const n = countPhrase(db, l.phrase, rows, token, totals.messages, upTo);
          keepCount(known, l.phrase, (c = { weight: l.weight, tokens: l.tokens, scoped: n.scoped, whole: n.whole }));
        }
        wholeCounts.push(c.whole);
        return c.scoped;
      });
      wholeFrequency = wholeCounts;
    } else documentFrequency = leaves.map((l) => stmt(db, DF_PROJECT_JOIN_SQL).pluck().get({ match: l.phrase, projectId }) as number);
  } else {
    const p = sp.params;
    messages = 0;
    tokensTotal = 0;
    for (const sz of stmt(db, SESSIONS_SIZES_SQL).pluck().all({ sessions: p['sessions'] }) as Buffer[]) {
      messages++;
      tokensTotal += decodeDocsize(sz);
    }
    documentFrequency = leaves.map((l) => stmt(db, DF_SESSIONS_SQL).pluck().get({ match: l.phrase, minId: p['minId'], maxId: p['maxId'], sessions: p['sessions'] }) as number);
  }
  const scoped: Bm25Stats = { messages: Math.max(messages, 1), averageLength: messages > 0 ? tokensTotal / messages : 1, documentFrequency };
  let whole: Bm25Stats | null = null;
  const wholeStats = (): Bm25Stats => {
    if (whole) return whole;
    const block = stmt(db, AVERAGES_SQL).pluck().get() as Buffer | undefined;
    const [rows, ...columns] = block ? decodeVarints(block) : [0];
    const total = columns.reduce((a, b) => a + b, 0);
    whole = {
      messages: Math.max(rows ?? 0, 1),
      averageLength: (rows ?? 0) > 0 ? total / rows! : 1,
      documentFrequency: wholeFrequency ?? leaves.map((l) => stmt(db, DF_SQL).pluck().get({ match: l.phrase }) as number),
    };
    return whole;
  };
  const cache = new Map<number, number>();
  return {
    leaves,
    scoped,
    wholeFrequency,
    score(ids) {
      const missing = ids.filter((id) => !cache.has(id));
      if (missing.length > 0) {
        const json = JSON.stringify(missing);
        const sizes = new Map<number, number>();
        for (const r of stmt(db, SIZES_SQL).all(json) as { id: number; sz: Buffer }[]) sizes.set(r.id, decodeDocsize(r.sz));
        const texts = new Map<number, string>();
        const unread = details ? missing.filter((id) => !details.has(id)) : missing;
        if (details) for (const id of missing) { const d = details.get(id); if (d) texts.set(id, d.content); }
        if (unread.length > 0) for (const r of stmt(db, DETAILS_SQL).all(JSON.stringify(unread)) as { id: number; content: string }[]) texts.set(r.id, r.content);
        const freqs = frequencies(leaves);
        for (const id of missing) cache.set(id, bm25Score(freqs(texts.get(id) ?? ''), sizes.get(id) ?? 0, leaves, scoped));
      }
      return new Map(ids.map((id) => [id, cache.get(id) ?? 0]));
    },
    bound(wholeScore) {
      return bm25ScopedBound(leaves, wholeStats(), scoped, wholeScore);
    },
  };
}
