/**
 * The seam between stage A and stage B. `session_search` accepts an optional SemanticSource; the
 * semantic package implements it and the gateway wires it in. Without one the tool is keyword-only
 * and says so (`semantic_status: "disabled"`). The source receives the already-resolved scope and
 * must apply it in SQL before ranking, exactly like keyword search.
 */
import type { ToolScope } from './scope.js';

export type SemanticStatus = 'disabled' | 'ready' | 'partial' | 'unavailable';

export interface SemanticCoverage {
  indexed: number;
  total: number;
}

export interface SemanticHit {
  messageId: number;
  sessionId: string;
  score: number;
  /** UTF-16 code unit range of the matching chunk in the message content. */
  start?: number;
  end?: number;
}

export interface SemanticSource {
  /** Per-model fusion hints from the semantic config (see fusion.ts); absent = the measured defaults. */
  readonly fusion?: { semanticWeight?: number; similarityFloor?: number };
  status(scope: ToolScope): { status: SemanticStatus; coverage: SemanticCoverage | 'unknown'; reason?: string };
  search(query: string, scope: ToolScope, options: { limit: number; roles?: readonly string[]; signal: AbortSignal }): Promise<SemanticHit[]>;
}
