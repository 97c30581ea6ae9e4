/**
 * A derived, in-memory copy of a project's allowed set per (database connection, project,
 * fingerprint), so a query scans RAM instead of re-reading every vector blob. What it keeps is the
 * int8 copy the certified first pass scans (int8-scan.ts) and the per-row anchors; the exact rescore
 * reads its few candidates' float32 rows from SQLite by chunk id (or, with `rescoreFrom: 'memory'`,
 * from float32 rows kept alongside — four times the memory). It is only a cache:
 * every lookup re-reads the project's generation (`semantic_generation`, bumped by the index's
 * triggers on new ready vectors, edits, deletes, rewinds/visibility changes, moves in and out and
 * hiding) and rebuilds when it changed, so a stale matrix is never scanned. Entries are evicted
 * least-recently-used beyond a byte budget; an allowed set larger than the whole budget is used
 * for the one query and not kept. Own-history scopes (callers without a project) are small and are
 * never cached. The rows come from an `AllowedSetSource` (the SQLite adapter's per connection,
 * sqlite/allowed-set.ts `sqliteAllowedSets`), which is also the cache's connection key.
 *
 * `getAsync` is the same cache over an `AsyncAllowedSetSource` (a database read through the storage
 * ports, e.g. PostgreSQL: the generation and the rows are read inside the search's scoped
 * transaction, so a write through another gateway process is seen by the next search). Its entries
 * keep only the int8 copy; the search rescores its candidates through the adapter
 * (exact-search.ts `searchAllowedSetAsync`). A set over the budget is not loaded at all: getAsync
 * answers null and the caller runs the adapter's own exact scan (that answer is remembered until
 * the generation changes).
 */
import type { AllowedSet, AllowedSetSource, AsyncAllowedSetSource } from './allowed-set.js';
import { quantizeMatrix } from './int8-scan.js';

/**
 * Default budget. A 1M-chunk project at 384 dims holds ~0.39 GiB with the default `rescoreFrom:
 * 'sqlite'` (int8 rows + per-row anchors), ~1.8 GiB with `'memory'`; larger sets are scanned uncached.
 */
export const DEFAULT_MATRIX_CACHE_BYTES = 2 * 1024 ** 3;

interface Entry {
  key: string;
  /** The source (sync) or the async source's identity: the connection the entry belongs to. */
  source: object;
  generation: number;
  /** null: the set was over the budget at this generation (getAsync). */
  set: AllowedSet | null;
}

/** Bytes of anchors per cached row (chunk id, message id: 8 each; session index, start, end: 4 each; live: 1). */
const ANCHOR_BYTES = 29;

/** Counters of a `MatrixCache`: builds, hits, evictions, bytes held and entries. */
export interface MatrixCacheStats {
  builds: number;
  hits: number;
  evictions: number;
  bytes: number;
  entries: number;
}

/**
 * The in-memory copy of projects' vectors that semantic queries scan (see the module header). Share one
 * per process between the search sources of a profile; `maxBytes` defaults to 2 GiB. Never stale: every
 * lookup checks the project's generation and rebuilds when it changed.
 */
export class MatrixCache {
  private readonly maxBytes: number;
  /** Insertion order = least recently used first. */
  private readonly entries = new Map<string, Entry>();
  private readonly sourceIds = new WeakMap<object, number>();
  private nextSourceId = 1;
  private bytes = 0;
  /** getAsync loads under way, by key: concurrent searches of a cold project share one load. */
  private readonly loading = new Map<string, { generation: number; owner: object; done: Promise<AllowedSet | null> }>();
  readonly stats: Omit<MatrixCacheStats, 'bytes' | 'entries'> = { builds: 0, hits: 0, evictions: 0 };

  private readonly rescoreFrom: 'sqlite' | 'memory';
  private readonly int8: boolean;

  /**
   * `maxBytes`: the budget (default 2 GiB). `rescoreFrom`: where the exact rescore of the int8
   * pass's candidates reads float32 rows — `sqlite` (default: only the int8 copy is held, about a
   * quarter of the memory) or `memory` (the float32 rows are kept too). `int8: false` keeps float32
   * only and scans it without the int8 pass (the previous behaviour; benches compare against it).
   */
  constructor(options: { maxBytes?: number; rescoreFrom?: 'sqlite' | 'memory'; int8?: boolean } = {}) {
    this.maxBytes = options.maxBytes ?? DEFAULT_MATRIX_CACHE_BYTES;
    this.rescoreFrom = options.rescoreFrom ?? 'sqlite';
    this.int8 = options.int8 ?? true;
  }

  private key(source: object, projectId: string, fingerprintId: number, dims: number): string {
    return `${this.sourceId(source)}\u0000${projectId}\u0000${fingerprintId}\u0000${dims}`;
  }

  /** Drop one entry (the next lookup rebuilds it); `source` is the sync source or the async source's identity. */
  discard(source: object, projectId: string, fingerprintId: number, dims: number): void {
    const entry = this.entries.get(this.key(source, projectId, fingerprintId, dims));
    if (entry) this.drop(entry);
  }

  private sourceId(source: object): number {
    let id = this.sourceIds.get(source);
    if (id === undefined) {
      id = this.nextSourceId++;
      this.sourceIds.set(source, id);
    }
    return id;
  }

  /** The project's allowed set for this fingerprint, current as of this call. */
  get(source: AllowedSetSource, projectId: string, fingerprintId: number, dims: number): AllowedSet {
    const key = this.key(source, projectId, fingerprintId, dims);
    // Read the generation BEFORE the rows: a bump between the two makes the next call rebuild,
    // never the other way round.
    const generation = source.generation(projectId);
    const cached = this.entries.get(key);
    if (cached && cached.generation === generation && cached.source === source && cached.set) {
      this.touch(cached);
      return cached.set;
    }
    if (cached) this.drop(cached);
    const set = source.load(projectId, fingerprintId, dims);
    // Kept: the int8 copy the certified first pass scans (int8-scan.ts), plus the float32 rows with
    // rescoreFrom 'memory'. A set too large to keep is scanned once in float32 as read (quantising
    // it would cost more than that one scan).
    const float32Bytes = set.segments.reduce((n, seg) => n + seg.rows * dims * 4, 0);
    const keptBytes = set.bytes + set.segments.reduce((n, seg) => n + seg.rows * dims + dims * 8, 0) - (this.rescoreFrom === 'sqlite' ? float32Bytes : 0);
    if (this.int8 && keptBytes <= this.maxBytes) {
      for (const seg of set.segments) {
        seg.q8 = quantizeMatrix(seg.matrix!.data, seg.rows, dims);
        if (this.rescoreFrom === 'sqlite') seg.matrix = null;
      }
      set.bytes = keptBytes;
    }
    this.stats.builds++;
    if (set.bytes <= this.maxBytes) this.keep({ key, source, generation, set });
    return set;
  }

  /**
   * The project's allowed set for this fingerprint from an asynchronous source, current as of this
   * call (the generation is read first, then the rows when it changed), held as its int8 copy only
   * (no float32 rows: the search rescores through the adapter). Null when the set is over the
   * budget: the caller scans it another way (remembered until the generation changes).
   * Concurrent calls for the same entry and generation share one load.
   */
  async getAsync(source: AsyncAllowedSetSource, projectId: string, fingerprintId: number, dims: number): Promise<AllowedSet | null> {
    const owner = source.identity;
    const key = this.key(owner, projectId, fingerprintId, dims);
    const generation = await source.generation(projectId);
    const cached = this.entries.get(key);
    if (cached && cached.generation === generation && cached.source === owner) {
      this.touch(cached);
      return cached.set;
    }
    if (cached) this.drop(cached);
    const pending = this.loading.get(key);
    if (pending && pending.generation === generation && pending.owner === owner) return pending.done;
    const done = this.build(source, key, projectId, fingerprintId, dims, generation);
    this.loading.set(key, { generation, owner, done });
    try {
      return await done;
    } finally {
      if (this.loading.get(key)?.done === done) this.loading.delete(key);
    }
  }

  private async build(source: AsyncAllowedSetSource, key: string, projectId: string, fingerprintId: number, dims: number, generation: number): Promise<AllowedSet | null> {
    const owner = source.identity;
    const maxRows = Math.floor(this.maxBytes / (dims + ANCHOR_BYTES));
    const set = await source.load(projectId, fingerprintId, dims, maxRows);
    this.stats.builds++;
    if (!set) {
      this.keep({ key, source: owner, generation, set: null });
      return null;
    }
    let bytes = 0;
    for (const seg of set.segments) {
      if (seg.matrix) seg.q8 = quantizeMatrix(seg.matrix.data, seg.rows, dims);
      seg.matrix = null;
      bytes += seg.rows * (dims + ANCHOR_BYTES) + dims * 8;
    }
    set.bytes = bytes;
    if (bytes > this.maxBytes) {
      this.keep({ key, source: owner, generation, set: null });
      return null;
    }
    this.keep({ key, source: owner, generation, set });
    return set;
  }

  private touch(entry: Entry): void {
    this.entries.delete(entry.key);
    this.entries.set(entry.key, entry); // most recently used
    this.stats.hits++;
  }

  /** Keeps an entry and evicts least-recently-used others beyond the budget. */
  private keep(entry: Entry): void {
    const previous = this.entries.get(entry.key); // a concurrent getAsync may have kept one meanwhile
    if (previous) this.drop(previous);
    this.entries.set(entry.key, entry);
    this.bytes += entry.set?.bytes ?? 0;
    for (const other of this.entries.values()) {
      if (this.bytes <= this.maxBytes) break;
      if (other.key === entry.key) continue;
      this.drop(other);
      this.stats.evictions++;
    }
  }

  /** Forget every entry of one source (one connection, or an async source's identity; call when closing it). */
  forget(source: object): void {
    for (const entry of [...this.entries.values()]) if (entry.source === source) this.drop(entry);
  }

  /** Drop every entry. */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  /** The counters, bytes held and entries now. */
  snapshot(): MatrixCacheStats {
    return { ...this.stats, bytes: this.bytes, entries: this.entries.size };
  }

  private drop(entry: Entry): void {
    if (this.entries.delete(entry.key)) this.bytes -= entry.set?.bytes ?? 0;
  }
}
