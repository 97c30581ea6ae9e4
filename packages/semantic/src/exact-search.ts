/**
 * Semantic retrieval inside the caller's scope: the allowed set (allowed-set.ts; read by the SQLite
 * adapter, sqlite/exact-search.ts, and cached per project by matrix-cache.ts) is scanned whole with the exact top-k kernel (vector-scan.ts); the role filter
 * picks whole role segments and the caller's own live messages are excluded row by row, so both
 * are applied before ranking, never after a global top-k. Several chunks of one message collapse to
 * the best one, which anchors the hit with its [start, end) range. One total order ranks on every
 * path (`compareRanked`): score, then message id, then chunk id — the PostgreSQL SQL scan's order,
 * so exact ties come out alike from the SQLite scan, the SQL scan and a MatrixCache entry with tails.
 */
import type { MessageRole } from '@recall/rpc-contract';
import type { StoredChunkRow } from '@recall/storage-ports';
import type { AllowedSegment, AllowedSet, SemanticScope } from './allowed-set.js';
import { quantizesTo } from './int8-scan.js';
import type { ScoredRow } from './topk.js';
import { dotAt, scanQuantizedTopK, scanQuantizedTopKAsync, scanTopK, type ScanBackend } from './vector-scan.js';

/**
 * A candidate's stored vector no longer quantises to the cached int8 row (or is gone): the cache
 * entry is stale although its generation matched. Never expected (the generation triggers cover
 * every vector change); `searchScope` drops the entry and rebuilds once.
 */
export class StaleVectorError extends Error {
  constructor(chunkId: number) {
    super(`the cached int8 row of chunk ${chunkId} does not match its stored vector`);
    this.name = 'StaleVectorError';
  }
}

/** The canonical scores of a segment's rows from their stored blobs (`AllowedSet.readVectors`), each checked against the int8 copy. */
function storedScores(set: AllowedSet, seg: AllowedSegment, query: Float32Array): (rows: readonly number[]) => Float64Array {
  const { dims } = set;
  const q8 = seg.q8!;
  const vector = new Float32Array(dims);
  const bytes = new Uint8Array(vector.buffer);
  return (rows) => {
    const blobs = set.readVectors(rows.map((row) => seg.chunkIds[row]!));
    const out = new Float64Array(rows.length);
    rows.forEach((row, i) => {
      const blob = blobs.get(seg.chunkIds[row]!);
      if (!blob || blob.length !== dims * 4) throw new StaleVectorError(seg.chunkIds[row]!);
      bytes.set(blob);
      if (!quantizesTo(q8, row, vector)) throw new StaleVectorError(seg.chunkIds[row]!);
      out[i] = dotAt(vector, 0, query, dims);
    });
    return out;
  };
}

/** One message found by the scoped search: its best chunk's score and [start, end) range. */
export interface ScopedHit {
  messageId: number;
  sessionId: string;
  /** Cosine similarity of the message's best chunk (vectors are unit length). */
  score: number;
  start: number;
  end: number;
}

/** Options of the scoped search: how many messages, which roles, the kernel, and whether to use the int8 pass. */
export interface ExactSearchOptions {
  limit: number;
  roles?: readonly MessageRole[] | undefined;
  backend?: ScanBackend;
  /** false: skip the int8 first pass even when the set has one (same results; for comparisons). */
  int8?: boolean;
}

/** The segments a search scans (role filter), the caller's session index and their row total. */
function searchPlan(set: AllowedSet, scope: SemanticScope, options: ExactSearchOptions): { segments: AllowedSegment[]; callerIdx: number; total: number } {
  const roles = options.roles ? new Set(options.roles) : null;
  const segments = set.segments.filter((s) => !roles || roles.has(s.role));
  const callerIdx = scope.currentSessionId === null ? -1 : set.sessions.indexOf(scope.currentSessionId);
  return { segments, callerIdx, total: segments.reduce((n, s) => n + s.rows, 0) };
}

/** Rows of the caller's own live messages in a segment (never results). */
function callerRows(seg: AllowedSegment, callerIdx: number): Set<number> {
  const exclude = new Set<number>();
  if (callerIdx >= 0) for (let row = 0; row < seg.rows; row++) if (seg.sessionIdx[row] === callerIdx && seg.live[row] === 1) exclude.add(row);
  return exclude;
}

/**
 * The rank order of every exact search path, ties included: score descending, then message id
 * ascending, then chunk id ascending — the PostgreSQL SQL scan's `order by distance, message_id,
 * chunk id`. Negative when (a) ranks first.
 */
export function compareRanked(aScore: number, aMessage: number, aChunk: number, bScore: number, bMessage: number, bChunk: number): number {
  if (aScore !== bScore) return aScore > bScore ? -1 : 1;
  return aMessage - bMessage || aChunk - bChunk;
}

/**
 * Merges the per-segment top-k lists into the first `limit` distinct messages in the one total
 * order (`compareRanked`: score, message id, chunk id), whatever segment a row sits in — roles,
 * cached rows or a delta tail; `done` when they are certain or the set is exhausted. Exact because
 * each segment's rows are in (message id, chunk id) order (`orderSegment`) and a segment's top-k
 * breaks ties by lower row: its list is the segment's first k in the total order, so the first k
 * of the merged lists are the set's.
 */
function mergeHits(set: AllowedSet, segments: readonly AllowedSegment[], found: ReadonlyArray<readonly ScoredRow[]>, k: number, total: number, limit: number): { hits: ScopedHit[]; done: boolean } {
  const candidates: Array<{ seg: AllowedSegment; row: number; score: number; messageId: number; chunkId: number }> = [];
  found.forEach((list, si) => {
    const seg = segments[si]!;
    for (const hit of list) candidates.push({ seg, row: hit.row, score: hit.score, messageId: seg.messageIds[hit.row]!, chunkId: seg.chunkIds[hit.row]! });
  });
  candidates.sort((a, b) => compareRanked(a.score, a.messageId, a.chunkId, b.score, b.messageId, b.chunkId));
  const ranked = candidates.length > k ? candidates.slice(0, k) : candidates;
  const hits: ScopedHit[] = [];
  const seen = new Set<number>();
  for (const { seg, row, score, messageId } of ranked) {
    if (seen.has(messageId)) continue;
    seen.add(messageId);
    hits.push({ messageId, sessionId: set.sessions[seg.sessionIdx[row]!]!, score, start: seg.start[row]!, end: seg.end[row]! });
    if (hits.length === limit) break;
  }
  return { hits, done: hits.length >= limit || k >= total || ranked.length < k };
}

/** Best `limit` messages of the allowed set for a unit query vector, best first. */
export function searchAllowedSet(set: AllowedSet, scope: SemanticScope, query: Float32Array, options: ExactSearchOptions): ScopedHit[] {
  if (options.limit <= 0 || set.rows === 0) return [];
  const { segments, callerIdx, total } = searchPlan(set, scope, options);
  // Chunks, not messages, are ranked: ask for more rows until `limit` distinct messages are
  // certain (the limit-th distinct message precedes every row of an unseen message).
  let k = Math.min(total, options.limit * 2);
  for (;;) {
    const found = segments.map((seg) => {
      const exclude = callerRows(seg, callerIdx);
      const backend = options.backend ? { backend: options.backend } : {};
      return seg.matrix
        ? scanTopK(seg.matrix, query, { k, exclude, ...(seg.q8 && options.int8 !== false ? { int8: { matrix: seg.q8 } } : {}), ...backend })
        : scanQuantizedTopK(seg.q8!, query, { k, exclude, exact: storedScores(set, seg, query), ...backend });
    });
    const { hits, done } = mergeHits(set, segments, found, k, total, options.limit);
    if (done) return hits;
    k = Math.min(total, k * 2);
  }
}

/**
 * A candidate's stored row as an asynchronous rescore reads it again (the PostgreSQL adapter's read
 * re-checks the allowed-set conditions in SQL): its float32 vector (little-endian) and its anchors,
 * which must equal the cached ones. The ports' StoredChunkRow.
 */
export type StoredChunk = StoredChunkRow;

/** Reads the stored rows of chunks by id; a chunk no longer in the allowed set is absent. */
export type StoredChunkReader = (chunkIds: readonly number[]) => Promise<Map<number, StoredChunk>>;

/** Rows asked of an asynchronous reader per round trip at least (the scan stops as early either way). */
const ASYNC_MIN_BATCH = 32;

/**
 * `searchAllowedSet` over a set held only as its int8 copy (a MatrixCache entry), with the exact
 * rescore read through `read` (one round trip per batch of candidates). Every candidate must come
 * back with the same vector (it must quantise to its cached int8 row) and the same anchors (message,
 * session, range, live flag), else StaleVectorError: a stale or forged entry cannot produce a hit
 * the reader does not confirm. Same results as the synchronous search over the same rows.
 */
export async function searchAllowedSetAsync(set: AllowedSet, scope: SemanticScope, query: Float32Array, options: ExactSearchOptions, read: StoredChunkReader): Promise<ScopedHit[]> {
  if (options.limit <= 0 || set.rows === 0) return [];
  const { segments, callerIdx, total } = searchPlan(set, scope, options);
  if (segments.some((seg) => !seg.q8)) throw new RangeError('an asynchronous search needs int8 segments (a MatrixCache entry)');
  let k = Math.min(total, options.limit * 2);
  for (;;) {
    const found: ScoredRow[][] = [];
    for (const seg of segments) {
      const exclude = callerRows(seg, callerIdx);
      found.push(await scanQuantizedTopKAsync(seg.q8!, query, { k, exclude, minBatch: ASYNC_MIN_BATCH, exact: checkedScores(set, seg, query, read), ...(options.backend ? { backend: options.backend } : {}) }));
    }
    const { hits, done } = mergeHits(set, segments, found, k, total, options.limit);
    if (done) return hits;
    k = Math.min(total, k * 2);
  }
}

/** The canonical scores of a segment's rows from the reader's rows, each checked against the cached row and anchors. */
function checkedScores(set: AllowedSet, seg: AllowedSegment, query: Float32Array, read: StoredChunkReader): (rows: readonly number[]) => Promise<Float64Array> {
  const { dims } = set;
  const q8 = seg.q8!;
  const vector = new Float32Array(dims);
  const bytes = new Uint8Array(vector.buffer);
  return async (rows) => {
    const stored = await read(rows.map((row) => seg.chunkIds[row]!));
    const out = new Float64Array(rows.length);
    rows.forEach((row, i) => {
      const id = seg.chunkIds[row]!;
      const r = stored.get(id);
      if (!r || r.vector.length !== dims * 4) throw new StaleVectorError(id);
      if (r.messageId !== seg.messageIds[row] || r.sessionId !== set.sessions[seg.sessionIdx[row]!] || r.start !== seg.start[row] || r.end !== seg.end[row] || r.live !== (seg.live[row] === 1)) throw new StaleVectorError(id);
      bytes.set(r.vector);
      if (!quantizesTo(q8, row, vector)) throw new StaleVectorError(id);
      out[i] = dotAt(vector, 0, query, dims);
    });
    return out;
  };
}
