/**
 * KeywordIndex: the ranked keyword query the search tool runs — inside ONE project (or one list
 * of own-history sessions), the scope applied inside the ranked query before its limit, hidden
 * sessions and rewound/deleted messages never returned. The same TypeScript tokenizer feeds both
 * engines (Latin words, CJK bigrams + single characters), so Chinese is found on both.
 */
import type { MessageRole } from '@recall/rpc-contract';

/**
 * Where a keyword query looks. `excludeSessionIds`: sessions whose *live* messages (and titles) are
 * skipped — the caller's own live context; their compacted messages stay findable.
 */
export type KeywordQueryScope =
  | { kind: 'project'; projectId: string; excludeSessionIds?: readonly string[] }
  | { kind: 'sessions'; sessionIds: readonly string[]; excludeSessionIds?: readonly string[] };

/** Options of KeywordIndex.search. */
export interface KeywordQueryOptions {
  /** Message hits, 1..500 (default 20). */
  limit?: number;
  /** Only these roles (undefined or empty = every role). */
  roles?: readonly MessageRole[];
  /** Title hits, 0..50 (default 5; 0 skips titles). */
  titleLimit?: number;
  /** Look for identifier fragments as substrings of recent messages when the index finds nothing. */
  substringFallback?: boolean;
  /**
   * Only messages created at or after this time (epoch ms), applied inside the ranked query before
   * its limit; a title counts only when its session has a visible message in the range.
   */
  since?: number;
  /** Only messages created before this time (epoch ms, exclusive); see `since`. */
  until?: number;
  /**
   * Whether a multi-character CJK word also matches by its single characters (default true). False
   * keeps to whole words (and their bigrams): the search tool's probe of the caller's own context.
   */
  partialCjk?: boolean;
  /**
   * 'any': the caller needs to know which messages match, not in which order (a count, such as the
   * search tool's probe of the caller's own context), so an adapter may skip ranking by the scope's
   * own statistics; the hits are still only the scope's. Default 'relevance'.
   */
  order?: 'relevance' | 'any';
}

/** One message found, best first. */
export interface KeywordMatch {
  messageId: number;
  sessionId: string;
  role: MessageRole;
  createdAt: number;
  /** Higher is better; comparable only within one answer. */
  score: number;
  /** An excerpt with matches marked « ». */
  snippet: string;
  /** The query terms found in this message (distinct; the search tool ranks titles against them). */
  matchedTerms?: string[];
}

/** One conversation whose title matched. */
export interface KeywordTitleMatch {
  sessionId: string;
  title: string;
  score: number;
  /** The query terms found in the title (distinct). */
  matchedTerms?: string[];
}

/** What a keyword query found, and notes (truncation, stop-words only, fallbacks) for people. */
export interface KeywordAnswer {
  hits: KeywordMatch[];
  titleHits: KeywordTitleMatch[];
  notes: string[];
}

/** The project-scoped keyword index. Never throws for any query string. */
export interface KeywordIndex {
  /** Ranked messages (and titles) of the scope matching `query`. */
  search(scope: KeywordQueryScope, query: string, options?: KeywordQueryOptions): Promise<KeywordAnswer>;
}
