/**
 * Title search of keyword search: conversation titles in scope scored in JS (keyword-search.ts).
 */
import type { RecallDatabase } from '@recall/schema';
import { findTermSpans, parseQuery, termNeedles, type ParsedQuery } from './fts-query.js';
import { clampInt, scopeParams, stmt, titlesSql, type ScopeParams } from './keyword-sql.js';
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
  const slots = Object.fromEntries(ordered.map((n, i) => [`n${i}`, n]));
  const found = stmt(db, titlesSql(sp.kind, needles ? { latin, cjk: ordered.length - latin } : null, dated)).get({ ...sp.params, automated, ...slots, ...(dated ? dates : {}) }) as {
    n: number;
    hits: string | null;
  };
  const rows = (JSON.parse(found.hits ?? '[]') as [string, string, number][]).map(([id, title, auto]) => ({ id, title, automated: auto }));
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
  const n = needles !== null ? found.n : rows.length;
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

