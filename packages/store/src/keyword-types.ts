/**
 * The public shapes of keyword search (keyword-search.ts): scope, options, hits, the query summary
 * and the constants callers may rely on.
 */
import type { MessageRole } from '@recall/rpc-contract';
import type { CjkBackoff } from './fts-query.js';

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
  /**
   * Tuning/testing knob: use the scope token from this many index matches (0 = always). Unset, a
   * project search chooses its plan by the project's size (at most SCOPE_TOKEN_MIN_MATCHES; a small
   * match may be scored whole without FTS5's ranking); set, exactly this threshold is used and the
   * small-match plan is not.
   */
  scopeTokenMinMatches?: number;
  /**
   * false: rank by FTS5's own bm25() over the whole index instead of the scope's statistics — for a
   * caller that only counts the hits (the order then depends on other projects' text; the hits are
   * still only the scope's). Default true.
   */
  scopeStatistics?: boolean;
  /**
   * When the index finds no message, look for the query's identifier-like tokens as substrings
   * (`busy_time` inside `busy_timeout`, `ECONNRES` inside `ECONNRESET`) in the scope's most recent
   * SUBSTRING_SCAN_MESSAGES messages. Off by default; the session_search tool turns it on.
   */
  substringFallback?: boolean;
  /** Tuning/testing knob: COMMON_CHARACTER_SHARE (1 = relax with every character). */
  commonCharacterShare?: number;
  /**
   * Tuning/testing knob: re-order the BM25 candidates of a CJK question by how much of the question
   * each contains (keyword-coverage.ts; default on, only under `cjkBackoff: 'auto'`).
   */
  coverageRerank?: boolean;
  /**
   * Tuning/testing knob: a hit that replies to a matching question directly before it adds a share
   * of the question's score (keyword-pairs.ts; default on, relevance order only).
   */
  replyCredit?: boolean;
  /**
   * Only messages created at or after this time (epoch ms). Applied in the SQL of every path
   * (ranked, literal, substring, titles) before its LIMIT; a title counts only when its session has
   * a visible message in the range.
   */
  since?: number;
  /** Only messages created before this time (epoch ms, exclusive); see `since`. */
  until?: number;
  /** Tuning/testing knob: rank inside FTS5 (newest RANK_WINDOW matches) before the JOIN (default true; see windowRanked). */
  topFirst?: boolean;
  /** Tuning/testing knob: how many of the newest matches in the project BM25 ranks (default RANK_WINDOW; 100..1,000,000). */
  rankWindow?: number;
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

