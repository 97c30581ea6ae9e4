/**
 * A bounded top-k selector: keeps the k best (row, score) pairs of a stream in a binary min-heap, so
 * a scan over n rows costs O(n log k) time and O(k) memory whatever n is. The order is total and
 * deterministic — higher score first, then lower row index — so every scan backend that feeds the
 * same scores produces the same list, ties included.
 */

export interface ScoredRow {
  row: number;
  score: number;
}

/** True when `a` ranks below `b` (lower score, or equal score and higher row). */
function worse(aScore: number, aRow: number, bScore: number, bRow: number): boolean {
  return aScore < bScore || (aScore === bScore && aRow > bRow);
}

/**
 * A bounded best-k collector of (row, score): higher score first, lower row first on ties (deterministic).
 */
export class TopK {
  readonly k: number;
  private readonly rows: Int32Array;
  private readonly scores: Float64Array;
  private size = 0;

  constructor(k: number) {
    if (!Number.isInteger(k) || k < 0) throw new RangeError(`k must be a non-negative integer, got ${k}`);
    this.k = k;
    this.rows = new Int32Array(k);
    this.scores = new Float64Array(k);
  }

  get length(): number {
    return this.size;
  }

  /** The score a new row must beat to enter (−Infinity while the heap is not full). */
  get threshold(): number {
    return this.size < this.k ? -Infinity : this.scores[0]!;
  }

  push(row: number, score: number): void {
    if (this.k === 0 || Number.isNaN(score)) return;
    if (this.size < this.k) {
      let i = this.size++;
      // sift up: the root holds the worst kept row
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!worse(score, row, this.scores[parent]!, this.rows[parent]!)) break;
        this.rows[i] = this.rows[parent]!;
        this.scores[i] = this.scores[parent]!;
        i = parent;
      }
      this.rows[i] = row;
      this.scores[i] = score;
      return;
    }
    if (!worse(this.scores[0]!, this.rows[0]!, score, row)) return;
    // replace the root and sift down
    let i = 0;
    const n = this.size;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      if (r < n && worse(this.scores[r]!, this.rows[r]!, this.scores[l]!, this.rows[l]!)) c = r;
      if (!worse(this.scores[c]!, this.rows[c]!, score, row)) break;
      this.rows[i] = this.rows[c]!;
      this.scores[i] = this.scores[c]!;
      i = c;
    }
    this.rows[i] = row;
    this.scores[i] = score;
  }

  /** Kept rows, best first. */
  sorted(): ScoredRow[] {
    const out: ScoredRow[] = [];
    for (let i = 0; i < this.size; i++) out.push({ row: this.rows[i]!, score: this.scores[i]! });
    return out.sort(compareScored);
  }
}

/** Best first: higher score, then lower row. */
export function compareScored(a: ScoredRow, b: ScoredRow): number {
  return b.score - a.score || a.row - b.row;
}
