/**
 * Turns the semantic coverage the gateway reports — `index.status`'s `semantic.coverage` and a
 * search's `semantic_coverage`, both `{ indexed, total }` chunks of the switched-on projects in the
 * contract, or "unknown" while planning — into one progress figure for the index and search panels.
 * Null when it is unknown or absent, so the UI says "unknown" instead of inventing a percentage.
 */
import type { IndexStatus } from '@recall/rpc-contract';

type Coverage = IndexStatus['semantic']['coverage'];

export interface Progress {
  done: number;
  total: number;
  /** Chunks still to embed (total - done, never negative). */
  pending: number;
  unit: 'chunks';
  /** 0..1, null when total is 0. */
  ratio: number | null;
}

export function coverageProgress(coverage: Coverage | null): Progress | null {
  if (coverage === undefined || coverage === null || coverage === 'unknown') return null;
  const { indexed: done, total } = coverage;
  return { done, total, pending: Math.max(0, total - done), unit: 'chunks', ratio: total > 0 ? Math.min(1, done / total) : null };
}
