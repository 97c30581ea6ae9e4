/**
 * Title search of keyword search: conversation titles in scope scored in JS (keyword-search.ts).
 */
import type { RecallDatabase } from '@recall/schema';
import { parseQuery, termNeedles, type ParsedQuery } from './fts-query.js';
import { scoreTitles } from './keyword-rules.js';
import { clampInt, escapeLike, scopeParams, stmt, titlesSql, type ScopeParams } from './keyword-sql.js';
import { AUTOMATED_SOURCES, DEFAULT_TITLE_LIMIT, MAX_TITLE_LIMIT, type KeywordScope, type TitleHit } from './keyword-types.js';
import { hasCjk, normalizeForSearch } from './search-text.js';

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
export function searchTitlesParsed(
  db: RecallDatabase,
  sp: ScopeParams,
  parsed: ParsedQuery,
  automated: string,
  limit: number,
  dates: { since: number | null; until: number | null } = { since: null, until: null },
): TitleHit[] {
  const dated = dates.since !== null || dates.until !== null;
  const needle = parsed.match === null && parsed.likeNeedle !== null ? normalizeForSearch(parsed.likeNeedle) : null;
  const needles = needle === null ? termNeedles(parsed.terms) : null;
  // Latin needles first, then CJK, so the statement text depends only on the two counts.
  const ordered = needles ? [...new Set(needles)].sort((a, b) => Number(hasCjk(a)) - Number(hasCjk(b))) : [];
  const latin = ordered.filter((n) => !hasCjk(n)).length;
  // Latin needles are bound as LIKE patterns (titlesSql), CJK ones as instr() needles.
  const slots = Object.fromEntries(ordered.map((n, i) => [`n${i}`, i < latin ? `%${escapeLike(n)}%` : n]));
  const found = stmt(db, titlesSql(sp.kind, needles ? { latin, cjk: ordered.length - latin } : null, dated)).get({ ...sp.params, automated, ...slots, ...(dated ? dates : {}) }) as {
    n: number;
    hits: string | null;
  };
  const rows = (JSON.parse(found.hits ?? '[]') as [string, string, number][]).map(([id, title, auto]) => ({ id, title, automated: auto }));
  // IDF is over every title in scope, not only the pre-filtered candidates.
  return scoreTitles(rows, parsed, needles !== null ? found.n : null, limit);
}

