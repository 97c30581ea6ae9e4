/**
 * The seam between stage A and stage B. `session_search` accepts an optional SemanticSource; the
 * semantic package implements it and the gateway wires it in. Without one the tool is keyword-only
 * and says so (`semantic_status: "disabled"`). The source receives the already-resolved scope and
 * must apply it in the storage's query before ranking, exactly like keyword search (the tool gates
 * every hit again). It is asked before the call's storage read scope is entered, so a query
 * embedding never holds a scoped transaction open.
 */
import type { WritingScript } from '@recall/rpc-contract';
import type { ToolScope } from './scope.js';

/** Per-model fusion overrides a semantic source may carry (see fusion.ts; every key optional). */
export interface FusionHints {
  semanticWeight?: number;
  similarityFloor?: number;
  keywordTopBonus?: number;
  keywordTopMinGap?: number;
  keywordTopRanks?: number;
}

/** The semantic index's state for the caller's scope, as reported in `semantic_status`. */
export type SemanticStatus = 'disabled' | 'ready' | 'partial' | 'unavailable';

/** How much of the scope the semantic index covers, in messages. */
export interface SemanticCoverage {
  /** Messages with vectors. */
  indexed: number;
  /** Messages that should have them. */
  total: number;
}

/** One semantic match: the best chunk of a message, scored by cosine similarity (−1…1, higher is closer). */
export interface SemanticHit {
  messageId: number;
  sessionId: string;
  /** Cosine similarity of the query and the chunk. */
  score: number;
  /** UTF-16 code unit range of the matching chunk in the message content. */
  start?: number;
  end?: number;
}

/** What `SemanticSource.status()` answers: the status, the coverage and, when not ready, why. */
export interface SemanticStatusReply {
  status: SemanticStatus;
  coverage: SemanticCoverage | 'unknown';
  reason?: string;
}

/**
 * Stage B as the tool sees it: `status(scope)` says whether semantic search can serve the caller
 * (and its coverage), `search()` returns hits inside the scope only, best first, and must honour
 * `signal` (the call's deadline) — a rejection makes the call fall back to keyword search.
 * `createConfiguredSemanticSource()` of @recall/semantic implements it.
 */
export interface SemanticSource {
  /** Per-model fusion hints from the semantic config (see fusion.ts); absent = the measured defaults. */
  readonly fusion?: FusionHints;
  /**
   * The writing systems the model reads (absent = every script). For a query written only in other
   * scripts, the tool keeps a semantic hit only when its chunk shares one of the query's scripts
   * (scripts.ts): the built-in English model declares `['latin']`, so 番茄炒蛋 finds nothing
   * semantically in an English project but still matches Chinese text.
   */
  readonly scripts?: readonly WritingScript[];
  /** Synchronous for a source over a local file; a source over the storage ports answers with a promise. */
  status(scope: ToolScope): SemanticStatusReply | Promise<SemanticStatusReply>;
  /**
   * `since`/`until` (epoch ms, since inclusive, until exclusive), when given, restrict the allowed
   * set to messages created in that range before ranking; the tool also drops any hit outside it.
   */
  search(query: string, scope: ToolScope, options: { limit: number; roles?: readonly string[]; signal: AbortSignal; since?: number; until?: number }): Promise<SemanticHit[]>;
}
