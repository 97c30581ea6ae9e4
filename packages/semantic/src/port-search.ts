/**
 * The vector scan of the port-based semantic source (storage-source.ts) for adapters that offer
 * `ChunkStore.projectVectors` (PostgreSQL): a project's allowed set is kept in the process's
 * MatrixCache as its int8 copy and scanned there by the certified int8 pass (int8-scan.ts); the few
 * candidates are rescored exactly from their stored float32 vectors, read back through the adapter.
 * Everything runs inside ONE scoped read transaction of the project (the adapter's
 * `withProject`): the generation is read first, from the database, so a write made through another
 * gateway process is seen by the next search; the rows are (re)loaded only when it changed.
 *
 * Defence in depth: the rescore read re-checks every allowed-set condition in the adapter's query,
 * and every candidate must come back with the cached vector and anchors (exact-search.ts
 * `searchAllowedSetAsync`), so a stale or wrong entry can never return a chunk the search may not
 * return: it raises StaleVectorError, the entry is dropped and rebuilt once, and a second failure
 * falls back to the adapter's own exact scan (`ChunkStore.search`).
 *
 * Not cached (the adapter's `search` runs as before): own-history scopes, dated queries (the range is
 * part of the allowed set's SQL), projects whose HNSW gate is open, and sets over the cache budget.
 * A miss (cold, or the generation changed) of a set larger than the cache's `inlineRows` is answered
 * by the adapter's `search` too, while the entry is rebuilt in the background in a transaction of
 * its own (MatrixCache.getAsync): no search waits for a load after a write. When only additions
 * happened since the entry's generation (the adapter's `loadAdded`, PostgreSQL migration 0014), the
 * search instead loads just the added rows inside its read and is served from the caught-up entry.
 */
import type { AllowedSetRows, ChunkHit, ChunkScope, ChunkSearchOptions, ChunkStore, ProjectVectorReads, ProjectVectorSource } from '@recall/storage-ports';
import { orderSegment, type AllowedSegment, type AllowedSet, type SemanticScope } from './allowed-set.js';
import { searchAllowedSetAsync, StaleVectorError, type ExactSearchOptions } from './exact-search.js';
import type { MatrixCache } from './matrix-cache.js';

/** The rows of a port's allowed set as a cacheable AllowedSet (float32 rows; the cache quantises them). */
function toAllowedSet(rows: AllowedSetRows, fingerprintId: number, dims: number): AllowedSet {
  const segments: AllowedSegment[] = rows.segments.map((r) => ({
    role: r.role,
    rows: r.rows,
    matrix: { dims, rows: r.rows, data: r.vectors },
    chunkIds: r.chunkIds,
    messageIds: r.messageIds,
    sessionIdx: r.sessionIdx,
    start: r.start,
    end: r.end,
    live: r.live,
  }));
  // The ports promise (message id, chunk id) order per role (the exact search's tie order); checked here in one pass.
  for (const seg of segments) orderSegment(seg);
  const total = segments.reduce((n, s) => n + s.rows, 0);
  return {
    fingerprintId,
    dims,
    sessions: rows.sessions,
    segments,
    rows: total,
    bytes: segments.reduce((n, s) => n + s.matrix!.data.byteLength + s.rows * 29, 0),
    skipped: rows.skipped,
    ...(rows.generationAfter !== undefined ? { generationAfter: rows.generationAfter } : {}),
    readVectors: () => {
      throw new Error('a cached port set is rescored through its adapter (searchAllowedSetAsync)');
    },
  };
}

/** One attempt inside the project's scoped read: null = not served from the cache (HNSW gate open, over the budget). */
async function attempt(reads: ProjectVectorReads, source: ProjectVectorSource, cache: MatrixCache, scope: Extract<ChunkScope, { kind: 'project' }>, fingerprintId: number, query: Float32Array, options: ExactSearchOptions): Promise<ChunkHit[] | null> {
  const plan = await reads.plan(fingerprintId);
  if (!plan) return [];
  if (plan.hnsw || plan.dims !== query.length) return null;
  const set = await cache.getAsync(
    {
      identity: source.identity,
      generation: async () => plan.generation,
      load: async (_projectId, fp, dims, maxRows) => {
        const rows = await reads.load(fp, dims, maxRows);
        return rows ? toAllowedSet(rows, fp, dims) : null;
      },
      // Catching up with additions inside this read (MatrixCache.getAsync): a few rows, not a rebuild.
      ...(reads.loadAdded && plan.additionsFrom !== undefined
        ? {
            additionsFrom: async () => plan.additionsFrom,
            loadAdded: async (_projectId: string, fp: number, dims: number, after: number, upTo: number, maxRows: number) => {
              const rows = await reads.loadAdded!(fp, dims, after, upTo, maxRows);
              return rows ? toAllowedSet(rows, fp, dims) : null;
            },
          }
        : {}),
      // A rebuild in a transaction of its own, so the search need not wait for it (MatrixCache.getAsync).
      ...(source.detached
        ? {
            loadDetached: (projectId: string, fp: number, dims: number, maxRows: number, signal: AbortSignal) =>
              source.withProject(projectId, async (own) => {
                const p = await own.plan(fp);
                if (!p || p.hnsw || p.dims !== dims) return null;
                const rows = await own.load(fp, dims, maxRows, signal);
                return { generation: p.generation, set: rows ? toAllowedSet(rows, fp, dims) : null };
              }),
          }
        : {}),
    },
    scope.projectId,
    fingerprintId,
    plan.dims,
  );
  if (!set) return null;
  const semanticScope: SemanticScope = { kind: 'project', projectId: scope.projectId, currentSessionId: scope.currentSessionId };
  const filter = { ...(options.roles ? { roles: options.roles } : {}), currentSessionId: scope.currentSessionId };
  return searchAllowedSetAsync(set, semanticScope, query, options, (ids) => reads.read(fingerprintId, ids, filter));
}

/** What cachedChunkSearch did, accumulated over calls (tests and the bench read it). */
export interface CachedSearchCounters {
  /** Searches answered from the cache. */
  cached: number;
  /** Searches answered by `ChunkStore.search` (not applicable, HNSW, over the budget, a miss whose rebuild runs in the background, or stale twice). */
  adapter: number;
  /** Entries found stale by the rescore read (dropped and rebuilt; never expected). */
  stale: number;
}

/**
 * ChunkStore.search through the matrix cache where it applies (a project scope, no date range, an
 * adapter with `projectVectors`, the HNSW gate closed, the set within the budget), else
 * `chunks.search` itself. Same hits as the adapter's exact scan (scores as float64 dot products).
 */
export async function cachedChunkSearch(
  chunks: ChunkStore,
  cache: MatrixCache | null,
  scope: ChunkScope,
  fingerprintId: number,
  query: Float32Array,
  options: ChunkSearchOptions,
  counters?: CachedSearchCounters,
): Promise<ChunkHit[]> {
  const source: ProjectVectorSource | undefined = chunks.projectVectors;
  const dated = options.since !== undefined || options.until !== undefined;
  const limit = Math.max(0, Math.floor(options.limit));
  const viaAdapter = (): Promise<ChunkHit[]> => {
    if (counters) counters.adapter++;
    return chunks.search(scope, fingerprintId, query, options);
  };
  if (!cache || !source || scope.kind !== 'project' || dated || limit === 0) return viaAdapter();
  const exact: ExactSearchOptions = { limit, ...(options.roles && options.roles.length > 0 ? { roles: options.roles } : {}) };
  for (let tries = 0; tries < 2; tries++) {
    try {
      const hits = await source.withProject(scope.projectId, (reads) => attempt(reads, source, cache, scope, fingerprintId, query, exact));
      if (hits) {
        if (counters) counters.cached++;
        return hits;
      }
      break;
    } catch (error) {
      if (!(error instanceof StaleVectorError)) throw error;
      if (counters) counters.stale++;
      // Never expected (the generation triggers cover every change): drop the entry, rebuild once.
      cache.discard(source.identity, scope.projectId, fingerprintId, query.length);
    }
  }
  return viaAdapter();
}
