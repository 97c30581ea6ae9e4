/**
 * How keyword search ranks inside FTS5: the project token pre-filter, the bounded ranked window
 * for very common words, the paraphrase-coverage check and the common-character probe of CJK
 * relaxation (see keyword-search.ts).
 */
import type { RecallDatabase } from '@recall/schema';
import { FTS_TABLE, refreshScopeTokens, scopeToken } from './fts-index.js';
import type { QueryTerm } from './fts-query.js';
import { commonCharacterCap, compareRanked, lowWholeWordCoverage, PARAPHRASE_PROBE, paraphraseWords, questionCharacters } from './keyword-rules.js';
import { BM25_WEIGHTS } from './keyword-types.js';
import { DETAILS_SQL, messageGateSql, rankedSql, stmt, type MessageDetails, type ScopeParams } from './keyword-sql.js';

export interface RankedRow {
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

export function runRanked(
  db: RecallDatabase,
  sp: ScopeParams,
  base: Record<string, unknown>,
  match: string,
  limit: number,
  minMatches: number,
  useTopFirst = true,
  onWindowed?: () => void,
  window = RANK_WINDOW,
): RankedRow[] {
  let m = match;
  // A dated search ranks with the JOIN (the date is part of its gate, before LIMIT): the newest-first
  // window would rank only recent matches and could miss an older range entirely.
  const dated = base['since'] != null || base['until'] != null;
  // The project token is only a pre-filter: used when there are many matches overall and no session
  // is waiting for a token rewrite after a move. The JOIN in rankedSql stays authoritative.
  const many = minMatches <= 0 || (stmt(db, PROBE_SQL).pluck().get({ match, cap: minMatches }) as number) >= minMatches;
  if (sp.kind === 'project' && many && refreshScopeTokens(db.raw)) {
    m = `scope : "${scopeToken(sp.params['projectId'] as string)}" AND (${match})`;
    if (useTopFirst && !dated) {
      const out = windowRanked(db, base, m, limit, window);
      if (out.windowed) onWindowed?.();
      return out.rows;
    }
  }
  return stmt(db, rankedSql(sp.kind, dated)).all({ ...base, match: m, limit }) as RankedRow[];
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
export function windowRanked(db: RecallDatabase, base: Record<string, unknown>, match: string, limit: number, window = RANK_WINDOW): { rows: RankedRow[]; windowed: boolean } {
  let top = Math.max(limit * CHECK_FACTOR, CHECK_MIN);
  for (;;) {
    const candidates = stmt(db, WINDOW_SQL).all({ match, window, top }) as { id: number; rank: number; n: number }[];
    const inWindow = candidates[0]?.n ?? 0;
    const rankOf = new Map(candidates.map((r) => [r.id, r.rank]));
    const kept = (stmt(db, CHECK_SQL).all({ ...base, ids: JSON.stringify(candidates.map((c) => c.id)) }) as { id: number; automated: number }[]).map((r) => ({
      id: r.id,
      rank: rankOf.get(r.id)!,
      automated: r.automated,
    }));
    // Enough interactive survivors, or every candidate of the window was checked: the order is final.
    if (kept.filter((r) => r.automated === 0).length >= limit || candidates.length >= inWindow) {
      kept.sort(compareRanked);
      return { rows: kept.slice(0, limit), windowed: inWindow >= window };
    }
    top *= CHECK_FACTOR;
  }
}

export { PARAPHRASE_COVERAGE } from './keyword-rules.js';

/** Reads the message rows of `ids` not yet in `into`: a search reads each row once, whoever needs it. */
export function loadDetails(db: RecallDatabase, ids: readonly number[], into: Map<number, MessageDetails>): void {
  const missing = ids.filter((id) => !into.has(id));
  if (missing.length === 0) return;
  for (const row of stmt(db, DETAILS_SQL).all(JSON.stringify(missing)) as MessageDetails[]) into.set(row.id, row);
}

export function lowCjkCoverage(db: RecallDatabase, ranked: readonly RankedRow[], terms: readonly QueryTerm[], details: Map<number, MessageDetails>): boolean {
  const want = paraphraseWords(terms);
  if (want === null || ranked.length === 0) return false;
  const top = ranked.slice(0, PARAPHRASE_PROBE).map((r) => r.id);
  loadDetails(db, top, details);
  return lowWholeWordCoverage(top.flatMap((id) => { const row = details.get(id); return row ? [row.content] : []; }), want);
}

export { COMMON_CHARACTER_MIN_DOCS, COMMON_CHARACTER_SHARE } from './keyword-rules.js';
/** A cached verdict is re-probed when the index has grown or shrunk by this factor since. */
const COMMON_CHARACTER_RECHECK = 1.25;
const INDEX_SIZE_SQL = 'SELECT coalesce(max(id), 0) FROM messages';

const commonCache = new WeakMap<object, Map<string, { common: boolean; size: number }>>();

/**
 * The query's CJK characters that are common in the index, by a bounded probe per character
 * (at most the threshold's count of postings read) cached per connection: characters repeat across
 * questions, so a warm cache makes this free.
 */
export function commonCharacters(db: RecallDatabase, query: string, share: number): Set<string> {
  const out = new Set<string>();
  if (share >= 1) return out;
  const size = stmt(db, INDEX_SIZE_SQL).pluck().get() as number;
  const cap = commonCharacterCap(size, share);
  let cache = commonCache.get(db.raw);
  if (!cache) commonCache.set(db.raw, (cache = new Map()));
  for (const c of questionCharacters(query)) {
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

