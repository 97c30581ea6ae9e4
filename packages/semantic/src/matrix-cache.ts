/**
 * A derived, in-memory copy of a project's allowed set per (database connection, project,
 * fingerprint), so a query scans RAM instead of re-reading every vector blob. It is only a cache:
 * every lookup re-reads the project's generation (`semantic_generation`, bumped by the index's
 * triggers on new ready vectors, edits, deletes, rewinds/visibility changes, moves in and out and
 * hiding) and rebuilds when it changed, so a stale matrix is never scanned. Entries are evicted
 * least-recently-used beyond a byte budget; an allowed set larger than the whole budget is used
 * for the one query and not kept. Own-history scopes (callers without a project) are small and are
 * never cached.
 */
import type { RecallDatabase } from '@recall/schema';
import { loadAllowedSet, projectGeneration, type AllowedSet } from './allowed-set.js';
import { quantizeMatrix } from './int8-scan.js';

/** Default budget: a 1M-chunk project at 384 dims is ~1.5 GiB; larger sets are scanned uncached. */
export const DEFAULT_MATRIX_CACHE_BYTES = 2 * 1024 ** 3;

interface Entry {
  key: string;
  db: RecallDatabase;
  generation: number;
  set: AllowedSet;
}

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
  private readonly dbIds = new WeakMap<RecallDatabase, number>();
  private nextDbId = 1;
  private bytes = 0;
  readonly stats: Omit<MatrixCacheStats, 'bytes' | 'entries'> = { builds: 0, hits: 0, evictions: 0 };

  constructor(options: { maxBytes?: number } = {}) {
    this.maxBytes = options.maxBytes ?? DEFAULT_MATRIX_CACHE_BYTES;
  }

  private dbId(db: RecallDatabase): number {
    let id = this.dbIds.get(db);
    if (id === undefined) {
      id = this.nextDbId++;
      this.dbIds.set(db, id);
    }
    return id;
  }

  /** The project's allowed set for this fingerprint, current as of this call. */
  get(db: RecallDatabase, projectId: string, fingerprintId: number, dims: number): AllowedSet {
    const key = `${this.dbId(db)}\u0000${projectId}\u0000${fingerprintId}\u0000${dims}`;
    // Read the generation BEFORE the rows: a bump between the two makes the next call rebuild,
    // never the other way round.
    const generation = projectGeneration(db, projectId);
    const cached = this.entries.get(key);
    if (cached && cached.generation === generation && cached.db === db) {
      this.entries.delete(key);
      this.entries.set(key, cached); // most recently used
      this.stats.hits++;
      return cached.set;
    }
    if (cached) this.drop(cached);
    const set = loadAllowedSet(db, { projectId }, fingerprintId, dims);
    // The int8 copy the certified first pass scans (vector-scan.ts / int8-scan.ts): 1 byte per
    // component next to the 4 of float32, which the rescore reads for the few candidates.
    // A set too large to keep is scanned once in float32 (quantising it would cost more than that).
    const int8Bytes = set.segments.reduce((n, seg) => n + seg.matrix.rows * dims + dims * 8, 0);
    if (set.bytes + int8Bytes <= this.maxBytes) {
      for (const seg of set.segments) seg.q8 = quantizeMatrix(seg.matrix.data, seg.matrix.rows, dims);
      set.bytes += int8Bytes;
    }
    this.stats.builds++;
    if (set.bytes <= this.maxBytes) {
      this.entries.set(key, { key, db, generation, set });
      this.bytes += set.bytes;
      for (const entry of this.entries.values()) {
        if (this.bytes <= this.maxBytes) break;
        if (entry.key === key) continue;
        this.drop(entry);
        this.stats.evictions++;
      }
    }
    return set;
  }

  /** Forget every entry of one connection (call when closing it). */
  forget(db: RecallDatabase): void {
    for (const entry of [...this.entries.values()]) if (entry.db === db) this.drop(entry);
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  snapshot(): MatrixCacheStats {
    return { ...this.stats, bytes: this.bytes, entries: this.entries.size };
  }

  private drop(entry: Entry): void {
    if (this.entries.delete(entry.key)) this.bytes -= entry.set.bytes;
  }
}
