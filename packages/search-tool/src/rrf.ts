/**
 * Reciprocal Rank Fusion: merges ranked lists by rank, not by raw score, so BM25 and cosine scores
 * never have to be made comparable. score(d) = Σ 1 / (k + rank_i(d)) with 1-based ranks and the
 * conventional k = 60 (Cormack et al., 2009): large enough that a single list's top item cannot
 * drown agreement between lists. Ties keep the order of first appearance, so fusion is
 * deterministic.
 */
export const RRF_K = 60;

export interface FusedItem<K> {
  key: K;
  score: number;
  /** 1-based rank in each source list that contained the item. */
  ranks: Record<string, number>;
}

export function reciprocalRankFusion<K>(lists: ReadonlyArray<{ source: string; keys: readonly K[] }>, k: number = RRF_K): FusedItem<K>[] {
  const fused = new Map<K, FusedItem<K> & { order: number }>();
  let order = 0;
  for (const list of lists) {
    list.keys.forEach((key, index) => {
      let item = fused.get(key);
      if (!item) {
        item = { key, score: 0, ranks: {}, order: order++ };
        fused.set(key, item);
      }
      if (item.ranks[list.source] !== undefined) return; // a list naming a key twice counts once, at its best rank
      item.ranks[list.source] = index + 1;
      item.score += 1 / (k + index + 1);
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map(({ key, score, ranks }) => ({ key, score, ranks }));
}
