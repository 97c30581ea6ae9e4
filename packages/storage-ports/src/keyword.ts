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
}

/** One conversation whose title matched. */
export interface KeywordTitleMatch {
  sessionId: string;
  title: string;
  score: number;
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
