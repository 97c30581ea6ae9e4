/**
 * Project-scoped keyword search over messages and conversation titles. The scope (a project, or an
 * explicit list of sessions for a caller whose project is NULL) is applied in the same SQL statement
 * as the FTS5 MATCH, through the JOIN to `sessions`, before ORDER BY/LIMIT: nothing is fetched
 * globally and filtered afterwards, and the candidate set is never capped at an arbitrary N. The
 * JOIN also enforces visibility (live/compacted only) and hides hidden sessions, so the index itself
 * may contain any row. Ranking is FTS5 BM25 over the query terms that match; sessions from automated
 * sources rank below interactive ones; `sort: newest|oldest` reorders the top relevance candidates.
 * Snippets are cut in JS from the original text with matches marked «like this». Deduplication per
 * logical conversation is the caller's (the session_search tool's) job. The parts live in
 * keyword-types.ts (shapes), keyword-sql.ts (statements), keyword-rank.ts (ranking inside FTS5),
 * keyword-titles.ts and keyword-snippet.ts.
 */
import { MESSAGE_ROLES } from '@recall/rpc-contract';
import type { RecallDatabase } from '@recall/schema';
import { ensureKeywordIndex } from './fts-index.js';
import { DEFAULT_CJK_BACKOFF, parseQuery, type ParsedQuery } from './fts-query.js';
import { commonCharacters, COMMON_CHARACTER_SHARE, loadDetails, lowCjkCoverage, RANK_WINDOW, runRanked, SCOPE_TOKEN_MIN_MATCHES, type WindowCut } from './keyword-rank.js';
import type { RankedCandidate } from './keyword-rules.js';
import { literalSnippet, snippet } from './keyword-snippet.js';
import { clampInt, escapeLike, literalSql, scopeParams, stmt, SUBSTRING_MAX_NEEDLES, SUBSTRING_SCAN_MESSAGES, substringNeedles, substringSql, type MessageDetails } from './keyword-sql.js';
import { searchTitlesParsed } from './keyword-titles.js';
import {
  AUTOMATED_SOURCES,
  DEFAULT_KEYWORD_LIMIT,
  DEFAULT_SNIPPET_CHARS,
  DEFAULT_TITLE_LIMIT,
  MAX_KEYWORD_LIMIT,
  MAX_TITLE_LIMIT,
  type KeywordHit,
  type KeywordScope,
  type KeywordSearchOptions,
  type KeywordSearchResult,
  type QuerySummary,
} from './keyword-types.js';
import { coverage, coverageUnits, rerankByCoverage } from './keyword-coverage.js';
import { creditReplies, REPLY_CREDIT_BM25 } from './keyword-pairs.js';
import { rankExchanges } from './keyword-exchanges.js';
import { likeOutsidePrivate, normalizeForSearch, searchableContent } from './search-text.js';

export * from './keyword-types.js';
export { keywordSearchSql, SUBSTRING_SCAN_MESSAGES, substringNeedles } from './keyword-sql.js';
export { COMMON_CHARACTER_MIN_DOCS, COMMON_CHARACTER_SHARE, PARAPHRASE_COVERAGE, RANK_WINDOW, SCOPE_TOKEN_MIN_MATCHES } from './keyword-rank.js';
export { snippet } from './keyword-snippet.js';
export { searchTitles, type TitleSearchOptions } from './keyword-titles.js';

/** The bound date range: finite epoch ms or null (no bound); anything else is no bound. */
function dateParams(options: KeywordSearchOptions): { since: number | null; until: number | null } {
  const ms = (x: number | undefined) => (typeof x === 'number' && Number.isFinite(x) ? Math.floor(x) : null);
  return { since: ms(options.since), until: ms(options.until) };
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
  // The default threshold lets keyword-rank.ts choose the plan by the project's size; a given one is used as is.
  const adaptive = options.scopeTokenMinMatches === undefined;
  const rankWindow = clampInt(options.rankWindow, RANK_WINDOW, 100, 1_000_000);
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

  const dates = dateParams(options);
  const dated = dates.since !== null || dates.until !== null;
  const base = { ...sp.params, automated, roles: roles.length > 0 ? JSON.stringify(roles) : null, ...dates };
  const terms = parsed.terms;

  // --- messages
  const details = new Map<number, MessageDetails>();
  let windowed: WindowCut | null = null;
  const onWindowed = (cut: WindowCut) => {
    windowed = cut;
  };
  let ranked: RankedCandidate[];
  let common: ReadonlySet<string> | null = null;
  if (parsed.match !== null) {
    const rankOptions = {
      sp,
      base,
      limit,
      minMatches,
      useTopFirst: options.topFirst !== false,
      onWindowed,
      window: rankWindow,
      details,
      adaptive,
      scoped: options.scopeStatistics !== false,
    };
    if (backoff !== 'auto') ranked = runRanked(db, { ...rankOptions, match: parsed.match });
    else {
      // One query: exact CJK words (bigram phrases in `body`) OR-ed with their characters (the
      // `cjk` column, BM25 weight 0.5), so a paraphrase that shares characters but few whole words
      // still ranks, while a message holding the exact words outranks one holding scattered
      // characters. Characters common in the index are left out (COMMON_CHARACTER_SHARE): they
      // barely move BM25 but cost a scan of their postings each. One query instead of exact-then-
      // relaxed keeps an exact question's latency and a paraphrase's at the same single query.
      const skip = commonCharacters(db, query, options.commonCharacterShare ?? COMMON_CHARACTER_SHARE);
      common = skip;
      const relaxed = parseQuery(query, { cjkBackoff: 'unigram', skipCharacters: skip }).match ?? parsed.match;
      ranked = runRanked(db, { ...rankOptions, match: relaxed });
      summary.match = relaxed;
      if (ranked.length < limit && skip.size > 0) {
        // Under-filled: the common characters may be all a short or rare question shares with the
        // text; the full character match is a superset, so its BM25 order covers everything found.
        const full = parseQuery(query, { cjkBackoff: 'unigram' }).match;
        if (full !== null && full !== relaxed) {
          ranked = runRanked(db, { ...rankOptions, match: full });
          summary.match = full;
        }
      }
      if (summary.match !== parsed.match && lowCjkCoverage(db, ranked, terms, details)) {
        notes.push('The best matches share few of the question’s Chinese/Japanese/Korean words whole: they were found character by character.');
      }
    }
  } else {
    ranked = stmt(db, literalSql(sp.kind, dated)).all({ ...base, pattern: `%${escapeLike(parsed.likeNeedle!)}%`, limit }) as typeof ranked;
  }
  const cut = windowed as WindowCut | null;
  if (cut === 'recent') notes.push(`These words are very common in this project: only the ${rankWindow.toLocaleString('en')} most recent matching messages were ranked. Add a rarer word to reach older ones.`);
  else if (cut === 'several') notes.push(`These words are very common in this project (over ${rankWindow.toLocaleString('en')} matching messages): only messages holding several of them were ranked. Add a rarer word to reach the others.`);
  let substring: string[] | null = null;
  if (ranked.length === 0 && parsed.match !== null && options.substringFallback) {
    substring = substringNeedles(query);
    if (substring) {
      const slots = Object.fromEntries(Array.from({ length: SUBSTRING_MAX_NEEDLES }, (_, i) => [`n${i}`, substring![i] === undefined ? null : `%${escapeLike(substring![i]!)}%`]));
      ranked = stmt(db, substringSql(sp.kind, dated)).all({ ...base, ...slots, scan: SUBSTRING_SCAN_MESSAGES, limit }) as typeof ranked;
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
  // CJK questions: re-order BM25's candidates by how much of the question each contains (keyword-coverage.ts).
  const units = common !== null && literalNeedle === null ? coverageUnits(query, common) : [];
  const normalized = new Map<number, string>();
  const textOf = (id: number) => {
    let t = normalized.get(id);
    if (t === undefined) normalized.set(id, (t = normalizeForSearch(searchableContent(details.get(id)!.content))));
    return t;
  };
  const byCoverage = units.length > 0 && sort === 'relevance' && options.coverageRerank !== false;
  const exchanges = literalNeedle === null && parsed.match !== null && sort === 'relevance' && options.replyCredit !== false;
  if (byCoverage) {
    // With the exchange rules (keyword-exchanges.ts): which message of a question/reply pair anchors.
    const rows = hits.map((h) => ({ ...h, text: textOf(h.messageId) }));
    const ranked: (KeywordHit & { text: string; rule?: unknown })[] = exchanges ? rankExchanges(rows, units) : rerankByCoverage(rows, units);
    hits = ranked.map(({ text: _t, rule: _r, ...h }) => h);
  } else if (exchanges) {
    // BM25 scores: a reply that matches the query shares the score of the question directly before it (keyword-pairs.ts).
    const distinctTerms = new Set(terms.map((t) => t.text)).size;
    hits = creditReplies(hits, {
      textOf: (h) => details.get(h.messageId)!.content,
      credit: REPLY_CREDIT_BM25,
      whole: units.length > 0 ? (h) => coverage(textOf(h.messageId), units) >= 1 - 1e-9 : (h) => new Set(h.matchedTerms).size >= distinctTerms,
    });
  }
  if (sort === 'newest') hits = [...hits].sort((a, b) => b.createdAt - a.createdAt || b.messageId - a.messageId);
  else if (sort === 'oldest') hits = [...hits].sort((a, b) => a.createdAt - b.createdAt || a.messageId - b.messageId);

  // --- titles
  const titleHits = titleLimit > 0 ? searchTitlesParsed(db, sp, parsed, automated, titleLimit, dates) : [];
  return { query: summary, titleHits, hits, notes };
}

