/**
 * Every match BM25 has to see, on PostgreSQL. The SQLite search ranks ALL of a project's matches
 * by FTS5's bm25() (up to its newest-first window of 5,000, RANK_WINDOW); the GIN query here returns
 * at most 500 rows per call, best by `ts_rank`, which has no IDF. When a question matches more
 * messages than one call returns, a message that BM25 puts first (a rare word in a long message) can
 * be missing from the best rows by ts_rank, which only count how often any query word occurs — the
 * backends then ranked differently (LoCoMo: one conversation's question matched ~450 of its ~600
 * turns through the speaker names, and its evidence was cut).
 *
 * The match set is therefore read in disjoint parts. With the leaves (query phrases) ordered from
 * the rarest, part k holds the matches containing leaf k and none of the rarer leaves before it;
 * its size is counted exactly (recall_keyword_matches with counts, migration 0010, in the caller's scope), consecutive
 * parts are read together while they fit one call (at most MAX_PART_READS calls), and a part larger
 * than one call is not read (it stays open). The parts come from the rarest leaves first, and before each part is read the top of the
 * ranking so far is compared with the most a message of that part can score (it holds only the
 * leaves from k on: bm25UpperBound); once the `limit`-th best is above that, nothing unread can
 * enter the top and reading stops. The answer is exact when every part was read whole or proved
 * unable to enter the top, which `exact` reports. No statement reads outside the caller's scope:
 * both callbacks call the scoped function of migration 0010.
 */
import { bm25UpperBound, type Bm25Stats } from './keyword-bm25.js';
import type { QueryLeaf } from '../keyword-text.js';

/**
 * Reads after the first call at most (each at most one call's rows). Bounds the cost of a question
 * of common words in a large project, whose parts cannot all be read (bench:postgres: 16 reads
 * doubled the common-word p50 at 2,000 messages); LoCoMo's largest match sets need one or two.
 */
export const MAX_PART_READS = 4;

export interface CollectInput<R> {
  /** The whole question's tsquery. */
  tsquery: string;
  leaves: readonly QueryLeaf[];
  /** The first call's rows (the best `cap` by ts_rank of the whole question). */
  first: readonly R[];
  /** Rows one call returns at most. */
  cap: number;
  /** Hits the search keeps (the top that must be exact). */
  limit: number;
  stats: Bm25Stats;
  idOf(row: R): number;
  /** The scope's matches of `tsquery` (already including the whole question), at most `cap`. */
  fetch(tsquery: string): Promise<R[]>;
  /** Per query, the scope's messages matching the whole question and it. */
  count(queries: readonly string[]): Promise<number[]>;
  /**
   * The same counts for the parts of leaf order `order` when they are already known (the first
   * call's scan counted them), so `count` is not called; undefined: call `count`.
   */
  partSizes?(order: readonly number[]): number[];
  /** The row's BM25 score (higher is better) and whether its session is automated (ranked after interactive ones). */
  score(row: R): { score: number; automated: boolean };
}

const or = (parts: readonly string[]): string => (parts.length === 1 ? parts[0]! : `(${parts.join(' | ')})`);

/** The rows of every match that can rank in the top `limit` (see the module header). */
export async function collectMatches<R>(input: CollectInput<R>): Promise<{ rows: R[]; exact: boolean }> {
  const { leaves, stats, cap } = input;
  const byId = new Map<number, R>();
  for (const r of input.first) byId.set(input.idOf(r), r);
  if (leaves.length === 0) return { rows: [...byId.values()], exact: false };
  const order = leaves.map((_, i) => i).sort((a, b) => (stats.documentFrequency[a] ?? 0) - (stats.documentFrequency[b] ?? 0) || a - b);
  const q = order.map((i) => leaves[i]!.tsquery);
  const parts = q.map((leaf, k) => (k === 0 ? leaf : `${leaf} & !${or(q.slice(0, k))}`));
  const sizes = input.partSizes ? input.partSizes(order) : await input.count(parts);
  // Consecutive parts read together while they fit one call.
  const groups: Array<{ from: number; to: number; size: number }> = [];
  for (let k = 0; k < parts.length; k++) {
    const last = groups[groups.length - 1];
    if (last && last.size + sizes[k]! <= cap) {
      last.to = k;
      last.size += sizes[k]!;
    } else groups.push({ from: k, to: k, size: sizes[k]! });
  }
  /** The `limit`-th best of the rows read: its score when it is interactive (anything unread must stay below it). */
  const threshold = (): number => {
    const scored = [...byId.values()].map((r) => input.score(r));
    if (scored.length < input.limit) return Infinity;
    scored.sort((a, b) => Number(a.automated) - Number(b.automated) || b.score - a.score);
    const kth = scored[input.limit - 1]!;
    return kth.automated ? Infinity : kth.score;
  };
  const above = (bound: number): boolean => {
    const t = threshold();
    return t !== Infinity && t > bound;
  };
  let open = -Infinity; // the bound of the parts read only in part
  let reads = 0;
  for (const g of groups) {
    if (g.size === 0) continue;
    const bound = bm25UpperBound(leaves, order.slice(g.from), stats);
    if (above(Math.max(bound, open))) return { rows: [...byId.values()], exact: true };
    if (g.size > cap) {
      // Larger than one call: its best rows by ts_rank would not make the answer exact either
      // (the first call already holds the question's best by ts_rank); left open, not read.
      open = Math.max(open, bound);
      continue;
    }
    if (reads >= MAX_PART_READS) return { rows: [...byId.values()], exact: false };
    const leavesOf = or(q.slice(g.from, g.to + 1));
    const part = g.from === 0 ? leavesOf : `${leavesOf} & !${or(q.slice(0, g.from))}`;
    reads++;
    for (const r of await input.fetch(`(${input.tsquery}) & ${part}`)) byId.set(input.idOf(r), r);
  }
  return { rows: [...byId.values()], exact: open === -Infinity || above(open) };
}
