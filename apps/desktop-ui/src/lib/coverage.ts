/**
 * Turns whatever coverage object `index.status` reports into one progress figure for the index
 * panel. The gateway may count chunks or messages and may nest them; this looks for the common
 * spellings (ready/indexed/done vs total, pending, failed) and answers null when it cannot tell,
 * so the UI says "unknown" instead of inventing a percentage.
 */

/** The coverage object of `index.status` / `semantic_coverage` (contract: `{ indexed, total }`), read by key. */
type Coverage = Readonly<Record<string, unknown>>;

export interface Progress {
  done: number;
  total: number;
  pending: number | null;
  failed: number | null;
  unit: string;
  /** 0..1, null when total is 0. */
  ratio: number | null;
}

function num(o: Record<string, unknown>, keys: string[]): number | null {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return null;
}

const DONE_KEYS = ['ready', 'indexed', 'done', 'readyChunks', 'indexedMessages', 'covered', 'embedded'];
const TOTAL_KEYS = ['total', 'eligible', 'totalChunks', 'totalMessages', 'messages', 'all'];
const PENDING_KEYS = ['pending', 'pendingChunks', 'queued', 'remaining'];
const FAILED_KEYS = ['failed', 'failedChunks', 'errors'];

function fromFlat(o: Record<string, unknown>, unit: string): Progress | null {
  const done = num(o, DONE_KEYS);
  let total = num(o, TOTAL_KEYS);
  const pending = num(o, PENDING_KEYS);
  const failed = num(o, FAILED_KEYS);
  if (done === null) return null;
  if (total === null && pending !== null) total = done + pending + (failed ?? 0);
  if (total === null) return null;
  return { done, total, pending, failed, unit, ratio: total > 0 ? Math.min(1, done / total) : null };
}

export function coverageProgress(coverage: Coverage | 'unknown' | null | undefined): Progress | null {
  if (!coverage || typeof coverage !== 'object') return null;
  const flat = fromFlat(coverage, typeof coverage.unit === 'string' ? coverage.unit : 'items');
  if (flat) return flat;
  for (const unit of ['messages', 'chunks']) {
    const nested = coverage[unit];
    if (nested && typeof nested === 'object') {
      const p = fromFlat(nested as Record<string, unknown>, unit);
      if (p) return p;
    }
  }
  return null;
}
