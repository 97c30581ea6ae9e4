/**
 * BM25 as SQLite FTS5's `bm25()` computes it (k1 = 1.2, b = 0.75, one score per query phrase,
 * summed; a column's hits weighted by BM25_WEIGHTS: weight A = `body`, weight B = `cjk`), but with
 * the statistics given by the caller: both adapters pass the searched scope's own (its message
 * count, mean length and per-phrase document frequencies — never another project's), where FTS5
 * would take them over the whole table. Pure (no SQLite): shared through @recall/store/portable
 * by the SQLite re-scoring (keyword-scope-stats.ts) and the PostgreSQL keyword adapter.
 */
import { BM25_WEIGHTS } from './keyword-types.js';

/** FTS5's bm25() constants. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** One scored query phrase: its column (A = `body`, B = `cjk`) and how often the query holds it. */
export interface Bm25Leaf {
  readonly weight: 'A' | 'B';
  /** How often FTS5's expression holds the phrase (each occurrence is scored; default 1). */
  readonly count?: number;
}

/** What BM25 needs from the scope: how many messages it holds, and per leaf how many contain it. */
export interface Bm25Stats {
  readonly messages: number;
  readonly documentFrequency: readonly number[];
  /** Mean document length (tokens, the project's scope token included) in the scope. */
  readonly averageLength: number;
}

/** FTS5's IDF of leaf `i`: ln((N − df + 0.5) / (df + 0.5)), and 1e-6 where that is not positive. */
export function bm25Idf(stats: Bm25Stats, i: number): number {
  const df = stats.documentFrequency[i] ?? 0;
  const idf = Math.log((stats.messages - df + 0.5) / (df + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

/**
 * The BM25 score (positive: higher is better) of one document of `length` tokens whose leaf `i`
 * occurs `frequencies[i]` times in its column.
 */
export function bm25Score(frequencies: readonly number[], length: number, leaves: readonly Bm25Leaf[], stats: Bm25Stats): number {
  return bm25Scorer(leaves, stats)(frequencies, length);
}

/**
 * bm25Score for many documents of one search: the leaves' IDFs and column weights are taken once,
 * and each call scores one document (the same arithmetic in the same order, so the same numbers).
 */
export function bm25Scorer(leaves: readonly Bm25Leaf[], stats: Bm25Stats): (frequencies: ArrayLike<number>, length: number) => number {
  const avg = stats.averageLength > 0 ? stats.averageLength : 1;
  const n = leaves.length;
  const idf = new Float64Array(n);
  const weight = new Float64Array(n);
  const count = new Float64Array(n);
  leaves.forEach((leaf, i) => {
    idf[i] = bm25Idf(stats, i);
    weight[i] = leaf.weight === 'A' ? BM25_WEIGHTS.body : BM25_WEIGHTS.cjk;
    count[i] = leaf.count ?? 1;
  });
  return (frequencies, length) => {
    const norm = BM25_K1 * (1 - BM25_B + (BM25_B * length) / avg);
    let score = 0;
    for (let i = 0; i < n; i++) {
      const tf = frequencies[i] ?? 0;
      if (tf === 0) continue;
      const f = tf * weight[i]!;
      score += (count[i]! * idf[i]! * f * (BM25_K1 + 1)) / (f + norm);
    }
    return score;
  };
}

/**
 * The most a document can score that holds only the leaves `leafIndexes` (in any number, at any
 * length): each leaf adds idf · f(k1 + 1) / (f + norm) < idf · (k1 + 1).
 */
export function bm25UpperBound(leaves: readonly Bm25Leaf[], leafIndexes: readonly number[], stats: Bm25Stats): number {
  let bound = 0;
  for (const i of leafIndexes) bound += (leaves[i]?.count ?? 1) * bm25Idf(stats, i) * (BM25_K1 + 1);
  return bound;
}

/**
 * The most a document can score under `scoped` statistics when it scores at most `wholeScore`
 * under `whole` ones (the same leaves; FTS5's bm25() over the whole table, which orders the
 * SQLite candidates). Per leaf, the scoped term is at most ρ · idfₛ/idfₜ times the whole-table
 * term (ρ = max(1, avgₛ/avgₜ): the length normalisation's largest ratio over every length) and
 * below idfₛ · (k1 + 1); the whole-table terms sum to at most `wholeScore`. The largest sum under
 * those limits is a fractional knapsack, filled from the leaf with the largest ratio.
 */
export function bm25ScopedBound(leaves: readonly Bm25Leaf[], whole: Bm25Stats, scoped: Bm25Stats, wholeScore: number): number {
  if (!(wholeScore > 0)) return 0;
  const avgW = whole.averageLength > 0 ? whole.averageLength : 1;
  const avgS = scoped.averageLength > 0 ? scoped.averageLength : 1;
  const rho = Math.max(1, avgS / avgW);
  const items = leaves.map((leaf, i) => {
    const count = leaf.count ?? 1;
    const cap = count * bm25Idf(scoped, i) * (BM25_K1 + 1);
    return { ratio: (rho * bm25Idf(scoped, i)) / bm25Idf(whole, i), cap };
  });
  items.sort((a, b) => b.ratio - a.ratio);
  let left = wholeScore;
  let bound = 0;
  for (const it of items) {
    const need = it.cap / it.ratio; // whole-table score that fills this leaf's cap
    if (need >= left) return bound + it.ratio * left;
    bound += it.cap;
    left -= need;
  }
  return bound;
}
