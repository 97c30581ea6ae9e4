/**
 * The allowed set of a semantic query, selected in SQL before any similarity is computed: ready
 * chunks of the active fingerprint whose messages are visible (live or compacted) and whose
 * sessions are visible and belong to the caller's project — or, for a caller without a project,
 * to its own compression history (NULL is not a shared project). Vectors are joined to
 * `sessions.project_id` at read time, so a moved conversation is found from its new project with no
 * re-embedding. The result is a matrix per message role (each in its own buffer, so a role filter
 * scans whole segments and usearch never sees a view — see vector-scan.ts) with per-row anchors.
 * Role filters and the caller's own live messages are applied per query on these rows, by the scan.
 * This module holds the shapes; the SQLite adapter reads them (sqlite/allowed-set.ts), the
 * PostgreSQL adapter selects the same set inside ChunkStore.search.
 */
import type { MessageRole } from '@recall/rpc-contract';
import type { QuantizedMatrix } from './int8-scan.js';
import type { VectorMatrix } from './vector-scan.js';

/** The caller's resolved scope; structurally the same as search-tool's ToolScope. */
export type SemanticScope =
  | { kind: 'project'; projectId: string; currentSessionId: string | null }
  | { kind: 'own'; projectId: null; currentSessionId: string; sessionIds: readonly string[] };

/** The vectors of one role in an allowed set, with their message ids, ranges and live flags. */
export interface AllowedSegment {
  role: MessageRole;
  rows: number;
  /**
   * The float32 rows; null when the matrix cache keeps only the int8 copy and the rescore reads
   * its few candidates' rows from SQLite (`AllowedSet.readVector`).
   */
  matrix: VectorMatrix | null;
  /** The int8 copy for the certified first pass (set by the matrix cache; absent = float32 scan). */
  q8?: QuantizedMatrix;
  /** semantic_chunks.id of each row (the rescore's lookup key). */
  chunkIds: Float64Array;
  messageIds: Float64Array;
  /** Index into AllowedSet.sessions. */
  sessionIdx: Int32Array;
  start: Int32Array;
  end: Int32Array;
  /** 1 when the message is live (not compacted): the caller's own live rows are excluded. */
  live: Uint8Array;
}

/**
 * Everything a scope may be matched against for one fingerprint: per-role vector matrices of visible messages.
 */
export interface AllowedSet {
  fingerprintId: number;
  dims: number;
  sessions: string[];
  segments: AllowedSegment[];
  rows: number;
  bytes: number;
  /** Rows whose vector blob had the wrong length (never expected; counted, not scanned). */
  skipped: number;
  /** The stored float32 vectors (little-endian blobs) of chunks by id; a chunk that is gone is absent. */
  readVectors(chunkIds: readonly number[]): Map<number, Uint8Array>;
  /**
   * Async sources: the project's generation read again after the rows (AllowedSetRows). Equal to
   * the generation read before them: the rows are exactly the set at that generation, and the
   * cache may catch up from it by a delta (`AsyncAllowedSetSource.loadAdded`).
   */
  generationAfter?: number;
}

/** A date range of a query (epoch ms; since inclusive, until exclusive), applied in the allowed set's SQL. */
export interface AllowedDates {
  since?: number;
  until?: number;
}

/**
 * Where a matrix cache reads a project's allowed sets: one connection of one database (the SQLite
 * adapter gives one source per connection, so entries of two connections never mix).
 */
export interface AllowedSetSource {
  /**
   * The cache generation of a project: bumped whenever its allowed set may change (see the
   * semantic contract); 0 when the project never had a bump.
   */
  generation(projectId: string): number;
  /** The project's allowed set for one fingerprint, read in one snapshot. */
  load(projectId: string, fingerprintId: number, dims: number): AllowedSet;
}

/**
 * Where a matrix cache reads a project's allowed sets asynchronously (`MatrixCache.getAsync`): a
 * database read through the storage ports, e.g. the PostgreSQL adapter inside one search's scoped
 * transaction (a new source object per search is fine: entries are keyed by `identity`).
 */
export interface AsyncAllowedSetSource {
  /** The database the rows come from (the same object for every read of it): the cache's connection key. */
  readonly identity: object;
  /** The project's cache generation (as AllowedSetSource.generation), read from the database. */
  generation(projectId: string): Promise<number>;
  /** The project's allowed set for one fingerprint, read in one snapshot; null when it has more than `maxRows` rows. */
  load(projectId: string, fingerprintId: number, dims: number, maxRows: number): Promise<AllowedSet | null>;
  /**
   * Optional: the generation and the allowed set read in a read of their own (a new transaction,
   * not the caller's), for a rebuild in the background that may outlive the search that started it;
   * `signal` aborts it (the cache's close()). Null when the set cannot be cached now (e.g. the
   * fingerprint's plan changed). Without it every miss is loaded inline.
   */
  loadDetached?(projectId: string, fingerprintId: number, dims: number, maxRows: number, signal: AbortSignal): Promise<{ generation: number; set: AllowedSet | null } | null>;
  /**
   * Optional, with `loadAdded`: the generation since which every change to the project was an
   * addition `loadAdded` can read (read with the generation, e.g. the port's plan `additionsFrom`).
   */
  additionsFrom?(projectId: string): Promise<number | undefined>;
  /**
   * Optional: the rows added to the allowed set after generation `after` up to `upTo` (float32
   * segments, read through the allowed-set conditions, in a snapshot that re-checks that only
   * additions happened since `after`); null when that no longer holds or there are more than
   * `maxRows`. The cache then appends them to its entry instead of reloading the set.
   */
  loadAdded?(projectId: string, fingerprintId: number, dims: number, after: number, upTo: number, maxRows: number): Promise<AllowedSet | null>;
}

/**
 * Puts a float32 segment's rows in (message id, chunk id) order — the tie rule of every exact scan
 * (exact-search.ts `compareRanked`; a segment's top-k breaks ties by lower row) — so the ranking does
 * not depend on the order a source read its rows in. Adapters already read in that order: this is
 * one O(rows) check then, and a sort (with a copy of the segment) only when they did not. Call before
 * the int8 copy is made.
 */
export function orderSegment(seg: AllowedSegment): void {
  const { rows, messageIds, chunkIds } = seg;
  // The tie rule of the rank order: message id, then chunk id (negative when row x comes first).
  const byTieRule = (x: number, y: number): number => messageIds[x]! - messageIds[y]! || chunkIds[x]! - chunkIds[y]!;
  let ordered = true;
  for (let i = 1; i < rows && ordered; i++) ordered = byTieRule(i - 1, i) < 0;
  if (ordered) return;
  if (!seg.matrix || seg.q8) throw new RangeError('orderSegment needs a float32 segment without an int8 copy');
  const perm = Uint32Array.from({ length: rows }, (_, i) => i).sort(byTieRule);
  const gather = <A extends Float64Array | Int32Array | Uint8Array>(a: A): A => {
    const out = a.slice(0, rows) as A;
    for (let k = 0; k < rows; k++) out[k] = a[perm[k]!]!;
    return out;
  };
  const { dims, data } = seg.matrix;
  const sorted = new Float32Array(rows * dims);
  for (let k = 0; k < rows; k++) sorted.set(data.subarray(perm[k]! * dims, (perm[k]! + 1) * dims), k * dims);
  seg.matrix = { dims, rows, data: sorted };
  seg.chunkIds = gather(chunkIds);
  seg.messageIds = gather(messageIds);
  seg.sessionIdx = gather(seg.sessionIdx);
  seg.start = gather(seg.start);
  seg.end = gather(seg.end);
  seg.live = gather(seg.live);
}
