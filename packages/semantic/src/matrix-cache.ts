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
 * the generation changes). A miss never waits for a large load: with the source's `loadDetached`
 * the entry is rebuilt in the background (its own transaction) while the caller's SQL scan answers;
 * only sets of at most `inlineRows` rows (default none) are loaded inline. `close()` aborts background loads.
 *
 * Catching up by a delta (getAsync, sources with `loadAdded`, e.g. PostgreSQL since migration 0014):
 * when the generation changed but only additions happened since the entry's (`additionsFrom` ≤ the
 * entry's generation) and the entry's rows are known to be exactly the set at its generation (the
 * source read the generation again after the rows: `generationAfter`), the search loads just the
 * rows added since, inline (a few rows: about a millisecond), appends them to the entry's tails
 * (matrix-delta.ts: small float32 + int8 segments next to the cached matrix) and is served from the
 * cache. Anything else — another change, a tail past its limit (`tailLimit`), a source without
 * `loadAdded` — takes the miss path above (the SQL scan answers, a full rebuild in the background).
 */
import type { MessageRole } from '@recall/rpc-contract';
import type { AllowedSet, AllowedSetSource, AsyncAllowedSetSource } from './allowed-set.js';
import { quantizeMatrix } from './int8-scan.js';
import { tailLimit, withAdded } from './matrix-delta.js';

/**
 * Default budget. A 1M-chunk project at 384 dims holds ~0.39 GiB with the default `rescoreFrom:
 * 'sqlite'` (int8 rows + per-row anchors), ~1.8 GiB with `'memory'`; larger sets are scanned uncached.
 */
export const DEFAULT_MATRIX_CACHE_BYTES = 2 * 1024 ** 3;

/**
 * getAsync: allowed sets of at most this many rows are (re)loaded inline, larger ones in the
 * background while the caller's SQL scan answers. Default 0 (every miss of a source with
 * `loadDetached` goes to the background), from measurement (docs/benchmarks.md, "a search right
 * after a write"): on PostgreSQL at 384 dims a load of 2,000 rows took 0.14–0.16 s against 6–10 ms
 * for the SQL exact scan of the same set, 100,000 rows 2.7–4.1 s against 150–180 ms — a load is
 * never cheaper than the scan it would replace, and the bounded inline attempt's count alone
 * costs more than the scan at 100k. Tests set it high to load inline deterministically.
 */
export const DEFAULT_INLINE_ROWS = 0;

interface Entry {
  key: string;
  /** The source (sync) or the async source's identity: the connection the entry belongs to. */
  source: object;
  generation: number;
  /** null: the set was over the budget at this generation (getAsync). */
  set: AllowedSet | null;
  /** When it was kept (the cache's tick; getAsync: a background load never replaces a newer entry). */
  tick?: number;
  /** getAsync: the rows are exactly the set at `generation` (a delta may start from it). */
  exact?: boolean;
  /** getAsync: segments [0, mainSegments) as loaded; the rest are tails of added rows (matrix-delta.ts). */
  mainSegments?: number;
  /** getAsync: the tails' float32 rows per role. */
  tails?: ReadonlyMap<MessageRole, Float32Array>;
}

/** Bytes of anchors per cached row (chunk id, message id: 8 each; session index, start, end: 4 each; live: 1). */
const ANCHOR_BYTES = 29;

/** Counters of a `MatrixCache`: builds, hits, evictions, bytes held and entries; getAsync's misses not waited for and background rebuilds. */
export interface MatrixCacheStats {
  builds: number;
  hits: number;
  evictions: number;
  /** getAsync misses answered null without waiting for a load (a background rebuild started or under way). */
  deferred: number;
  /** Background rebuilds started (getAsync with `loadDetached`). */
  backgroundLoads: number;
  /** Background rebuilds that finished already stale (dropped). */
  staleLoads: number;
  /** Background rebuilds that failed (or were aborted by close()); the searches went on through the caller's scan. */
  loadErrors: number;
  /** getAsync: entries caught up by a delta (the rows added since their generation appended to their tails). */
  deltas: number;
  /** getAsync: rows appended by those deltas. */
  deltaRows: number;
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
  private readonly loading = new Map<string, { generation: number; owner: object; maxRows: number; done: Promise<AllowedSet | null | undefined> }>();
  /** getAsync background rebuilds under way, by key (at most one each). */
  private readonly background = new Map<string, Promise<void>>();
  /** Per key: the rows of its last load (undefined: never loaded) and the last generation a lookup read, with its tick. */
  private readonly hints = new Map<string, { rows: number | undefined; generation: number; tick: number }>();
  private tick = 0;
  private closed = false;
  private readonly abort = new AbortController();
  /** getAsync deltas under way, by key: concurrent searches of one entry and generation share one. */
  private readonly catching = new Map<string, { from: Entry; generation: number; done: Promise<AllowedSet | null> }>();
  readonly stats: Omit<MatrixCacheStats, 'bytes' | 'entries'> = { builds: 0, hits: 0, evictions: 0, deferred: 0, backgroundLoads: 0, staleLoads: 0, loadErrors: 0, deltas: 0, deltaRows: 0 };

  private readonly rescoreFrom: 'sqlite' | 'memory';
  private readonly int8: boolean;
  private readonly inlineRows: number;
  private readonly delta: boolean;
  private readonly maxTailRows: number | undefined;

  /**
   * `maxBytes`: the budget (default 2 GiB). `rescoreFrom`: where the exact rescore of the int8
   * pass's candidates reads float32 rows — `sqlite` (default: only the int8 copy is held, about a
   * quarter of the memory) or `memory` (the float32 rows are kept too). `int8: false` keeps float32
   * only and scans it without the int8 pass (the previous behaviour; benches compare against it).
   * `inlineRows`: getAsync loads sets up to this size inline (default DEFAULT_INLINE_ROWS), larger
   * ones in the background when the source offers `loadDetached`. `delta: false` never catches up
   * by a delta (every change is a miss; the behaviour before, for comparisons); `maxTailRows`
   * caps the rows an entry's tails may hold (default matrix-delta.ts `tailLimit`; tests set it low).
   */
  constructor(options: { maxBytes?: number; rescoreFrom?: 'sqlite' | 'memory'; int8?: boolean; inlineRows?: number; delta?: boolean; maxTailRows?: number } = {}) {
    this.delta = options.delta ?? true;
    this.maxTailRows = options.maxTailRows;
    this.maxBytes = options.maxBytes ?? DEFAULT_MATRIX_CACHE_BYTES;
    this.inlineRows = Math.max(0, options.inlineRows ?? DEFAULT_INLINE_ROWS);
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
   * call (the generation is read first), held as its int8 copy only (no float32 rows: the search
   * rescores through the adapter). Null = not served from the cache this time; the caller scans
   * another way (the adapter's SQL exact scan, same results):
   * - over the budget (remembered until the generation changes);
   * - a miss (no entry, or the generation changed) on a source with `loadDetached`, when the set is
   *   not known to be small: the search never waits for the load — a rebuild starts in the
   *   background (at most one per entry at a time; errors only count in the stats; a load that
   *   finishes after a search saw another generation is dropped) and a later search hits it.
   * Sets of at most `inlineRows` rows (default 0; known from the previous load, or counted by a
   * bounded inline load) and sources without `loadDetached` are loaded inline; concurrent inline calls for the
   * same entry and generation share one load.
   */
  async getAsync(source: AsyncAllowedSetSource, projectId: string, fingerprintId: number, dims: number): Promise<AllowedSet | null> {
    const owner = source.identity;
    const key = this.key(owner, projectId, fingerprintId, dims);
    const generation = await source.generation(projectId);
    const hint = this.hints.get(key) ?? { rows: undefined, generation, tick: 0 };
    hint.generation = generation;
    hint.tick = ++this.tick;
    this.hints.set(key, hint);
    const cached = this.entries.get(key);
    if (cached && cached.generation === generation && cached.source === owner) {
      this.touch(cached);
      return cached.set;
    }
    if (cached?.set && cached.exact && cached.source === owner && this.delta && source.loadAdded && source.additionsFrom && generation > cached.generation) {
      const from = await source.additionsFrom(projectId);
      if (from !== undefined && from <= cached.generation) {
        const set = await this.catchUp(source, cached, projectId, fingerprintId, dims, generation);
        if (set) return set;
      }
    }
    if (cached && this.entries.get(key) === cached) this.drop(cached);
    const budgetRows = Math.floor(this.maxBytes / (dims + ANCHOR_BYTES));
    const detached = source.loadDetached;
    if (!detached) return (await this.inline(source, key, projectId, fingerprintId, dims, generation, budgetRows, budgetRows)) ?? null;
    if (this.closed || this.background.has(key)) {
      this.stats.deferred++;
      return null;
    }
    const inlineRows = Math.min(this.inlineRows, budgetRows);
    if (inlineRows > 0 && (hint.rows === undefined || hint.rows <= inlineRows)) {
      const set = await this.inline(source, key, projectId, fingerprintId, dims, generation, inlineRows, budgetRows);
      if (set !== undefined) return set;
    }
    this.startBackground(source, key, projectId, fingerprintId, dims, budgetRows);
    this.stats.deferred++;
    return null;
  }

  /**
   * `entry` caught up with the rows added up to `generation` (a new entry, kept unless another one
   * replaced `entry` meanwhile); null when the source answers null (not only additions, or more
   * rows than the tails may take) or the result would be over the budget. Shared by concurrent calls.
   */
  private async catchUp(source: AsyncAllowedSetSource, entry: Entry, projectId: string, fingerprintId: number, dims: number, generation: number): Promise<AllowedSet | null> {
    const { key } = entry;
    const pending = this.catching.get(key);
    if (pending && pending.from === entry && pending.generation === generation) return pending.done;
    const done = (async () => {
      const set = entry.set!;
      const mainSegments = entry.mainSegments ?? set.segments.length;
      const tailRows = set.segments.slice(mainSegments).reduce((n, s) => n + s.rows, 0);
      const room = (this.maxTailRows ?? tailLimit(set.rows - tailRows)) - tailRows;
      if (room <= 0) return null;
      const added = await source.loadAdded!(projectId, fingerprintId, dims, entry.generation, generation, room);
      if (!added || added.dims !== dims) return null;
      const next = withAdded(set, mainSegments, entry.tails ?? new Map(), added);
      if (next.set.bytes > this.maxBytes) return null;
      this.stats.deltas++;
      this.stats.deltaRows += added.rows;
      const current = this.entries.get(key);
      if (!current || current === entry) {
        this.keep({ key, source: entry.source, generation, set: next.set, tick: ++this.tick, exact: true, mainSegments, tails: next.tails });
        this.hint(key).rows = next.set.rows;
      }
      return next.set;
    })();
    this.catching.set(key, { from: entry, generation, done });
    try {
      return await done;
    } finally {
      if (this.catching.get(key)?.done === done) this.catching.delete(key);
    }
  }

  /** An inline load (shared by concurrent calls); undefined when the set has more than `maxRows` < `budgetRows` rows (not kept). */
  private async inline(source: AsyncAllowedSetSource, key: string, projectId: string, fingerprintId: number, dims: number, generation: number, maxRows: number, budgetRows: number): Promise<AllowedSet | null | undefined> {
    const owner = source.identity;
    const pending = this.loading.get(key);
    if (pending && pending.generation === generation && pending.owner === owner && pending.maxRows === maxRows) return pending.done;
    const done = (async () => {
      const tick = ++this.tick;
      const set = await source.load(projectId, fingerprintId, dims, maxRows);
      this.stats.builds++;
      if (!set && maxRows < budgetRows) {
        this.hint(key).rows = maxRows + 1; // larger than an inline load: the next misses go to the background
        return undefined;
      }
      return this.settle(owner, key, dims, generation, set, tick);
    })();
    this.loading.set(key, { generation, owner, maxRows, done });
    try {
      return await done;
    } finally {
      if (this.loading.get(key)?.done === done) this.loading.delete(key);
    }
  }

  /** A rebuild in the background, at most one per entry; never rejects (errors are counted). */
  private startBackground(source: AsyncAllowedSetSource, key: string, projectId: string, fingerprintId: number, dims: number, budgetRows: number): void {
    const load = source.loadDetached;
    if (!load || this.closed || this.background.has(key)) return;
    const owner = source.identity;
    const started = ++this.tick;
    this.stats.backgroundLoads++;
    const run = (async () => {
      const got = await load(projectId, fingerprintId, dims, budgetRows, this.abort.signal);
      this.stats.builds++;
      if (!got || this.closed) return;
      const seen = this.hints.get(key);
      if (seen && seen.tick > started && seen.generation !== got.generation) {
        this.stats.staleLoads++; // already stale when it finished: a later miss loads again
        return;
      }
      const current = this.entries.get(key);
      if (current && (current.tick ?? 0) > started) return; // an inline load kept a newer entry meanwhile
      this.settle(owner, key, dims, got.generation, got.set, started);
    })().then(
      () => undefined,
      () => {
        this.stats.loadErrors++;
      },
    );
    this.background.set(key, run);
    void run.finally(() => {
      if (this.background.get(key) === run) this.background.delete(key);
    });
  }

  /** Quantises a loaded set and keeps it (or remembers "over the budget" as a null entry). */
  private settle(owner: object, key: string, dims: number, generation: number, set: AllowedSet | null, tick: number): AllowedSet | null {
    if (!set) {
      this.hint(key).rows = Number.POSITIVE_INFINITY;
      this.keep({ key, source: owner, generation, set: null, tick });
      return null;
    }
    let bytes = 0;
    for (const seg of set.segments) {
      if (seg.matrix) seg.q8 = quantizeMatrix(seg.matrix.data, seg.rows, dims);
      seg.matrix = null;
      bytes += seg.rows * (dims + ANCHOR_BYTES) + dims * 8;
    }
    set.bytes = bytes;
    this.hint(key).rows = set.rows;
    if (bytes > this.maxBytes) {
      this.keep({ key, source: owner, generation, set: null, tick });
      return null;
    }
    // Exactly the set at `generation` only when the source read the same generation after the rows.
    this.keep({ key, source: owner, generation, set, tick, exact: set.generationAfter === generation, mainSegments: set.segments.length });
    return set;
  }

  private hint(key: string): { rows: number | undefined; generation: number; tick: number } {
    let hint = this.hints.get(key);
    if (!hint) this.hints.set(key, (hint = { rows: undefined, generation: -1, tick: 0 }));
    return hint;
  }

  /** Resolves when the background rebuilds under way now have finished (or failed). */
  async settled(): Promise<void> {
    await Promise.all([...this.background.values()]);
  }

  /**
   * Stops background rebuilds (aborted at their next read) and starts no more; resolves once they
   * have ended, so the database can be closed. Entries already kept are still served.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.abort.abort();
    await this.settled();
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
    const prefix = `${this.sourceId(source)}\u0000`;
    for (const key of [...this.hints.keys()]) if (key.startsWith(prefix)) this.hints.delete(key);
  }

  /** Drop every entry. */
  clear(): void {
    this.entries.clear();
    this.hints.clear();
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
