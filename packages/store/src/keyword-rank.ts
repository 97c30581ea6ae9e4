/**
 * How keyword search ranks inside FTS5: the project token pre-filter, the bounded ranked window
 * for very common words, the paraphrase-coverage check and the common-character probe of CJK
 * relaxation (see keyword-search.ts).
 */
import type { RecallDatabase } from '@recall/schema';
import { FTS_TABLE, refreshScopeTokens, scopeToken, scopeTokensClean } from './fts-index.js';
import type { QueryTerm } from './fts-query.js';
import { commonCharacterCap, compareRanked, lowWholeWordCoverage, PARAPHRASE_PROBE, paraphraseWords, questionCharacters, type RankedCandidate } from './keyword-rules.js';
import { BM25_WEIGHTS } from './keyword-types.js';
import { candidateGateSql, loadDetails, rankedSql, stmt, type MessageDetails, type ScopeParams } from './keyword-sql.js';
import { scopedRanking, type ScopedRanking } from './keyword-scope-stats.js';
import { smallRanked } from './keyword-small.js';

/**
 * Below this many matches in the whole index (counted with a bounded probe), the scope token is not
 * worth its fixed cost (BM25 reads the token's whole posting list for its IDF): the JOIN alone
 * filters a few hundred rows faster. Above it, the token lets FTS5 intersect the project first.
 */
export const SCOPE_TOKEN_MIN_MATCHES = 1000;
/**
 * How many rows of the project's scope token FTS5 reads (its posting list, for the intersection
 * and bm25's IDF pass) for the cost of testing one match of the whole index in the JOIN (two
 * primary-key lookups and the gate): about 0.012 µs against 2 µs, taken at a third of that ratio.
 * A project search with the default threshold uses the token once the whole index has at least
 * the project's rows / this many matches (SCOPE_TOKEN_MIN_MATCHES at most): on a 5,000-message
 * profile the ranked statement took 0.9 ms instead of 1.7 (docs/benchmarks.md).
 */
export const TOKEN_ROWS_PER_JOINED_ROW = 64;
const PROBE_SQL = `SELECT count(*) FROM (SELECT 1 FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH @match LIMIT @cap)`;

/** How a too-common match was cut down to a rankable set (keywordSearch words its note from it). */
export type WindowCut = 'several' | 'recent';

/** What runRanked ranks and how (keywordSearch builds one per search; its calls differ only by `match`). */
export interface RankedOptions {
  /** The search's scope as bound parameters (scopeParams). */
  sp: ScopeParams;
  /** Every statement's bound parameters: the scope's, `automated`, `roles`, `since` and `until` (keyword-search.ts). */
  base: Record<string, unknown>;
  /** The FTS5 MATCH expression of the query, without the project's scope token (runRanked adds it). */
  match: string;
  /** How many rows to return at most. */
  limit: number;
  /** Matches in the whole index from which a project search pre-filters by its scope token (SCOPE_TOKEN_MIN_MATCHES; 0: always). */
  minMatches: number;
  /** Rank inside FTS5 before the JOIN when the scope token is used (windowRanked; KeywordSearchOptions.topFirst). Default true. */
  useTopFirst?: boolean;
  /** Told how a too-common match was cut down, when it was (keywordSearch words its note from it). */
  onWindowed?: (cut: WindowCut) => void;
  /** The most matches BM25 ranks in FTS5 before the match is cut down (windowRanked). Default RANK_WINDOW. */
  window?: number;
  /** The connection's loaded message details, shared with the caller (scopedRanking reads and fills it). */
  details?: Map<number, MessageDetails>;
  /** The default threshold was left as is: a project search picks its plan by size (small match, scope token). Default false. */
  adaptive?: boolean;
  /** Rank by the scope's own BM25 statistics (keyword-scope-stats.ts); false keeps FTS5's scores over the whole index. Default true. */
  scoped?: boolean;
}

/**
 * The best `limit` candidates of a keyword search's MATCH in its scope, in compareRanked order, by
 * whichever plan the match's size and the options choose: the small match scored whole
 * (keyword-small.ts), the scope token's ranked window (windowRanked) or the ranked JOIN.
 */
export function runRanked(db: RecallDatabase, options: RankedOptions): RankedCandidate[] {
  const { sp, base, match, limit, minMatches, useTopFirst = true, onWindowed, window = RANK_WINDOW, details, adaptive = false, scoped = true } = options;
  let m = match;
  // A dated search ranks with the JOIN (the date is part of its gate, before LIMIT): the newest-first
  // window would rank only recent matches and could miss an older range entirely.
  const dated = base['since'] != null || base['until'] != null;
  // The project token is only a pre-filter: used when there are many matches overall and no session
  // is waiting for a token rewrite after a move. The JOIN in rankedSql stays authoritative.
  // BM25 with the scope's own statistics (keyword-scope-stats.ts): FTS5 orders the candidates,
  // which are then scored again; null keeps FTS5's scores (a read-only database without totals).
  // Taken first while no moved session awaits its token rewrite (its phrase counts over the whole
  // index then often settle the probe); else after the rewrite below, which it then reads.
  // A project search with the default plan rewrites the tokens a move queued (what the next append
  // would do in its transaction): its kept statistics and row set need them, else every phrase is
  // counted through the JOIN.
  const clean = scopeTokensClean(db.raw) || (adaptive && sp.kind === 'project' && refreshScopeTokens(db.raw));
  let ranking = clean && scoped ? scopedRanking(db, sp, match, details) : null;
  const whole = ranking?.wholeFrequency ? matchBounds(match, ranking.wholeFrequency) : null;
  // With the default threshold (`adaptive`), a project search with the scope's statistics picks its
  // plan by size: a small match is scored whole (keyword-small.ts), and the scope token pays once
  // the JOIN would test more rows of the whole index than a fraction of the project's token list.
  let threshold = minMatches;
  if (adaptive && ranking && sp.kind === 'project') {
    if (whole) {
      const small = smallRanked(db, base, match, limit, ranking, { whole, scoped: matchBounds(match, ranking.scoped.documentFrequency) });
      if (small) return small;
    }
    threshold = Math.min(minMatches, Math.max(1, Math.ceil(ranking.scoped.messages / TOKEN_ROWS_PER_JOINED_ROW)));
  }
  const many =
    threshold <= 0 ||
    (whole !== null && whole.atLeast >= threshold) ||
    (!(whole !== null && whole.atMost < threshold) && (stmt(db, PROBE_SQL).pluck().get({ match, cap: threshold }) as number) >= threshold);
  const tokens = sp.kind === 'project' && many && refreshScopeTokens(db.raw);
  if (!clean && scoped) ranking = scopedRanking(db, sp, match, details);
  if (tokens) {
    const scope = `scope : "${scopeToken(sp.params['projectId'] as string)}"`;
    m = `${scope} AND (${match})`;
    if (useTopFirst && !dated) {
      const out = windowRanked(db, base, m, limit, window, () => {
        const split = splitPhrases(match);
        return split && `${scope} AND ${split}`;
      }, ranking);
      if (out.windowed) onWindowed?.(out.windowed);
      return out.rows;
    }
  }
  return joinRanked(db, rankedSql(sp.kind, dated), { ...base, match: m }, limit, ranking);
}

/** Relative slack on the window bound (floating-point rounding between FTS5's C and this file). */
const BOUND_SLACK = 1e-9;

/** Whether the k-th score beats the bound of every unread match (see ScopedRanking.bound). */
function beats(score: number, bound: number): boolean {
  return score > bound * (1 + BOUND_SLACK) + 1e-12;
}

/**
 * The JOIN-ranked statement (rankedSql: interactive rows first, then by FTS5's rank) with the
 * scope's own BM25: rows are read in growing windows until every match was read or the `limit`-th
 * best by the scoped score beats the most any unread row can score (ScopedRanking.bound of the
 * last row's FTS5 score: an unread row of the same class scores at most that by FTS5).
 */
function joinRanked(db: RecallDatabase, sql: string, params: Record<string, unknown>, limit: number, ranking: ScopedRanking | null): RankedCandidate[] {
  if (!ranking) return stmt(db, sql).all({ ...params, limit }) as RankedCandidate[];
  let top = Math.max(limit * CHECK_FACTOR, CHECK_MIN);
  for (;;) {
    const rows = stmt(db, sql).all({ ...params, limit: top }) as RankedCandidate[];
    const { kept, complete } = scoreInOrder(rows, limit, ranking);
    if (rows.length < top || complete) return kept.slice(0, limit);
    const last = rows[rows.length - 1]!;
    const kth = kept[limit - 1];
    if (kth) {
      // Unread: interactive rows scoring at most the last one's by FTS5 (when it is interactive), and automated ones.
      if (last.automated === 0 ? kth.automated === 0 && beats(-kth.rank, ranking.bound(-last.rank)) : kth.automated === 0 || beats(-kth.rank, ranking.bound(-last.rank))) {
        return kept.slice(0, limit);
      }
    }
    top *= CHECK_FACTOR;
  }
}

/** Rows scored in scoreInOrder's first step at least (then a quarter of those scored so far, at least 8, per step). */
const SCORE_STEP_MIN = 16;

/**
 * The scoped scores of `rows` (in their statement's order: interactive rows first, each class by
 * FTS5's rank, best first), read in growing steps: once `limit` interactive rows are scored and the
 * `limit`-th beats the most the next unscored row can score (ScopedRanking.bound of its FTS5 score;
 * every later row of its class scores at most that by FTS5, and automated rows sort after
 * interactive ones), the rest is left unscored — it cannot reach the first `limit` — and
 * `complete` says that the first `limit` of `kept` are final. Without that proof every row is scored.
 */
function scoreInOrder(rows: readonly RankedCandidate[], limit: number, ranking: ScopedRanking): { kept: RankedCandidate[]; complete: boolean } {
  const kept: RankedCandidate[] = [];
  // The `limit` best interactive scores so far, best first (insertion: `limit` is small).
  const best: number[] = [];
  let step = Math.max(limit, SCORE_STEP_MIN);
  for (let i = 0; i < rows.length; ) {
    const end = Math.min(rows.length, i + step);
    const ids: number[] = [];
    for (let j = i; j < end; j++) ids.push(rows[j]!.id);
    const scores = ranking.score(ids);
    for (let j = i; j < end; j++) {
      const r = rows[j]!;
      const score = scores[j - i]!;
      kept.push({ id: r.id, rank: -score, automated: r.automated });
      if (r.automated === 0 && (best.length < limit || score > best[limit - 1]!)) {
        let at = Math.min(best.length, limit - 1);
        while (at > 0 && best[at - 1]! < score) at--;
        best.splice(at, 0, score);
        if (best.length > limit) best.length = limit;
      }
    }
    i = end;
    // Small steps after the first: the bound usually proves the top a few rows later (growing by a
    // quarter, so a long tail still takes few steps).
    step = Math.max(8, Math.ceil(i / 4));
    const next = rows[i];
    if (next && best.length >= limit) {
      if (next.automated !== 0 || beats(best[limit - 1]!, ranking.bound(-next.rank))) return { kept: kept.sort(compareRanked), complete: true };
    }
  }
  return { kept: kept.sort(compareRanked), complete: false };
}

/**
 * The most matching messages of a project BM25 scores per query. FTS5 has no top-k pruning: a query
 * matching tens of thousands of messages of a big project scores every one of them (the `--dense`
 * stress case of bench:keyword). Below this many matches (counted first, without scoring: almost
 * every query) the answer is exactly the full ranking. Above it the match is cut down before BM25
 * (windowRanked) and keywordSearch says so in its notes.
 */
export const RANK_WINDOW = 5_000;
/** Candidates per requested hit taken from the window for the JOIN check (more when it rejects many). */
const CHECK_FACTOR = 4;
const CHECK_MIN = 100;
const BM25 = `bm25(${FTS_TABLE}, ${BM25_WEIGHTS.body}, ${BM25_WEIGHTS.cjk}, ${BM25_WEIGHTS.scope})`;
/** Whether the match has at least @window rows: matching only, no BM25 (no IDF pass, no scoring). */
const COUNT_SQL = `SELECT count(*) FROM (SELECT 1 FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH @match LIMIT @window)`;
// The ranking stays in SQLite: only the best @top rows come back to JS, because handing thousands
// of rows to JS costs more than ranking them.
/** Every match ranked (it has fewer than the window's rows). */
const ALL_SQL = `SELECT id, rank FROM (
    SELECT rowid AS id, ${BM25} AS rank FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH @match)
  ORDER BY rank, id DESC LIMIT @top`;
/** The newest @window matches ranked, and how many there were (= @window when cut). */
const WINDOW_SQL = `SELECT id, rank, count(*) OVER () AS n FROM (
    SELECT rowid AS id, ${BM25} AS rank
    FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH @match ORDER BY rowid DESC LIMIT @window)
  ORDER BY rank, id DESC LIMIT @top`;
const CHECK_SQL = candidateGateSql('project');

const MATCH_PHRASE_RE = /(?:body|cjk) : "(?:[^"]|"")*"/g;

/** The syntax left of a match once its phrases are taken out: grouping and the boolean operators only. */
const MATCH_GLUE_RE = /^(?:[\s()]|\bOR\b|\bAND\b|\bNOT\b)*$/;
const SCOPE_PREFIX_RE = /^scope : "(?:[^"]|"")*" AND \((.*)\)$/s;

/** The match without the project token's `scope : "…" AND (…)` wrapper of runRanked. */
function unscoped(match: string): string {
  return SCOPE_PREFIX_RE.exec(match)?.[1] ?? match;
}

/**
 * How many rows `match` can match, from its distinct phrases' document frequencies over the same
 * rows (`frequencies[i]` for matchLeaves(match)[i]): at most their sum (a row matches only through a
 * phrase it holds), and at least the largest when the match is nothing but phrases joined by OR.
 * Where the match holds any syntax besides phrases, grouping and AND / OR / NOT: 0 … Infinity
 * (unknown), so the caller counts.
 */
export function matchBounds(match: string, frequencies: readonly number[]): { atLeast: number; atMost: number } {
  const unknown = { atLeast: 0, atMost: Infinity };
  const rest = match.replace(MATCH_PHRASE_RE, ' ');
  if (!MATCH_GLUE_RE.test(rest)) return unknown;
  const distinct = new Set(match.match(MATCH_PHRASE_RE) ?? []).size;
  if (distinct !== frequencies.length) return unknown;
  const atMost = frequencies.reduce((a, b) => a + b, 0);
  const onlyOr = !/\b(?:AND|NOT)\b/.test(rest);
  return { atLeast: onlyOr ? Math.max(0, ...frequencies) : 0, atMost };
}

/**
 * The match restricted to messages that hold at least one phrase from each of two halves of the
 * query's phrases (every phrase occurrence alternately to one half, in query order: a whole word's
 * bigram phrase and its characters fall on both sides, so a message holding the word passes, and
 * so does one holding characters of two different words in most cases), as `(A OR …) AND (B OR …)`,
 * or null when the match cannot be split (fewer than two phrases, or required phrases). Each
 * phrase occurs once, as in the OR match, so FTS5's bm25 gives every message it admits exactly the
 * score the OR match gives it: the restriction removes rows, it never re-scores one.
 */
export function splitPhrases(match: string): string | null {
  if (/ AND | NOT | NEAR/.test(match.replace(/"(?:[^"]|"")*"/g, '""'))) return null;
  const phrases = match.match(MATCH_PHRASE_RE) ?? [];
  if (phrases.length < 2) return null;
  const half = (k: number) => phrases.filter((_, i) => i % 2 === k).join(' OR ');
  return `(${half(0)}) AND (${half(1)})`;
}

/**
 * Ranks inside FTS5 first (the scope token already narrows the match to the project), then runs
 * the authoritative JOIN only on the best candidates, in rank order, until `limit` interactive
 * (non-automated) rows survive: no unchecked row can rank above them, because interactive rows sort
 * first and, among them, by the same rank — so the answer equals the full query's over the same
 * rows, without joining every match to `messages` and `sessions`.
 *
 * Which rows are ranked: a bounded count (matching only) first. Under `window` matches, all of them
 * (the full ranking, exactly). At or above it — a very common word, or a CJK question whose
 * characters occur in a large share of a big project — BM25 over every match would cost too much,
 * so the match is cut down: to the messages holding phrases from both halves of the query
 * (`strict()`, see splitPhrases; their newest `window` if still more), which keeps the messages that
 * share most with the question whatever their age, and only when those leave `limit` unfilled also
 * to the newest `window` matches of the whole query (what every cut match got before). Scores are
 * BM25 over the same phrases in every case, so rows from both sets compare directly.
 */
export function windowRanked(
  db: RecallDatabase,
  base: Record<string, unknown>,
  match: string,
  limit: number,
  window = RANK_WINDOW,
  strict?: () => string | null,
  ranking: ScopedRanking | null = null,
): { rows: RankedCandidate[]; windowed: WindowCut | null } {
  // The project's phrase counts bound the match's rows: counted only when they do not settle it.
  const known = ranking ? matchBounds(unscoped(match), ranking.scoped.documentFrequency) : null;
  const matches = known && known.atMost < window ? known.atMost : known && known.atLeast >= window ? window : (stmt(db, COUNT_SQL).pluck().get({ match, window }) as number);
  if (matches < window) return { rows: checkRanked(db, base, ALL_SQL, { match }, limit, ranking).rows, windowed: null };
  const narrow = strict?.() ?? null;
  if (narrow !== null) {
    // The narrowed match holds the same phrases once each (splitPhrases): the same scoped ranking applies.
    const first = checkRanked(db, base, WINDOW_SQL, { match: narrow, window }, limit, ranking);
    if (first.rows.filter((r) => r.automated === 0).length >= limit) return { rows: first.rows, windowed: 'several' };
    const fill = checkRanked(db, base, WINDOW_SQL, { match, window }, limit, ranking);
    const byId = new Map([...fill.rows, ...first.rows].map((r) => [r.id, r]));
    return { rows: [...byId.values()].sort(compareRanked).slice(0, limit), windowed: 'recent' };
  }
  return { rows: checkRanked(db, base, WINDOW_SQL, { match, window }, limit, ranking).rows, windowed: 'recent' };
}

/** The best `limit` rows of a ranking statement that pass the JOIN check (see windowRanked). */
function checkRanked(
  db: RecallDatabase,
  base: Record<string, unknown>,
  sql: string,
  params: Record<string, unknown>,
  limit: number,
  ranking: ScopedRanking | null = null,
): { rows: RankedCandidate[] } {
  let top = Math.max(limit * CHECK_FACTOR, CHECK_MIN);
  for (;;) {
    const candidates = stmt(db, sql).all({ ...params, top }) as { id: number; rank: number }[];
    const rankOf = new Map(candidates.map((r) => [r.id, r.rank]));
    const checked = stmt(db, CHECK_SQL).all({ ...base, ids: JSON.stringify(candidates.map((c) => c.id)) }) as { id: number; automated: number }[];
    if (ranking) {
      // Scored in FTS5's order, interactive rows first (scoreInOrder stops once the rest cannot reach the top).
      const ordered = checked.map((r) => ({ id: r.id, rank: rankOf.get(r.id)!, automated: r.automated })).sort(compareRanked);
      const { kept, complete } = scoreInOrder(ordered, limit, ranking);
      // Final: every candidate was checked, or the scored top is proven, or `limit` interactive
      // survivors whose `limit`-th beats every unread match (FTS5 score at most the last candidate's).
      const interactive = kept.filter((r) => r.automated === 0).length;
      if (candidates.length < top || complete || (interactive >= limit && beats(-kept[limit - 1]!.rank, ranking.bound(-candidates[candidates.length - 1]!.rank)))) {
        return { rows: kept.slice(0, limit) };
      }
      top *= CHECK_FACTOR;
      continue;
    }
    const kept = checked.map((r) => ({ id: r.id, rank: rankOf.get(r.id)!, automated: r.automated }));
    kept.sort(compareRanked);
    // Every candidate was checked, or enough interactive survivors: final.
    const interactive = kept.filter((r) => r.automated === 0).length;
    if (candidates.length < top || interactive >= limit) return { rows: kept.slice(0, limit) };
    top *= CHECK_FACTOR;
  }
}

export { PARAPHRASE_COVERAGE } from './keyword-rules.js';

export { loadDetails } from './keyword-sql.js';

export function lowCjkCoverage(db: RecallDatabase, ranked: readonly RankedCandidate[], terms: readonly QueryTerm[], details: Map<number, MessageDetails>): boolean {
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

