/**
 * The optional reranking seam and its blending. A `Reranker` (implemented by @recall/semantic over
 * the common HTTP rerank APIs) scores the query against the anchor texts of the fused top
 * conversations; the tool blends those scores with the retrieval order instead of replacing it, so a
 * strong retrieval rank 1 (e.g. keyword's rank 1 with its fusion bonus) survives a reranker that
 * disagrees, while close calls further down are decided by the cross-encoder.
 *
 * Blending (per candidate at 1-based position p of the fused order, N candidates):
 *
 *   retrieval(p) = fused(p) / fused(1)                       (fused RRF score, 1 for the top)
 *   rerank(p)    = (s(p) − min s) / (max s − min s)          (0 for all when every s is equal)
 *   w(p)         = 0.75 for p ≤ 3, 0.6 for p ≤ 10, 0.4 beyond
 *   final(p)     = w(p) · retrieval(p) + (1 − w(p)) · rerank(p)
 *
 * sorted by final, ties in fused order. The top candidate keeps ≥ 0.75 whatever the reranker says;
 * a candidate at position p can pass it only when w·retrieval + (1 − w) > 0.75, i.e. when its
 * retrieval score is above 2/3 of the top's (p ≤ 3), 7/12 (p ≤ 10) or 3/8 (beyond). Keyword's
 * rank-1 bonus (fusion.ts) puts the others below 1/5 of the top, so in hybrid mode the keyword
 * rank 1 stays first; among candidates whose retrieval scores are close, the reranker decides.
 */
import type { ToolScope } from './scope.js';

/** A reranker's answer for one scope: allowed, or not with a reason shown to people. */
export type RerankDecision = { allowed: true } | { allowed: false; reason: string };

/**
 * Stage B's reranker as the tool sees it. `allows(scope)` says whether this caller's text may be
 * sent to the reranker (the project is switched on for it: the same consent as embeddings);
 * `rerank()` returns one relevance score per text, in input order (any scale, higher = more
 * relevant), honours `signal` (the call's deadline) and rejects on any failure — the call then keeps
 * its fused order and says so in a note. `createConfiguredReranker()` of @recall/semantic implements it.
 */
export interface Reranker {
  /** How many of the fused top conversations are reranked (the rest keep their order below them). */
  readonly topN: number;
  /**
   * Whether the caller's scope may be sent to the reranker; `reason` is shown to people when not.
   * May answer with a promise (a consent read through the async storage ports, e.g. PostgreSQL).
   */
  allows(scope: ToolScope): RerankDecision | Promise<RerankDecision>;
  /** One score per text, in order; texts are redacted by the implementation before they are sent. */
  rerank(query: string, texts: readonly string[], options: { signal: AbortSignal }): Promise<number[]>;
}

/** Position weights of the blending (see the module header). */
export function retrievalWeight(position: number): number {
  if (position <= 3) return 0.75;
  if (position <= 10) return 0.6;
  return 0.4;
}

/**
 * Blends fused scores (best first, as ranked) with reranker scores (same order) and returns the new
 * order as indices into the input. Non-finite reranker scores count as the lowest.
 */
export function blendRerank(fused: readonly number[], rerank: readonly number[]): number[] {
  const n = Math.min(fused.length, rerank.length);
  if (n === 0) return [];
  const top = fused[0]! > 0 ? fused[0]! : 1;
  const finite = rerank.slice(0, n).map((s) => (Number.isFinite(s) ? s : -Infinity));
  const real = finite.filter((s) => s !== -Infinity);
  const lo = real.length ? Math.min(...real) : 0;
  const hi = real.length ? Math.max(...real) : 0;
  const spread = hi - lo;
  const final = finite.map((s, i) => {
    const w = retrievalWeight(i + 1);
    const r = spread > 0 && s !== -Infinity ? (s - lo) / spread : 0;
    return { i, score: w * (fused[i]! / top) + (1 - w) * r };
  });
  return final.sort((a, b) => b.score - a.score || a.i - b.i).map((x) => x.i);
}
