/**
 * How `session_search` merges its keyword and semantic lists into one ranking of message anchors.
 * The form and constants were chosen on LoCoMo conversations 0–4 (dev) with the built-in USE-lite
 * model and checked once on conversations 5–9 (test) by `pnpm tune:fusion`
 * (tooling/bench/src/fusion-tune.ts); the figures are in docs/benchmarks.md. Naive
 * equal-weight RRF (k = 60) loses to keyword alone there, because a weak model's top hits are
 * mostly wrong and k = 60 lets them outrank keyword's 2nd–10th hits.
 *
 * Forms (all rank-based on the keyword side; BM25 scores are never compared with cosines):
 * - `weighted-rrf`: score = wk / (k + rank_kw) + ws / (k + rank_sem), where the semantic list only
 *   contains hits with cosine ≥ similarityFloor. A small k and wk > ws keep keyword's order at the
 *   top while agreement (`both`) moves up and confident semantic-only hits enter below.
 * - `keyword-first`: keyword's list in its order, then semantic hits above the floor that keyword
 *   did not find (semantic rescue). Never reorders keyword.
 *
 * A stronger model can be given more say per profile without touching code: the semantic source
 * may carry `fusion` hints (semanticWeight, similarityFloor) from the `semantic` config, which
 * override the defaults below for that source only.
 */
import type { MatchSource } from './result.js';
import type { FusionHints } from './semantic-source.js';

/** `weighted-rrf` or `keyword-first` (see the module header). */
export type FusionForm = 'weighted-rrf' | 'keyword-first';

/** The parameters of one fusion: form, RRF rank constant, list weights and the semantic similarity floor. */
export interface FusionParams {
  form: FusionForm;
  /** RRF rank constant. */
  k: number;
  keywordWeight: number;
  semanticWeight: number;
  /** Semantic hits with a cosine below this never enter the fusion. */
  similarityFloor: number;
  /**
   * Rank bonus of keyword's rank-1 hit, added to its fused score when the keyword list is
   * confident (see keywordTopMinGap); 0 = none. A bonus ≥ keywordWeight / (k + 1) keeps it first.
   */
  keywordTopBonus?: number;
  /**
   * The keyword list counts as confident when its rank-1 BM25 score leads rank 2 by at least this
   * share (0 = always; see keywordConfidence).
   */
  keywordTopMinGap?: number;
  /** How many of keyword's top ranks are protected (default 1): rank r gets (N − r + 1) bonuses, so they stay on top in keyword order. */
  keywordTopRanks?: number;
}

/**
 * The chosen fusion: weighted RRF, k = 20, keyword weight 4, semantic weight 0.5, and a rank bonus
 * that keeps keyword's rank-1 hit first whenever a semantic list exists (the hybrid answer at rank
 * 1 is keyword's, so hybrid R@1 never drops below keyword's; semantic agreement and rescue act from
 * rank 2 on). Issue 22 (docs/benchmarks.md, "Fusion at rank 1"): chosen with `npx -y pnpm@10 eval
 * --dataset locomo --conversations 0,1,2,3,4 --modes keyword,hybrid --fusion …` on the dev half only
 * as the variant with every dev category at or above keyword at R@1, R@5 and R@10 and the best dev
 * R@5 (0.658 vs keyword 0.648; R@1 0.475 vs 0.466). Rejected on dev: no bonus (R@1 below keyword),
 * a bonus only when keyword's rank 1 leads rank 2 by ≥ 10 % of its BM25 score (open-domain R@1
 * below keyword), protecting keyword's top 2/3/5 (temporal R@1 or open-domain R@5 below keyword),
 * semantic weight 1 (open-domain R@5 below keyword). The earlier choice (weight 1, no bonus) and
 * its `pnpm tune:fusion` table are kept in docs/benchmarks.md. A stronger model gets more say
 * through the config's `semantic.fusion` (semanticWeight, similarityFloor, keywordTopBonus, …).
 */
export const FUSION_DEFAULTS: Readonly<FusionParams> = Object.freeze({
  form: 'weighted-rrf',
  k: 20,
  keywordWeight: 4,
  semanticWeight: 0.5,
  similarityFloor: 0,
  keywordTopBonus: 1,
  keywordTopMinGap: 0,
  keywordTopRanks: 1,
});

/** One fused entry: its key, fused score (higher first), which lists found it, and its ranks there. */
export interface FusionCandidate<K> {
  key: K;
  score: number;
  source: Exclude<MatchSource, 'direct'>;
  /** 1-based ranks in each list that contained the key. */
  ranks: { keyword?: number; semantic?: number };
}

/**
 * Fuses a keyword ranking (best first) with a semantic ranking (best first, with cosines). A key
 * named twice in one list counts once, at its best rank. Ties keep first appearance (keyword
 * before semantic), so the order is deterministic.
 */
export function fuseRankings<K>(
  keyword: readonly K[],
  semantic: ReadonlyArray<{ key: K; score: number }>,
  params: FusionParams = FUSION_DEFAULTS,
  /** How far keyword's rank 1 leads rank 2 (keywordConfidence); 1 when unknown. */
  keywordLead = 1,
): FusionCandidate<K>[] {
  const items = new Map<K, FusionCandidate<K> & { order: number }>();
  let order = 0;
  const entry = (key: K) => {
    let item = items.get(key);
    if (!item) {
      item = { key, score: 0, source: 'keyword', ranks: {}, order: order++ };
      items.set(key, item);
    }
    return item;
  };
  keyword.forEach((key, i) => {
    const item = entry(key);
    if (item.ranks.keyword !== undefined) return;
    item.ranks.keyword = i + 1;
  });
  let rank = 0;
  for (const hit of semantic) {
    if (!(hit.score >= params.similarityFloor)) continue;
    rank++;
    const item = entry(hit.key);
    if (item.ranks.semantic !== undefined) continue;
    item.ranks.semantic = rank;
  }
  const all = [...items.values()];
  for (const item of all) {
    item.source = item.ranks.keyword !== undefined && item.ranks.semantic !== undefined ? 'both' : item.ranks.keyword !== undefined ? 'keyword' : 'semantic';
    if (params.form === 'keyword-first') {
      // keyword items keep keyword order above every semantic-only item
      item.score = item.ranks.keyword !== undefined ? 2 + 1 / item.ranks.keyword : 1 / (1 + item.ranks.semantic!);
    } else {
      item.score =
        (item.ranks.keyword !== undefined ? params.keywordWeight / (params.k + item.ranks.keyword) : 0) +
        (item.ranks.semantic !== undefined ? params.semanticWeight / (params.k + item.ranks.semantic) : 0);
      if (item.ranks.keyword !== undefined && item.ranks.keyword <= (params.keywordTopRanks ?? 1) && (params.keywordTopBonus ?? 0) > 0 && semantic.length > 0 && keywordLead >= (params.keywordTopMinGap ?? 0)) {
        // Rank r of the protected top N gets (N − r + 1) bonuses: they stay above every other hit, in keyword order.
        item.score += params.keywordTopBonus! * ((params.keywordTopRanks ?? 1) - item.ranks.keyword + 1);
      }
    }
  }
  return all.sort((a, b) => b.score - a.score || a.order - b.order).map(({ key, score, source, ranks }) => ({ key, score, source, ranks }));
}

/**
 * How confidently keyword search picked its rank 1: the share by which its score (higher is better,
 * −BM25) leads rank 2's, in [0, 1]; 1 with a single hit, 0 with none or with score-less (literal) hits.
 */
export function keywordConfidence(hits: ReadonlyArray<{ score: number }>): number {
  if (hits.length === 0) return 0;
  if (hits.length === 1) return 1;
  const a = hits[0]!.score;
  const b = hits[1]!.score;
  if (!(a > 0) || !Number.isFinite(a) || !Number.isFinite(b)) return 0;
  return Math.min(1, Math.max(0, (a - b) / a));
}

/** The defaults overridden by a source's per-model hints (bounded: weights ≥ 0, floor in [-1, 1], bonus and gap in [0, 1]). */
export function fusionParamsFor(hints: FusionHints | undefined): FusionParams {
  if (!hints) return FUSION_DEFAULTS;
  const num = (x: number | undefined, lo: number, hi: number) => (x !== undefined && Number.isFinite(x) ? Math.min(hi, Math.max(lo, x)) : undefined);
  const out: FusionParams = { ...FUSION_DEFAULTS };
  const w = num(hints.semanticWeight, 0, Infinity);
  if (w !== undefined) out.semanticWeight = w;
  const floor = num(hints.similarityFloor, -1, 1);
  if (floor !== undefined) out.similarityFloor = floor;
  const bonus = num(hints.keywordTopBonus, 0, 1);
  if (bonus !== undefined) out.keywordTopBonus = bonus;
  const gap = num(hints.keywordTopMinGap, 0, 1);
  if (gap !== undefined) out.keywordTopMinGap = gap;
  const ranks = num(hints.keywordTopRanks, 1, 50);
  if (ranks !== undefined) out.keywordTopRanks = Math.floor(ranks);
  return out;
}
