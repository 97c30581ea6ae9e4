/**
 * The certificate of the exact vector search's two-stage scan (ChunkStore.search, semantic.ts).
 *
 * Stage 1 ranks the allowed set by `embedding_half <#> q` (the vector rounded to halfvec, generated
 * by migration 0011 for unit vectors of at most 1024 dimensions) and keeps the best `wide` chunks;
 * stage 2 ranks those by the float `embedding <#> q` with the full exact order (distance, message
 * id, chunk id). Why that is the exact answer when the certificate holds: let τ be the largest
 * halfvec distance among the kept chunks. Every chunk not kept has a halfvec distance ≥ τ (the
 * first stage keeps the smallest), so its float distance is ≥ τ − bound, where `bound` caps
 * |halfvec distance − float distance| (halfvecBound). Chunks without a compact copy sort first in
 * stage 1 and are always kept. So the float order of the kept chunks is the float order of the
 * whole allowed set up to (excluding) τ − bound; if the chunk that completes `limit` distinct
 * messages lies strictly below τ − bound, the first `limit` messages — which chunk anchors each,
 * ties included — are those of the plain `order by embedding <#> q` over the whole set. When the
 * first stage returned fewer than `wide` chunks it saw the whole set, and the answer is exact as is.
 */

/** Dimensions up to which a fingerprint's vectors get a halfvec copy (migration 0011). */
export const HALFVEC_MAX_DIMS = 1024;

/**
 * An upper bound on |halfvec distance − float distance| for the query `q` and a stored vector of norm
 * ≤ 1.001 (the generated column's condition), or null when `q` cannot be rounded to halfvec (a
 * component beyond halfvec's range, or not finite). Derivation: rounding to halfvec moves each
 * component by at most 2^-11 relative (normal range) or 2^-25 absolute (subnormal), so each product
 * q_i·v_i moves by ≤ (2^-10 + 2^-22)·|q_i·v_i| + 2^-24·(|q_i| + |v_i|); summed with Cauchy–Schwarz
 * that is ≤ 9.8e-4·|q|·|v| + 2^-24·√n·(|q| + |v|); both float32 accumulations add ≤ n·2^-24·|q|·|v|
 * each (n ≤ 1024: 6.1e-5). The constant below (1.5e-3·|q| + 2e-6·√n·(|q| + 1.001)) covers the sum
 * with a margin of ≥ 30 %.
 */
export function halfvecBound(q: Float32Array): number | null {
  let sq = 0;
  for (const x of q) {
    if (!Number.isFinite(x) || Math.abs(x) > 65_000) return null;
    sq += x * x;
  }
  const norm = Math.sqrt(sq);
  return 1.5e-3 * Math.max(norm, 1e-9) + 2e-6 * Math.sqrt(q.length) * (norm + 1.001);
}

/** A re-ranked chunk row of the search statements (distance NULL: a ready row without a vector; sorted last). */
export interface RankedRow {
  message_id: unknown;
  session_id: unknown;
  start: unknown;
  end: unknown;
  distance: unknown;
}

/** A message hit: its best chunk (first in the exact order) anchors it; score = inner product. */
export interface VectorHit {
  messageId: number;
  sessionId: string;
  score: number;
  start: number;
  end: number;
}

/** The first `limit` distinct messages of rows in the exact order (each anchored by its first chunk). */
export function firstPerMessage(rows: readonly RankedRow[], limit: number): VectorHit[] {
  const seen = new Set<number>();
  const hits: VectorHit[] = [];
  for (const r of rows) {
    if (hits.length >= limit) break;
    if (r.distance === null) continue; // a ready row without a vector
    const id = Number(r.message_id);
    if (seen.has(id)) continue;
    seen.add(id);
    hits.push({ messageId: id, sessionId: r.session_id as string, score: -Number(r.distance), start: Number(r.start), end: Number(r.end) });
  }
  return hits;
}

/**
 * The exact top `limit` messages from the re-ranked candidates `rows` (sorted by distance, message
 * id, chunk id), or null when the certificate does not hold (the caller widens or scans everything).
 * `exhausted`: stage 1 returned the whole allowed set; `tau`: the largest halfvec distance kept (null:
 * none of the kept chunks has a compact copy).
 */
export function certifiedTopK(rows: readonly RankedRow[], limit: number, input: { exhausted: boolean; tau: number | null; bound: number }): VectorHit[] | null {
  if (input.exhausted) return firstPerMessage(rows, limit);
  if (input.tau === null) return null;
  const cut = input.tau - input.bound;
  const seen = new Set<number>();
  for (const r of rows) {
    if (r.distance === null) continue; // a ready row without a vector
    const d = Number(r.distance);
    // Strict: a chunk outside the candidates may have a float distance equal to `cut`.
    if (!(d < cut)) return null;
    seen.add(Number(r.message_id));
    if (seen.size >= limit) return firstPerMessage(rows, limit);
  }
  return null;
}
