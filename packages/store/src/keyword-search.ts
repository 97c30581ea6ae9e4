/**
 * Project-scoped keyword search over messages and conversation titles. The scope (a project, or an
 * explicit list of sessions for a caller whose project is NULL) is applied in the same SQL statement
 * as the FTS5 MATCH, through the JOIN to `sessions`, before ORDER BY/LIMIT: nothing is fetched
 * globally and filtered afterwards, and the candidate set is never capped at an arbitrary N. The
 * JOIN also enforces visibility (live/compacted only) and hides hidden sessions, so the index itself
 * may contain any row. Ranking is FTS5 BM25 over the query terms that match; sessions from automated
 * sources rank below interactive ones; `sort: newest|oldest` reorders the top relevance candidates.
 * Snippets are cut in JS from the original text with matches marked «like this». Deduplication per
 * logical conversation is the caller's (the session_search tool's) job.
 */
import { MESSAGE_ROLES, type MessageRole } from '@recall/rpc-contract';
import { VISIBLE_VISIBILITIES, type RecallDatabase } from '@recall/schema';
import type { Statement } from 'better-sqlite3';
import { ensureKeywordIndex, FTS_TABLE, refreshScopeTokens, scopeToken } from './fts-index.js';
import { DEFAULT_CJK_BACKOFF, findTermSpans, parseQuery, termNeedles, type CjkBackoff, type ParsedQuery, type QueryTerm, type TermSpan } from './fts-query.js';
import { hasCjk, likeOutsidePrivate, MAX_INDEXED_CHARS, normalizeForSearch } from './search-text.js';

/**
 * Where a keyword search looks: one project's sessions, or an explicit list of sessions (for a caller
 * whose session has no project, e.g. its own history from ownHistorySessionIds). Hidden sessions are
 * never searched. `excludeSessionIds`: sessions whose *live* messages (and titles) are skipped — the
 * caller's own live context, which it already has. Their compacted messages have left the live context and stay
 * findable, so in-place compaction never makes history unreachable for the conversation itself.
 */
export type KeywordScope =
  | { kind: 'project'; projectId: string; excludeSessionIds?: readonly string[] }
  | { kind: 'sessions'; sessionIds: readonly string[]; excludeSessionIds?: readonly string[] };

/** Order of keyword hits: best match first, or the best matches re-ordered newest or oldest first. */
export type KeywordSort = 'relevance' | 'newest' | 'oldest';

/** `sessions.source` values that mark unattended runs; their hits rank below interactive ones. */
export const AUTOMATED_SOURCES: readonly string[] = ['cron', 'automation', 'automated', 'scheduler', 'schedule'];

/** Message hits `keywordSearch` returns when `limit` is not given. */
export const DEFAULT_KEYWORD_LIMIT = 20;
/** Largest `limit` of `keywordSearch`; larger values are clamped to it. */
export const MAX_KEYWORD_LIMIT = 500;
/** Title hits returned when `titleLimit` (keywordSearch) or `limit` (searchTitles) is not given. */
export const DEFAULT_TITLE_LIMIT = 5;
/** Largest title limit; larger values are clamped to it. */
export const MAX_TITLE_LIMIT = 50;
/** Approximate snippet length in characters when `snippetChars` is not given. */
export const DEFAULT_SNIPPET_CHARS = 240;
/** Opens a matched term inside a snippet (`«term»`). Stored text containing it is not escaped. */
export const HIGHLIGHT_OPEN = '«';
/** Closes a matched term inside a snippet (see HIGHLIGHT_OPEN). */
export const HIGHLIGHT_CLOSE = '»';

/**
 * BM25 column weights: `body` (Latin words and CJK bigram phrases) counts fully; `cjk` (single CJK
 * characters, the fallback for one-character words and for differently-segmented words) counts
 * less, so an exact multi-character match outranks scattered characters. `scope` (the project
 * pre-filter token) never counts. Chosen on the dev set in docs/benchmarks.md.
 */
export const BM25_WEIGHTS = { body: 1.0, cjk: 0.5, scope: 0.0 } as const;

/**
 * Options of `keywordSearch`; every field is optional. Fields marked as tuning knobs are for the
 * repository's benchmarks and may change without notice.
 */
export interface KeywordSearchOptions {
  /** Message hits to return (1..500, default 20). */
  limit?: number;
  /** Only these roles; undefined or empty = every role. */
  roleFilter?: readonly MessageRole[];
  /** relevance (default) | newest | oldest — the latter two reorder the top `limit` relevance hits. */
  sort?: KeywordSort;
  /** Title hits to return (0..50, default 5; 0 skips title search). */
  titleLimit?: number;
  /** Approximate snippet length in characters (40..2000, default 240). */
  snippetChars?: number;
  /** Overrides AUTOMATED_SOURCES. */
  automatedSources?: readonly string[];
  /**
   * Partial matching of multi-character CJK words (see fts-query.ts). `auto` (default): one query
   * with the exact words (bigram phrases) OR their characters, leaving out characters common in the
   * index (COMMON_CHARACTER_SHARE) unless that under-fills the list.
   */
  cjkBackoff?: CjkBackoff | 'auto';
  /** Tuning/testing knob: use the scope token from this many index matches (default SCOPE_TOKEN_MIN_MATCHES; 0 = always). */
  scopeTokenMinMatches?: number;
  /**
   * When the index finds no message, look for the query's identifier-like tokens as substrings
   * (`busy_time` inside `busy_timeout`, `ECONNRES` inside `ECONNRESET`) in the scope's most recent
   * SUBSTRING_SCAN_MESSAGES messages. Off by default; the session_search tool turns it on.
   */
  substringFallback?: boolean;
  /** Tuning/testing knob: COMMON_CHARACTER_SHARE (1 = relax with every character). */
  commonCharacterShare?: number;
  /** Tuning/testing knob: rank inside FTS5 (newest RANK_WINDOW matches) before the JOIN (default true; see windowRanked). */
  topFirst?: boolean;
}

/** One message found by `keywordSearch`. */
export interface KeywordHit {
  messageId: number;
  sessionId: string;
  role: MessageRole;
  createdAt: number;
  /** Higher is better: -BM25 for index hits; 0 for literal (LIKE) hits, which are newest first. */
  score: number;
  /** Part of the original content with matches wrapped in HIGHLIGHT_OPEN/HIGHLIGHT_CLOSE. */
  snippet: string;
  /** Query terms (their `text`) found in this message. */
  matchedTerms: string[];
  /** The session's source is automated (ranked below interactive sessions). */
  automated: boolean;
  /** How the hit was found: the FTS index, the literal LIKE search, or the bounded substring fallback. */
  matchedBy: 'index' | 'literal' | 'substring';
}

/** One conversation whose title matched. */
export interface TitleHit {
  sessionId: string;
  title: string;
  /** Higher is better: sum of the IDF (over titles in scope) of the matched terms. */
  score: number;
  matchedTerms: string[];
  automated: boolean;
}

/** What the query became: for the tool's notes and for tests. */
export interface QuerySummary {
  input: string;
  /** Searched terms (normalised), phrases included. */
  terms: string[];
  /** Quoted phrases, which every hit must contain. */
  requiredPhrases: string[];
  stopwords: string[];
  /** `index` = FTS5, `literal` = LIKE substring (query had no searchable words), `none` = nothing to search. */
  mode: 'index' | 'literal' | 'none';
  /** The FTS5 MATCH expression that was run (null unless mode is `index`). */
  match: string | null;
  truncated: boolean;
  notes: string[];
}

/**
 * What `keywordSearch` returns: the parsed query, title hits, message hits and notes (fallbacks,
 * truncation, ranking bounds) to show to the user or model.
 */
export interface KeywordSearchResult {
  query: QuerySummary;
  /** Conversation titles in scope that match, best first (the tool shows them before messages). */
  titleHits: TitleHit[];
  /** Message hits, best first (or in the requested time order). */
  hits: KeywordHit[];
  notes: string[];
}

/** Parses and sanitises a query without searching (for notes, previews, tests). */
export function describeQuery(query: string): QuerySummary {
  return summarize(parseQuery(query));
}

function summarize(parsed: ParsedQuery): QuerySummary {
  return {
    input: parsed.input,
    terms: parsed.terms.map((t) => t.text),
    requiredPhrases: parsed.terms.filter((t) => t.required).map((t) => t.text),
    stopwords: parsed.stopwords,
    mode: parsed.match !== null ? 'index' : parsed.likeNeedle !== null ? 'literal' : 'none',
    match: parsed.match,
    truncated: parsed.truncated,
    notes: parsed.notes,
  };
}

function clampInt(value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

// --------------------------------------------------------------------------------------------
// SQL. One statement text per scope kind; list parameters are JSON arrays read with json_each so the
// statement is prepared once per connection whatever the list sizes.

const VISIBLE = VISIBLE_VISIBILITIES.map((v) => `'${v}'`).join(', ');

/** Session-level scope (titles). */
const SCOPE_SQL = {
  project: `s.project_id = @projectId AND s.id NOT IN (SELECT value FROM json_each(@exclude))`,
  sessions: `s.id IN (SELECT value FROM json_each(@sessions)) AND s.id NOT IN (SELECT value FROM json_each(@exclude))`,
} as const;
type ScopeKind = keyof typeof SCOPE_SQL;

/** Message-level scope: excluded sessions lose only their live messages (see KeywordScope). */
const LIVE_EXCLUDED = `NOT (m.visibility = 'live' AND s.id IN (SELECT value FROM json_each(@exclude)))`;
const MESSAGE_SCOPE_SQL = {
  project: `s.project_id = @projectId AND ${LIVE_EXCLUDED}`,
  sessions: `s.id IN (SELECT value FROM json_each(@sessions)) AND ${LIVE_EXCLUDED}`,
} as const;

/**
 * The gate every message query applies (ranked, literal, substring and the ranked window's check):
 * a visible message of the requested roles, in a session that is not hidden, inside the scope. One
 * text so the isolation rule cannot drift between the paths.
 */
function messageGateSql(kind: ScopeKind): string {
  return `m.visibility IN (${VISIBLE})
      AND (@roles IS NULL OR m.role IN (SELECT value FROM json_each(@roles)))
      AND s.hidden = 0
      AND ${MESSAGE_SCOPE_SQL[kind]}`;
}

/** Extra FTS constraint for the sessions scope: the rowid range of those sessions' messages. */
const RANGE_SQL = `AND ${FTS_TABLE}.rowid BETWEEN @minId AND @maxId`;

function rankedSql(kind: ScopeKind): string {
  // CROSS JOIN fixes the join order: FTS first (it yields only matching rows), then the message by
  // primary key, then its session by primary key where the scope is tested. Letting the planner start
  // from the project's sessions would probe the FTS index once per message of the project.
  return `SELECT m.id AS id, bm25(${FTS_TABLE}, ${BM25_WEIGHTS.body}, ${BM25_WEIGHTS.cjk}, ${BM25_WEIGHTS.scope}) AS rank,
      (s.source IN (SELECT value FROM json_each(@automated))) AS automated
    FROM ${FTS_TABLE}
    CROSS JOIN messages AS m ON m.id = ${FTS_TABLE}.rowid
    CROSS JOIN sessions AS s ON s.id = m.session_id
    WHERE ${FTS_TABLE} MATCH @match ${kind === 'sessions' ? RANGE_SQL : ''}
      AND ${messageGateSql(kind)}
    ORDER BY automated ASC, rank ASC, m.id DESC
    LIMIT @limit`;
}

function literalSql(kind: ScopeKind): string {
  // No index can serve an arbitrary substring; the scan is bounded by the scope (sessions first,
  // then their messages through messages_session_idx), never the whole table.
  return `SELECT m.id AS id, 0 AS rank, (s.source IN (SELECT value FROM json_each(@automated))) AS automated
    FROM sessions AS s
    CROSS JOIN messages AS m ON m.session_id = s.id
    WHERE ${messageGateSql(kind)}
      AND m.content LIKE @pattern ESCAPE '\\'
    ORDER BY automated ASC, m.created_at DESC, m.id DESC
    LIMIT @limit`;
}

/** Messages (most recent sessions first) the substring fallback reads at most per call. */
export const SUBSTRING_SCAN_MESSAGES = 20_000;
/** Tokens of the query used by the fallback (each must occur), and their minimum length. */
const SUBSTRING_MAX_NEEDLES = 4;
const SUBSTRING_MIN_CHARS = 3;

function substringSql(kind: ScopeKind): string {
  // The inner query bounds the work: the scope's sessions newest first (sessions_project_idx), then
  // their messages by messages_session_idx, cut at @scan rows; only those rows are tested with LIKE.
  const needles = Array.from({ length: SUBSTRING_MAX_NEEDLES }, (_, i) => `(@n${i} IS NULL OR c.content LIKE @n${i} ESCAPE '\\')`).join(' AND ');
  return `SELECT c.id AS id, 0 AS rank, c.automated AS automated FROM (
      SELECT m.id AS id, m.content AS content, (s.source IN (SELECT value FROM json_each(@automated))) AS automated
      FROM sessions AS s
      CROSS JOIN messages AS m ON m.session_id = s.id
      WHERE ${messageGateSql(kind)}
      ORDER BY s.started_at DESC, m.id DESC
      LIMIT @scan) AS c
    WHERE ${needles}
    ORDER BY c.automated ASC, c.id DESC
    LIMIT @limit`;
}

/** Identifier-like tokens of a query for the substring fallback (null: nothing worth scanning for). */
export function substringNeedles(query: string): string[] | null {
  // Identifier-like tokens only (Latin letters, digits, _ . : / -): a natural-language or CJK
  // question that found nothing is not a fragment of a longer word.
  // In a longer query only tokens that look like code (a _ . : / - or digit, or a capital letter:
  // busy_time, ECONNRES, retryPol) are searched, so "what was busy_time" needs only busy_time.
  const words = query.normalize('NFKC').split(/[\s"“”「」『』,;()?!]+/u).filter((t) => t.length >= SUBSTRING_MIN_CHARS && /^[A-Za-z0-9_.:/-]+$/.test(t));
  const tokens = [...new Set(words.length === 1 ? words : words.filter((t) => /[_.:/\-0-9]/.test(t) || /[A-Z]/.test(t.slice(1))))];
  if (tokens.length === 0 || tokens.length > SUBSTRING_MAX_NEEDLES) return null;
  return tokens.map((t) => t.slice(0, 200));
}

/**
 * Title candidates. With needles, a pre-filter keeps only titles containing at least one of them;
 * JS then verifies. Needles are bound one parameter each (a json_each list would be re-read for every
 * title). Latin needles (lower-case ASCII) are tested on lower(title) and also keep titles with any
 * full-width letter/digit, which only NFKC in JS can fold; CJK needles need neither.
 */
function titlesSql(kind: ScopeKind, needles: { latin: number; cjk: number } | null): string {
  let filter = '';
  if (needles) {
    const tests = [
      ...Array.from({ length: needles.latin }, (_, i) => `instr(lower(s.title), @n${i}) > 0`),
      ...Array.from({ length: needles.cjk }, (_, i) => `instr(s.title, @n${needles.latin + i}) > 0`),
    ];
    if (needles.latin > 0) tests.push(`s.title GLOB '*[Ａ-Ｚａ-ｚ０-９]*'`);
    filter = `AND (${tests.join(' OR ')})`;
  }
  return `SELECT s.id AS id, s.title AS title, (s.source IN (SELECT value FROM json_each(@automated))) AS automated
    FROM sessions AS s
    WHERE ${SCOPE_SQL[kind]} AND s.hidden = 0 AND s.title IS NOT NULL AND s.title <> '' ${filter}`;
}

const TITLE_COUNT_SQL = {
  project: `SELECT count(*) FROM sessions AS s WHERE ${SCOPE_SQL.project} AND s.hidden = 0 AND s.title IS NOT NULL AND s.title <> ''`,
  sessions: `SELECT count(*) FROM sessions AS s WHERE ${SCOPE_SQL.sessions} AND s.hidden = 0 AND s.title IS NOT NULL AND s.title <> ''`,
} as const;

interface MessageDetails {
  id: number;
  sessionId: string;
  role: MessageRole;
  createdAt: number;
  content: string;
}
const DETAILS_SQL = `SELECT id, session_id AS sessionId, role, created_at AS createdAt, content
  FROM messages WHERE id IN (SELECT value FROM json_each(?))`;
const RANGE_OF_SESSIONS_SQL = `SELECT min(id) AS minId, max(id) AS maxId FROM messages
  WHERE session_id IN (SELECT value FROM json_each(?))`;

const statementCache = new WeakMap<object, Map<string, Statement>>();
function stmt(db: RecallDatabase, sql: string): Statement {
  let cache = statementCache.get(db.raw);
  if (!cache) statementCache.set(db.raw, (cache = new Map()));
  let s = cache.get(sql);
  if (!s) cache.set(sql, (s = db.raw.prepare(sql)));
  return s;
}

/** The exact SQL the ranked message query runs for a scope kind (for EXPLAIN QUERY PLAN tests). */
export function keywordSearchSql(kind: ScopeKind): string {
  return rankedSql(kind);
}

interface ScopeParams {
  kind: ScopeKind;
  params: Record<string, unknown>;
}

/** Validates the scope into bound parameters; null = the scope is empty (nothing can match). */
function scopeParams(db: RecallDatabase, scope: KeywordScope): ScopeParams | null {
  if (scope?.kind === 'project') {
    if (typeof scope.projectId !== 'string' || scope.projectId.length === 0) return null;
    const exclude = (scope.excludeSessionIds ?? []).filter((id): id is string => typeof id === 'string');
    return { kind: 'project', params: { projectId: scope.projectId, exclude: JSON.stringify(exclude) } };
  }
  if (scope?.kind === 'sessions') {
    const ids = (scope.sessionIds ?? []).filter((id): id is string => typeof id === 'string');
    if (ids.length === 0) return null;
    const json = JSON.stringify(ids);
    const exclude = (scope.excludeSessionIds ?? []).filter((id): id is string => typeof id === 'string');
    const range = stmt(db, RANGE_OF_SESSIONS_SQL).get(json) as { minId: number | null; maxId: number | null };
    return { kind: 'sessions', params: { sessions: json, exclude: JSON.stringify(exclude), minId: range.minId ?? 0, maxId: range.maxId ?? -1 } };
  }
  return null; // unknown scope kinds never widen to "everything"
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

interface RankedRow {
  id: number;
  rank: number;
  automated: number;
}

/**
 * Below this many matches in the whole index (counted with a bounded probe), the scope token is not
 * worth its fixed cost (BM25 reads the token's whole posting list for its IDF): the JOIN alone
 * filters a few hundred rows faster. Above it, the token lets FTS5 intersect the project first.
 */
export const SCOPE_TOKEN_MIN_MATCHES = 1000;
const PROBE_SQL = `SELECT count(*) FROM (SELECT 1 FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH @match LIMIT @cap)`;

function runRanked(
  db: RecallDatabase,
  sp: ScopeParams,
  base: Record<string, unknown>,
  match: string,
  limit: number,
  minMatches: number,
  useTopFirst = true,
  onWindowed?: () => void,
): RankedRow[] {
  let m = match;
  // The project token is only a pre-filter: used when there are many matches overall and no session
  // is waiting for a token rewrite after a move. The JOIN in rankedSql stays authoritative.
  const many = minMatches <= 0 || (stmt(db, PROBE_SQL).pluck().get({ match, cap: minMatches }) as number) >= minMatches;
  if (sp.kind === 'project' && many && refreshScopeTokens(db.raw)) {
    m = `scope : "${scopeToken(sp.params['projectId'] as string)}" AND (${match})`;
    if (useTopFirst) {
      const out = windowRanked(db, base, m, limit);
      if (out.windowed) onWindowed?.();
      return out.rows;
    }
  }
  return stmt(db, rankedSql(sp.kind)).all({ ...base, match: m, limit }) as RankedRow[];
}

/**
 * The most matching messages of a project BM25 scores per query. FTS5 has no top-k pruning: a query
 * matching tens of thousands of messages of a big project scores every one of them (the `--dense`
 * stress case of bench:keyword). Walking the match newest first and scoring at most this many keeps
 * the cost bounded whatever the project's size; below it (almost every query) the answer is exactly
 * the full ranking. Above it, only the RANK_WINDOW most recent matching messages are ranked, and
 * keywordSearch says so in its notes.
 */
export const RANK_WINDOW = 5_000;
/** Candidates per requested hit taken from the window for the JOIN check (more when it rejects many). */
const CHECK_FACTOR = 4;
const CHECK_MIN = 100;
// The window and the ranking stay in SQLite: only the best @top rows (and the window's size) come
// back to JS, because handing thousands of rows to JS costs more than ranking them.
const WINDOW_SQL = `SELECT id, rank, count(*) OVER () AS n FROM (
    SELECT rowid AS id, bm25(${FTS_TABLE}, ${BM25_WEIGHTS.body}, ${BM25_WEIGHTS.cjk}, ${BM25_WEIGHTS.scope}) AS rank
    FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH @match ORDER BY rowid DESC LIMIT @window)
  ORDER BY rank, id DESC LIMIT @top`;
const CHECK_SQL = `SELECT m.id AS id, (s.source IN (SELECT value FROM json_each(@automated))) AS automated
  FROM json_each(@ids) AS j
  CROSS JOIN messages AS m ON m.id = j.value
  CROSS JOIN sessions AS s ON s.id = m.session_id
  WHERE ${messageGateSql('project')}`;

/**
 * Ranks inside FTS5 first (the scope token already narrows the match to the project), then runs
 * the authoritative JOIN only on the best candidates, in rank order, until `limit` interactive
 * (non-automated) rows survive: no unchecked row can rank above them, because interactive rows sort
 * first and, among them, by the same rank — so within the window the answer equals the full
 * query's, without joining every match to `messages` and `sessions`.
 */
function windowRanked(db: RecallDatabase, base: Record<string, unknown>, match: string, limit: number): { rows: RankedRow[]; windowed: boolean } {
  let top = Math.max(limit * CHECK_FACTOR, CHECK_MIN);
  for (;;) {
    const candidates = stmt(db, WINDOW_SQL).all({ match, window: RANK_WINDOW, top }) as { id: number; rank: number; n: number }[];
    const inWindow = candidates[0]?.n ?? 0;
    const rankOf = new Map(candidates.map((r) => [r.id, r.rank]));
    const kept = (stmt(db, CHECK_SQL).all({ ...base, ids: JSON.stringify(candidates.map((c) => c.id)) }) as { id: number; automated: number }[]).map((r) => ({
      id: r.id,
      rank: rankOf.get(r.id)!,
      automated: r.automated,
    }));
    // Enough interactive survivors, or every candidate of the window was checked: the order is final.
    if (kept.filter((r) => r.automated === 0).length >= limit || candidates.length >= inWindow) {
      kept.sort((a, b) => a.automated - b.automated || a.rank - b.rank || b.id - a.id);
      return { rows: kept.slice(0, limit), windowed: inWindow >= RANK_WINDOW };
    }
    top *= CHECK_FACTOR;
  }
}

/**
 * When none of the top PARAPHRASE_PROBE hits contains at least this share of the query's
 * multi-character CJK words whole, the answer came from characters rather than words (a
 * paraphrase), and the notes say so. Exact questions have a hit that contains most of their words.
 */
export const PARAPHRASE_COVERAGE = 0.67;
const PARAPHRASE_PROBE = 5;

/** Reads the message rows of `ids` not yet in `into`: a search reads each row once, whoever needs it. */
function loadDetails(db: RecallDatabase, ids: readonly number[], into: Map<number, MessageDetails>): void {
  const missing = ids.filter((id) => !into.has(id));
  if (missing.length === 0) return;
  for (const row of stmt(db, DETAILS_SQL).all(JSON.stringify(missing)) as MessageDetails[]) into.set(row.id, row);
}

function lowCjkCoverage(db: RecallDatabase, ranked: readonly RankedRow[], terms: readonly QueryTerm[], details: Map<number, MessageDetails>): boolean {
  const cjk = terms.map((t, i) => ({ t, i })).filter(({ t }) => t.kind === 'cjk' && Array.from(t.text).length > 1);
  if (cjk.length < 2 || ranked.length === 0) return false;
  const want = cjk.map(({ t }) => t);
  const top = ranked.slice(0, PARAPHRASE_PROBE).map((r) => r.id);
  loadDetails(db, top, details);
  let best = 0;
  for (const id of top) {
    const row = details.get(id);
    if (!row) continue;
    const text = normalizeForSearch(row.content.length > MAX_INDEXED_CHARS ? row.content.slice(0, MAX_INDEXED_CHARS) : row.content);
    const whole = new Set(findTermSpans(text, want).filter((x) => !x.partial).map((x) => x.term));
    best = Math.max(best, whole.size / want.length);
  }
  return best < PARAPHRASE_COVERAGE;
}

/**
 * Characters in more than this share of the index's messages (and at least COMMON_CHARACTER_MIN_DOCS)
 * are left out of character-by-character relaxation. They tell messages apart poorly (low IDF), yet
 * each one makes FTS5 read its whole posting list (for BM25's IDF and the OR merge): on 1M messages
 * `一` alone is in 230k. Chosen on the dev questions (docs/benchmarks.md, `pnpm bench:cjk`).
 */
export const COMMON_CHARACTER_SHARE = 0.02;
export const COMMON_CHARACTER_MIN_DOCS = 2_000;
/** A cached verdict is re-probed when the index has grown or shrunk by this factor since. */
const COMMON_CHARACTER_RECHECK = 1.25;
const INDEX_SIZE_SQL = 'SELECT coalesce(max(id), 0) FROM messages';

const commonCache = new WeakMap<object, Map<string, { common: boolean; size: number }>>();

/**
 * The query's CJK characters that are common in the index, by a bounded probe per character
 * (at most the threshold's count of postings read) cached per connection: characters repeat across
 * questions, so a warm cache makes this free.
 */
function commonCharacters(db: RecallDatabase, query: string, share: number): Set<string> {
  const out = new Set<string>();
  if (share >= 1) return out;
  const size = stmt(db, INDEX_SIZE_SQL).pluck().get() as number;
  const cap = Math.max(COMMON_CHARACTER_MIN_DOCS, Math.ceil(share * size));
  let cache = commonCache.get(db.raw);
  if (!cache) commonCache.set(db.raw, (cache = new Map()));
  for (const c of new Set(Array.from(normalizeForSearch(query)).filter((ch) => hasCjk(ch)))) {
    const known = cache.get(c);
    let common: boolean;
    if (known && known.size * COMMON_CHARACTER_RECHECK >= size && size * COMMON_CHARACTER_RECHECK >= known.size) common = known.common;
    else {
      common = (stmt(db, PROBE_SQL).pluck().get({ match: `cjk : "${c.replace(/"/g, '""')}"`, cap }) as number) >= cap;
      cache.set(c, { common, size });
    }
    if (common) out.add(c);
  }
  return out;
}

/**
 * Searches the visible messages and the titles of the sessions in `scope` for `query` (any language;
 * quotes mark required phrases; FTS syntax is treated as text) and returns the best hits with
 * highlighted snippets. The scope is applied inside the SQL, so nothing outside it is ever read. Never
 * throws for any query string: an empty or unsearchable query returns no hits with a note.
 */
export function keywordSearch(db: RecallDatabase, scope: KeywordScope, query: string, options: KeywordSearchOptions = {}): KeywordSearchResult {
  const backoff = options.cjkBackoff ?? 'auto';
  const parsed = parseQuery(query, { cjkBackoff: backoff === 'auto' ? DEFAULT_CJK_BACKOFF : backoff });
  const summary = summarize(parsed);
  const notes = [...parsed.notes];
  const limit = clampInt(options.limit, DEFAULT_KEYWORD_LIMIT, 1, MAX_KEYWORD_LIMIT);
  const titleLimit = clampInt(options.titleLimit, DEFAULT_TITLE_LIMIT, 0, MAX_TITLE_LIMIT);
  const snippetChars = clampInt(options.snippetChars, DEFAULT_SNIPPET_CHARS, 40, 2000);
  const roles = (options.roleFilter ?? []).filter((r) => (MESSAGE_ROLES as readonly string[]).includes(r));
  const automated = JSON.stringify(options.automatedSources ?? AUTOMATED_SOURCES);
  const minMatches = clampInt(options.scopeTokenMinMatches, SCOPE_TOKEN_MIN_MATCHES, 0, 1_000_000);
  const empty: KeywordSearchResult = { query: summary, titleHits: [], hits: [], notes };

  if (summary.mode === 'none') {
    notes.push('Empty query: nothing to search.');
    return empty;
  }
  const sp = scopeParams(db, scope);
  if (!sp) {
    notes.push('The search scope is empty.');
    return empty;
  }
  if ((options.roleFilter?.length ?? 0) > 0 && roles.length === 0) {
    notes.push('role_filter names no known role.');
    return empty;
  }
  ensureKeywordIndex(db.raw);

  const base = { ...sp.params, automated, roles: roles.length > 0 ? JSON.stringify(roles) : null };
  const terms = parsed.terms;

  // --- messages
  const details = new Map<number, MessageDetails>();
  let windowed = false;
  const onWindowed = () => {
    windowed = true;
  };
  let ranked: RankedRow[];
  if (parsed.match !== null) {
    const topFirst = options.topFirst !== false;
    if (backoff !== 'auto') ranked = runRanked(db, sp, base, parsed.match, limit, minMatches, topFirst, onWindowed);
    else {
      // One query: exact CJK words (bigram phrases in `body`) OR-ed with their characters (the
      // `cjk` column, BM25 weight 0.5), so a paraphrase that shares characters but few whole words
      // still ranks, while a message holding the exact words outranks one holding scattered
      // characters. Characters common in the index are left out (COMMON_CHARACTER_SHARE): they
      // barely move BM25 but cost a scan of their postings each. One query instead of exact-then-
      // relaxed keeps an exact question's latency and a paraphrase's at the same single query.
      const skip = commonCharacters(db, query, options.commonCharacterShare ?? COMMON_CHARACTER_SHARE);
      const relaxed = parseQuery(query, { cjkBackoff: 'unigram', skipCharacters: skip }).match ?? parsed.match;
      ranked = runRanked(db, sp, base, relaxed, limit, minMatches, topFirst, onWindowed);
      summary.match = relaxed;
      if (ranked.length < limit && skip.size > 0) {
        // Under-filled: the common characters may be all a short or rare question shares with the
        // text; the full character match is a superset, so its BM25 order covers everything found.
        const full = parseQuery(query, { cjkBackoff: 'unigram' }).match;
        if (full !== null && full !== relaxed) {
          ranked = runRanked(db, sp, base, full, limit, minMatches, topFirst, onWindowed);
          summary.match = full;
        }
      }
      if (summary.match !== parsed.match && lowCjkCoverage(db, ranked, terms, details)) {
        notes.push('The best matches share few of the question’s Chinese/Japanese/Korean words whole: they were found character by character.');
      }
    }
  } else {
    ranked = stmt(db, literalSql(sp.kind)).all({ ...base, pattern: `%${escapeLike(parsed.likeNeedle!)}%`, limit }) as typeof ranked;
  }
  if (windowed) notes.push(`These words are very common in this project: only the ${RANK_WINDOW.toLocaleString('en')} most recent matching messages were ranked. Add a rarer word to reach older ones.`);
  let substring: string[] | null = null;
  if (ranked.length === 0 && parsed.match !== null && options.substringFallback) {
    substring = substringNeedles(query);
    if (substring) {
      const slots = Object.fromEntries(Array.from({ length: SUBSTRING_MAX_NEEDLES }, (_, i) => [`n${i}`, substring![i] === undefined ? null : `%${escapeLike(substring![i]!)}%`]));
      ranked = stmt(db, substringSql(sp.kind)).all({ ...base, ...slots, scan: SUBSTRING_SCAN_MESSAGES, limit }) as typeof ranked;
      const what = substring.map((n) => JSON.stringify(n)).join(' and ');
      // The scan reads only the requested roles; the note must not claim more than it looked at.
      const which = roles.length > 0 ? `messages of the requested roles (${roles.join(', ')})` : 'messages';
      notes.push(
        ranked.length > 0
          ? `No whole-word match; these messages contain ${what} as part of a longer word (substring search over the ${SUBSTRING_SCAN_MESSAGES.toLocaleString('en')} most recent ${which} in scope).`
          : `No whole-word match, and none of the ${SUBSTRING_SCAN_MESSAGES.toLocaleString('en')} most recent ${which} in scope contains ${what}.`,
      );
    }
  }
  loadDetails(db, ranked.map((r) => r.id), details);
  const literalNeedle = parsed.match === null ? parsed.likeNeedle : substring && ranked.length > 0 ? substring[0]! : null;
  let hits: KeywordHit[] = [];
  for (const r of ranked) {
    const d = details.get(r.id);
    if (!d) continue;
    // LIKE reads the stored content, <private> spans included: a hit only inside one is no hit.
    if (literalNeedle !== null && !likeOutsidePrivate(d.content, substring ?? [literalNeedle])) continue;
    const cut = literalNeedle !== null ? literalSnippet(d.content, literalNeedle, snippetChars) : snippet(d.content, terms, snippetChars);
    hits.push({
      messageId: d.id,
      sessionId: d.sessionId,
      role: d.role,
      createdAt: d.createdAt,
      score: r.rank === 0 ? 0 : -r.rank,
      snippet: cut.snippet,
      matchedTerms: cut.matched,
      automated: r.automated === 1,
      matchedBy: substring ? 'substring' : literalNeedle !== null ? 'literal' : 'index',
    });
  }
  const sort = options.sort ?? 'relevance';
  if (sort === 'newest') hits = [...hits].sort((a, b) => b.createdAt - a.createdAt || b.messageId - a.messageId);
  else if (sort === 'oldest') hits = [...hits].sort((a, b) => a.createdAt - b.createdAt || a.messageId - b.messageId);

  // --- titles
  const titleHits = titleLimit > 0 ? searchTitlesParsed(db, sp, parsed, automated, titleLimit) : [];
  return { query: summary, titleHits, hits, notes };
}

/** Options of `searchTitles`: `limit` (1-50, default 5) and the sources that count as automated. */
export interface TitleSearchOptions {
  limit?: number;
  automatedSources?: readonly string[];
}

/**
 * Conversation titles in `scope` matching `query`, best first (also part of keywordSearch's result).
 * Never throws for any query string.
 */
export function searchTitles(db: RecallDatabase, scope: KeywordScope, query: string, options: TitleSearchOptions = {}): TitleHit[] {
  const parsed = parseQuery(query);
  const sp = scopeParams(db, scope);
  if (!sp || (parsed.match === null && parsed.likeNeedle === null)) return [];
  const automated = JSON.stringify(options.automatedSources ?? AUTOMATED_SOURCES);
  const limit = clampInt(options.limit, DEFAULT_TITLE_LIMIT, 1, MAX_TITLE_LIMIT);
  return searchTitlesParsed(db, sp, parsed, automated, limit);
}

/**
 * Titles are short and few per scope, so they are scored in JS with the same term matchers rather
 * than kept in a second FTS table that session writes would have to maintain. Score = sum of the
 * IDF of matched terms over the titles in scope (BM25 without length normalisation).
 */
function searchTitlesParsed(db: RecallDatabase, sp: ScopeParams, parsed: ParsedQuery, automated: string, limit: number): TitleHit[] {
  const needle = parsed.match === null && parsed.likeNeedle !== null ? normalizeForSearch(parsed.likeNeedle) : null;
  const needles = needle === null ? termNeedles(parsed.terms) : null;
  // Latin needles first, then CJK, so the statement text depends only on the two counts.
  const ordered = needles ? [...new Set(needles)].sort((a, b) => Number(hasCjk(a)) - Number(hasCjk(b))) : [];
  const latin = ordered.filter((n) => !hasCjk(n)).length;
  const slots = Object.fromEntries(ordered.map((n, i) => [`n${i}`, n]));
  const rows = stmt(db, titlesSql(sp.kind, needles ? { latin, cjk: ordered.length - latin } : null)).all({ ...sp.params, automated, ...slots }) as {
    id: string;
    title: string;
    automated: number;
  }[];
  if (rows.length === 0) return [];
  const matchedPerRow: number[][] = [];
  const df = new Array<number>(parsed.terms.length).fill(0);
  for (const row of rows) {
    const text = normalizeForSearch(row.title);
    const matched: number[] = [];
    if (needle !== null) {
      if (text.includes(needle)) matched.push(-1);
    } else {
      for (const i of new Set(findTermSpans(text, parsed.terms).filter((x) => !x.partial).map((x) => x.term))) {
        matched.push(i);
        df[i]!++;
      }
      // Every required phrase must be in the title.
      if (parsed.terms.some((t, i) => t.required && !matched.includes(i))) matched.length = 0;
    }
    matchedPerRow.push(matched);
  }
  // IDF is over every title in scope, not only the pre-filtered candidates.
  const n = needles !== null ? (stmt(db, TITLE_COUNT_SQL[sp.kind]).pluck().get(sp.params) as number) : rows.length;
  const idf = df.map((d) => Math.log(1 + (n - d + 0.5) / (d + 0.5)));
  const hits: TitleHit[] = [];
  rows.forEach((row, k) => {
    const matched = matchedPerRow[k]!;
    if (matched.length === 0) return;
    hits.push({
      sessionId: row.id,
      title: row.title,
      score: needle !== null ? 1 : matched.reduce((sum, i) => sum + idf[i]!, 0),
      matchedTerms: needle !== null ? [parsed.likeNeedle!] : matched.map((i) => parsed.terms[i]!.text),
      automated: row.automated === 1,
    });
  });
  hits.sort((a, b) => Number(a.automated) - Number(b.automated) || b.score - a.score || (a.sessionId < b.sessionId ? -1 : 1));
  return hits.slice(0, limit);
}

// --------------------------------------------------------------------------------------------
// Snippets

interface Normalized {
  text: string;
  /** map[i] = index in the original string of normalised code unit i; map[text.length] = end. */
  map: number[] | null;
}

/** NFKC + lower case with a position map back to the original (null map = positions are equal). */
function normalizeWithMap(original: string): Normalized {
  const whole = normalizeForSearch(original);
  // Most text normalises to the same length (ASCII, CJK): positions then correspond 1:1.
  if (whole.length === original.length) return { text: whole, map: null };
  const parts: string[] = [];
  const map: number[] = [];
  let i = 0;
  for (const ch of original) {
    const n = normalizeForSearch(ch);
    parts.push(n);
    for (let k = 0; k < n.length; k++) map.push(i);
    i += ch.length;
  }
  map.push(original.length);
  return { text: parts.join(''), map };
}

function toOriginal(n: Normalized, pos: number): number {
  return n.map ? (n.map[Math.min(pos, n.map.length - 1)] ?? 0) : pos;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** Avoid cutting a surrogate pair in half. */
function safeCut(text: string, pos: number): number {
  if (pos <= 0 || pos >= text.length) return Math.max(0, Math.min(pos, text.length));
  const c = text.charCodeAt(pos);
  return c >= 0xdc00 && c <= 0xdfff ? pos - 1 : pos;
}

/**
 * Cuts a window of about `size` characters around the densest cluster of matched terms and marks
 * the matches. Exported for the tool's windows and for tests.
 */
export function snippet(content: string, terms: readonly QueryTerm[], size: number): { snippet: string; matched: string[] } {
  const source = content.length > MAX_INDEXED_CHARS ? content.slice(0, MAX_INDEXED_CHARS) : content;
  const norm = normalizeWithMap(source);
  const spans: TermSpan[] = findTermSpans(norm.text, terms);
  const matched = [...new Set(spans.filter((s) => !s.partial).map((s) => s.term))].sort((a, b) => a - b).map((i) => terms[i]!.text);
  if (spans.length === 0) {
    const end = safeCut(content, Math.min(content.length, size));
    return { snippet: collapse(content.slice(0, end)).trim() + (end < content.length ? '…' : ''), matched };
  }
  // Window start candidates: a quarter window before each span; pick the one whose window holds the
  // most distinct terms (ties: earliest). Spans are sorted by start, so the window slides with two
  // pointers and per-term counts (linear, whatever the number of matches).
  let best = { from: 0, distinct: -1 };
  const counts = new Map<number, number>();
  let left = 0;
  let right = 0;
  for (const s of spans) {
    const from = Math.max(0, s.start - Math.floor(size / 4));
    const to = from + size;
    while (right < spans.length && spans[right]!.start < to) {
      const t = spans[right++]!.term;
      counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    while (left < right && spans[left]!.start < from) {
      const t = spans[left++]!.term;
      const c = counts.get(t)! - 1;
      if (c === 0) counts.delete(t);
      else counts.set(t, c);
    }
    if (counts.size > best.distinct) best = { from, distinct: counts.size };
  }
  const fromN = best.from;
  const toN = Math.min(norm.text.length, fromN + size);
  const from = safeCut(source, toOriginal(norm, fromN));
  const to = safeCut(source, toOriginal(norm, toN));
  // Marked spans inside the window, in original coordinates, overlaps merged.
  const marks: { start: number; end: number }[] = [];
  for (const s of spans) {
    if (s.start < fromN || s.end > toN) continue;
    const start = toOriginal(norm, s.start);
    const end = toOriginal(norm, s.end);
    const last = marks[marks.length - 1];
    if (last && start <= last.end) last.end = Math.max(last.end, end);
    else marks.push({ start, end });
  }
  let out = from > 0 ? '…' : '';
  let pos = from;
  for (const m of marks) {
    out += collapse(source.slice(pos, m.start)) + HIGHLIGHT_OPEN + collapse(source.slice(m.start, m.end)) + HIGHLIGHT_CLOSE;
    pos = m.end;
  }
  out += collapse(source.slice(pos, to));
  if (to < content.length) out += '…';
  return { snippet: out.trim(), matched };
}

function literalSnippet(content: string, needle: string, size: number): { snippet: string; matched: string[] } {
  // LIKE is case-insensitive for ASCII only; mirror that.
  const hay = content.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const at = hay.indexOf(needle.replace(/[A-Z]/g, (c) => c.toLowerCase()));
  if (at < 0) return { snippet: collapse(content.slice(0, safeCut(content, size))).trim(), matched: [] };
  const from = safeCut(content, Math.max(0, at - Math.floor(size / 4)));
  const to = safeCut(content, Math.min(content.length, from + Math.max(size, needle.length)));
  const end = at + needle.length;
  const out =
    (from > 0 ? '…' : '') +
    collapse(content.slice(from, at)) +
    HIGHLIGHT_OPEN +
    content.slice(at, end) +
    HIGHLIGHT_CLOSE +
    collapse(content.slice(end, Math.max(to, end))) +
    (Math.max(to, end) < content.length ? '…' : '');
  return { snippet: out.trim(), matched: [needle] };
}
