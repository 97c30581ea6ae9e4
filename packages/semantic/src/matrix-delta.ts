/**
 * A MatrixCache entry caught up with additions (matrix-cache.ts getAsync, `loadAdded`): the rows
 * added since the entry's generation go into a small TAIL next to the cached matrix instead of a
 * reload of the whole set. The cached segments are not touched (they are shared with searches
 * still running on the previous set): a new AllowedSet is built from them plus one tail segment per
 * role, after all the cached segments.
 *
 * Why a tail and not rows appended to the cached int8 matrix: its per-column scales
 * (int8-scan.ts, `127 / max |x|` over the cached rows) bound the new rows only when none of their
 * components exceeds a column's maximum — at 100k × 384 about one appended row in 260 does — and
 * requantising the matrix needs its float32 rows, which the entry does not keep (the rescore
 * reads them from the database). A tail keeps its own float32 rows (few) and its own int8 copy
 * quantised over them, requantised whenever rows join it; the certified scan runs on it as on any
 * segment (its own scales, error bound and rescore reads), so the search stays exact.
 *
 * Order: a tail's rows are sorted by (message id, chunk id), as every segment's are, and the tails
 * come after the cached segments; the segment order does not rank: the search merges the segments'
 * lists in one total order (exact-search.ts `compareRanked`: score, message id, chunk id — the SQL
 * scan's), so on an exact score tie a tail row of an older message ranks before a cached row of a
 * newer one, as the SQL scan ranks them.
 */
import { MESSAGE_ROLES, type MessageRole } from '@recall/rpc-contract';
import type { AllowedSegment, AllowedSet } from './allowed-set.js';
import { quantizeMatrix } from './int8-scan.js';

/** Bytes of anchors per cached row (as matrix-cache.ts). */
const ANCHOR_BYTES = 29;

/** Rows a tail may hold at least; more when the cached set is large (MatrixCache's tail limit). */
export const MIN_TAIL_ROWS = 4096;

/** The tail limit of a set with `mainRows` cached rows: past it the entry is rebuilt in full. */
export function tailLimit(mainRows: number): number {
  return Math.max(MIN_TAIL_ROWS, Math.floor(mainRows / 8));
}

/** An entry's tails: per role, the float32 rows of its tail segment (requantised when rows join). */
export type TailRows = ReadonlyMap<MessageRole, Float32Array>;

/** Bytes a cached segment holds (int8 rows + anchors + scales; tails also their float32 rows). */
export function segmentBytes(rows: number, dims: number, tail: boolean): number {
  return rows * (dims + ANCHOR_BYTES) + dims * 8 + (tail ? rows * dims * 4 : 0);
}

/**
 * `set` (its first `mainSegments` segments cached, then tails whose float32 rows are `tails`) with
 * the rows of `added` (float32 segments, e.g. a port's loadAdded) joined to the tails: a new set and
 * new tails; `set` itself is unchanged.
 */
export function withAdded(set: AllowedSet, mainSegments: number, tails: TailRows, added: AllowedSet): { set: AllowedSet; tails: Map<MessageRole, Float32Array> } {
  const { dims } = set;
  const sessions = set.sessions.slice();
  const sessionIdx = new Map(sessions.map((s, i) => [s, i]));
  const remap = added.sessions.map((s) => {
    let i = sessionIdx.get(s);
    if (i === undefined) {
      i = sessions.length;
      sessions.push(s);
      sessionIdx.set(s, i);
    }
    return i;
  });
  const main = set.segments.slice(0, mainSegments);
  const oldTails = new Map(set.segments.slice(mainSegments).map((s) => [s.role, s]));
  const nextTails = new Map<MessageRole, Float32Array>();
  const tailSegments: AllowedSegment[] = [];
  for (const role of MESSAGE_ROLES) {
    const old = oldTails.get(role);
    const add = added.segments.find((s) => s.role === role && s.rows > 0);
    if (!old && !add) continue;
    const oldFloats = old ? tails.get(role)! : new Float32Array(0);
    const n0 = old?.rows ?? 0;
    const n1 = add?.rows ?? 0;
    const n = n0 + n1;
    // Positions in (message id, chunk id) order over the old tail's rows then the added ones.
    const key = (i: number): [number, number] => (i < n0 ? [old!.messageIds[i]!, old!.chunkIds[i]!] : [add!.messageIds[i - n0]!, add!.chunkIds[i - n0]!]);
    const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => {
      const [mx, cx] = key(x);
      const [my, cy] = key(y);
      return mx - my || cx - cy;
    });
    const seg: AllowedSegment = { role, rows: n, matrix: null, chunkIds: new Float64Array(n), messageIds: new Float64Array(n), sessionIdx: new Int32Array(n), start: new Int32Array(n), end: new Int32Array(n), live: new Uint8Array(n) };
    const floats = new Float32Array(n * dims);
    order.forEach((from, to) => {
      const src = from < n0 ? old! : add!;
      const i = from < n0 ? from : from - n0;
      const data = from < n0 ? oldFloats : add!.matrix!.data;
      floats.set(data.subarray(i * dims, (i + 1) * dims), to * dims);
      seg.chunkIds[to] = src.chunkIds[i]!;
      seg.messageIds[to] = src.messageIds[i]!;
      seg.sessionIdx[to] = from < n0 ? src.sessionIdx[i]! : remap[src.sessionIdx[i]!]!;
      seg.start[to] = src.start[i]!;
      seg.end[to] = src.end[i]!;
      seg.live[to] = src.live[i]!;
    });
    seg.q8 = quantizeMatrix(floats, n, dims);
    tailSegments.push(seg);
    nextTails.set(role, floats);
  }
  const segments = [...main, ...tailSegments];
  const bytes = main.reduce((b, s) => b + segmentBytes(s.rows, dims, false), 0) + tailSegments.reduce((b, s) => b + segmentBytes(s.rows, dims, true), 0);
  return {
    set: { ...set, sessions, segments, rows: segments.reduce((r, s) => r + s.rows, 0), bytes, skipped: set.skipped + added.skipped },
    tails: nextTails,
  };
}
