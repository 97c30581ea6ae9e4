/**
 * The backend-independent rules of keyword ranking (no SQL): which CJK characters count as common,
 * the automated-session penalty, how titles are scored, and whether the best hits hold the
 * question's words whole. The SQLite search (keyword-search.ts, keyword-rank.ts, keyword-titles.ts)
 * and the PostgreSQL adapter (@recall/store-postgres, through `@recall/store/portable`) call the same
 * functions, so both backends rank by one set of rules; only candidate retrieval and the BM25 score
 * are the engine's.
 */
import { findTermSpans, type ParsedQuery, type QueryTerm } from './fts-query.js';
import type { TitleHit } from './keyword-types.js';
import { hasCjk, MAX_INDEXED_CHARS, normalizeForSearch } from './search-text.js';

/**
 * Characters in more than this share of the index's messages (and at least COMMON_CHARACTER_MIN_DOCS)
 * are left out of character-by-character relaxation. They tell messages apart poorly (low IDF), yet
 * each one makes FTS5 read its whole posting list (for BM25's IDF and the OR merge): on 1M messages
 * `一` alone is in 230k. Chosen on the dev questions (docs/benchmarks.md, `pnpm bench:cjk`).
 */
export const COMMON_CHARACTER_SHARE = 0.02;
export const COMMON_CHARACTER_MIN_DOCS = 2_000;

/** How many messages (of `indexSize`) must hold a character for it to be common at `share`. */
export function commonCharacterCap(indexSize: number, share: number): number {
  return Math.max(COMMON_CHARACTER_MIN_DOCS, Math.ceil(share * indexSize));
}

/** The distinct CJK characters of a question, in normal form (the candidates for commonCharacterCap). */
export function questionCharacters(query: string): string[] {
  return [...new Set(Array.from(normalizeForSearch(query)).filter((ch) => hasCjk(ch)))];
}

/** A ranked candidate as both engines hand it over: `rank` lower = better (FTS5's bm25 sign), automated 1/0. */
export interface RankedCandidate {
  id: number;
  rank: number;
  automated: number;
}

/**
 * The order of ranked candidates: interactive sessions before automated ones (the automated-session
 * penalty), then rank (lower first), then the newer message.
 */
export function compareRanked(a: RankedCandidate, b: RankedCandidate): number {
  return a.automated - b.automated || a.rank - b.rank || b.id - a.id;
}

/**
 * When none of the top PARAPHRASE_PROBE hits contains at least this share of the query's
 * multi-character CJK words whole, the answer came from characters rather than words (a
 * paraphrase), and the notes say so. Exact questions have a hit that contains most of their words.
 */
export const PARAPHRASE_COVERAGE = 0.67;
export const PARAPHRASE_PROBE = 5;

/** The multi-character CJK words of a question (null: fewer than two, the note never applies). */
export function paraphraseWords(terms: readonly QueryTerm[]): QueryTerm[] | null {
  const cjk = terms.filter((t) => t.kind === 'cjk' && Array.from(t.text).length > 1);
  return cjk.length < 2 ? null : cjk;
}

/**
 * True when none of `contents` (the top hits' stored text, best first; only the first
 * PARAPHRASE_PROBE are read) holds PARAPHRASE_COVERAGE of `words` whole.
 */
export function lowWholeWordCoverage(contents: readonly string[], words: readonly QueryTerm[]): boolean {
  let best = 0;
  for (const content of contents.slice(0, PARAPHRASE_PROBE)) {
    const text = normalizeForSearch(content.length > MAX_INDEXED_CHARS ? content.slice(0, MAX_INDEXED_CHARS) : content);
    const whole = new Set(findTermSpans(text, words).filter((x) => !x.partial).map((x) => x.term));
    best = Math.max(best, whole.size / words.length);
  }
  return best < PARAPHRASE_COVERAGE;
}

/** A titled session in scope, as a title candidate. */
export interface TitleCandidate {
  id: string;
  title: string;
  automated: number | boolean;
}

/**
 * Scores title candidates against a parsed query and returns the best `limit`: score = sum of the
 * IDF of the matched terms over `total` titles in scope (BM25 without length normalisation; null =
 * the candidates are every title), every required phrase must match, a literal query (no index
 * terms) matches as a substring; interactive sessions before automated ones.
 */
export function scoreTitles(rows: readonly TitleCandidate[], parsed: ParsedQuery, total: number | null, limit: number): TitleHit[] {
  if (rows.length === 0) return [];
  const needle = parsed.match === null && parsed.likeNeedle !== null ? normalizeForSearch(parsed.likeNeedle) : null;
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
  const n = total ?? rows.length;
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
      automated: row.automated === 1 || row.automated === true,
    });
  });
  hits.sort((a, b) => Number(a.automated) - Number(b.automated) || b.score - a.score || (a.sessionId < b.sessionId ? -1 : 1));
  return hits.slice(0, limit);
}
