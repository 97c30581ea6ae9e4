/**
 * The SQL of keyword search (keyword-search.ts), one statement text per scope kind, the statement
 * cache and the scope's bound parameters. Every message query applies one gate (messageGateSql):
 * visibility, roles, hidden sessions, the scope and the optional date range, inside the statement
 * before its LIMIT.
 */
import type { MessageRole } from '@recall/rpc-contract';
import { VISIBLE_VISIBILITIES, type RecallDatabase } from '@recall/schema';
import type { Statement } from 'better-sqlite3';
import { FTS_TABLE } from './fts-index.js';
import { BM25_WEIGHTS, type KeywordScope } from './keyword-types.js';

export function clampInt(value: number | undefined, fallback: number, min: number, max: number): number {
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
export type ScopeKind = keyof typeof SCOPE_SQL;

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
export function messageGateSql(kind: ScopeKind, dated = false): string {
  return `m.visibility IN (${VISIBLE})
      AND (@roles IS NULL OR m.role IN (SELECT value FROM json_each(@roles)))
      AND s.hidden = 0
      AND ${MESSAGE_SCOPE_SQL[kind]}${dated ? `\n      AND ${DATE_SQL}` : ''}`;
}

/**
 * The gate tested on a list of candidate message ids (`@ids`, a JSON array): the ids that pass,
 * with whether their session is automated. For candidates ranked outside the gate (the scope-token
 * window of keyword-rank.ts, the small match of keyword-small.ts).
 */
export function candidateGateSql(kind: ScopeKind, dated = false): string {
  return `SELECT m.id AS id, (s.source IN (SELECT value FROM json_each(@automated))) AS automated
  FROM json_each(@ids) AS j
  CROSS JOIN messages AS m ON m.id = j.value
  CROSS JOIN sessions AS s ON s.id = m.session_id
  WHERE ${messageGateSql(kind, dated)}`;
}

/**
 * The optional date range of a search (`since` inclusive, `until` exclusive, epoch ms; either may be
 * NULL). Only statements of a dated search carry it, so an undated search runs the same SQL as ever.
 */
export const DATE_SQL = `(@since IS NULL OR m.created_at >= @since) AND (@until IS NULL OR m.created_at < @until)`;

/** Extra FTS constraint for the sessions scope: the rowid range of those sessions' messages. */
const RANGE_SQL = `AND ${FTS_TABLE}.rowid BETWEEN @minId AND @maxId`;

export function rankedSql(kind: ScopeKind, dated = false): string {
  // CROSS JOIN fixes the join order: FTS first (it yields only matching rows), then the message by
  // primary key, then its session by primary key where the scope is tested. Letting the planner start
  // from the project's sessions would probe the FTS index once per message of the project.
  return `SELECT m.id AS id, bm25(${FTS_TABLE}, ${BM25_WEIGHTS.body}, ${BM25_WEIGHTS.cjk}, ${BM25_WEIGHTS.scope}) AS rank,
      (s.source IN (SELECT value FROM json_each(@automated))) AS automated
    FROM ${FTS_TABLE}
    CROSS JOIN messages AS m ON m.id = ${FTS_TABLE}.rowid
    CROSS JOIN sessions AS s ON s.id = m.session_id
    WHERE ${FTS_TABLE} MATCH @match ${kind === 'sessions' ? RANGE_SQL : ''}
      AND ${messageGateSql(kind, dated)}
    ORDER BY automated ASC, rank ASC, m.id DESC
    LIMIT @limit`;
}

export function literalSql(kind: ScopeKind, dated = false): string {
  // No index can serve an arbitrary substring; the scan is bounded by the scope (sessions first,
  // then their messages through messages_session_idx), never the whole table.
  return `SELECT m.id AS id, 0 AS rank, (s.source IN (SELECT value FROM json_each(@automated))) AS automated
    FROM sessions AS s
    CROSS JOIN messages AS m ON m.session_id = s.id
    WHERE ${messageGateSql(kind, dated)}
      AND m.content LIKE @pattern ESCAPE '\\'
    ORDER BY automated ASC, m.created_at DESC, m.id DESC
    LIMIT @limit`;
}

/** Messages (most recent sessions first) the substring fallback reads at most per call. */
export const SUBSTRING_SCAN_MESSAGES = 20_000;
/** Tokens of the query used by the fallback (each must occur), and their minimum length. */
export const SUBSTRING_MAX_NEEDLES = 4;
const SUBSTRING_MIN_CHARS = 3;

export function substringSql(kind: ScopeKind, dated = false): string {
  // The inner query bounds the work: the scope's sessions newest first (sessions_project_idx), then
  // their messages by messages_session_idx, cut at @scan rows; only those rows are tested with LIKE.
  const needles = Array.from({ length: SUBSTRING_MAX_NEEDLES }, (_, i) => `(@n${i} IS NULL OR c.content LIKE @n${i} ESCAPE '\\')`).join(' AND ');
  return `SELECT c.id AS id, 0 AS rank, c.automated AS automated FROM (
      SELECT m.id AS id, m.content AS content, (s.source IN (SELECT value FROM json_each(@automated))) AS automated
      FROM sessions AS s
      CROSS JOIN messages AS m ON m.session_id = s.id
      WHERE ${messageGateSql(kind, dated)}
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
 * Title candidates and the number of titles in scope, in ONE pass over the scope's sessions: `n`
 * counts every visible titled session in scope (the titles' IDF is over all of them), `hits` is a
 * JSON array of `[id, title, automated]` for the candidates. With needles, a candidate contains at
 * least one of them; JS then verifies. Needles are bound one parameter each (a json_each list would
 * be re-read for every title). Latin needles (lower-case ASCII) are tested with LIKE (ASCII case folded) and also
 * keep titles with any full-width letter/digit, which only NFKC in JS can fold; CJK needles need
 * neither. A dated search keeps only candidates with a visible message in the range (not counted
 * out of `n`). One pass instead of a candidate query plus a count query over the same session rows
 * (about 2 ms of CPU per search saved in a 2,500-session project; docs/benchmarks.md, bench:cjk at 1M).
 */
export function titlesSql(kind: ScopeKind, needles: { latin: number; cjk: number } | null, dated = false): string {
  const tests: string[] = [];
  if (needles) {
    const any = [
      // `%needle%` patterns (keyword-titles.ts): LIKE folds ASCII case as lower() does, without
      // building a lower-cased copy of the title per needle.
      ...Array.from({ length: needles.latin }, (_, i) => `s.title LIKE @n${i} ESCAPE '\\'`),
      ...Array.from({ length: needles.cjk }, (_, i) => `instr(s.title, @n${needles.latin + i}) > 0`),
    ];
    // Full-width letters and digits are U+FF10–U+FF5A, UTF-8 EF BC xx / EF BD xx: a byte search for
    // those two prefixes (memcmp, no character decoding) keeps GLOB's class scan off most titles.
    if (needles.latin > 0) any.push(`((instr(CAST(s.title AS BLOB), x'EFBC') > 0 OR instr(CAST(s.title AS BLOB), x'EFBD') > 0) AND s.title GLOB '*[Ａ-Ｚａ-ｚ０-９]*')`);
    tests.push(`(${any.join(' OR ')})`);
  }
  if (dated) tests.push(`EXISTS (SELECT 1 FROM messages AS m WHERE m.session_id = s.id AND m.visibility IN (${VISIBLE}) AND ${DATE_SQL})`);
  const filter = tests.length > 0 ? ` FILTER (WHERE ${tests.join(' AND ')})` : '';
  return `SELECT count(*) AS n,
      json_group_array(json_array(s.id, s.title, (s.source IN (SELECT value FROM json_each(@automated)))))${filter} AS hits
    FROM sessions AS s
    WHERE ${SCOPE_SQL[kind]} AND s.hidden = 0 AND s.title IS NOT NULL AND s.title <> ''`;
}

export interface MessageDetails {
  id: number;
  sessionId: string;
  role: MessageRole;
  createdAt: number;
  content: string;
}
export const DETAILS_SQL = `SELECT id, session_id AS sessionId, role, created_at AS createdAt, content
  FROM messages WHERE id IN (SELECT value FROM json_each(?))`;
/** Reads the message rows of `ids` not yet in `into`: a search reads each row once, whoever needs it. */
export function loadDetails(db: RecallDatabase, ids: readonly number[], into: Map<number, MessageDetails>): void {
  const missing = ids.filter((id) => !into.has(id));
  if (missing.length === 0) return;
  for (const row of stmt(db, DETAILS_SQL).all(JSON.stringify(missing)) as MessageDetails[]) into.set(row.id, row);
}
const RANGE_OF_SESSIONS_SQL = `SELECT min(id) AS minId, max(id) AS maxId FROM messages
  WHERE session_id IN (SELECT value FROM json_each(?))`;

const statementCache = new WeakMap<object, Map<string, Statement>>();
export function stmt(db: RecallDatabase, sql: string): Statement {
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

export interface ScopeParams {
  kind: ScopeKind;
  params: Record<string, unknown>;
}

/** Validates the scope into bound parameters; null = the scope is empty (nothing can match). */
export function scopeParams(db: RecallDatabase, scope: KeywordScope): ScopeParams | null {
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

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

