/**
 * The semantic source of `session_search` over the storage ports: for a Storage that carries the
 * semantic rows (`storage.semantic`, e.g. PostgreSQL's pgvector chunks), so hybrid search works on
 * any adapter. The query path is the SQLite source's own (scoped-source.ts `embedQuery`: provider
 * checks, the deadline, L2 normalisation; `aboveFloor`: the model's similarity floor; the same
 * fusion hints); only the scan differs — ChunkStore.search ranks the allowed set exactly in the
 * adapter, or, for a project scope on an adapter with `ChunkStore.projectVectors` (PostgreSQL), the
 * matrix cache holds the project's allowed set in memory and the certified int8 scan ranks it
 * (port-search.ts: same hits; the generation and the rescore are read from the database per search). Status comes from the ports: the project's consent (for the configured endpoint) and the
 * fingerprint's chunk rows by status; coverage is counted in chunk rows (ready of all planned),
 * `unknown` before any row is planned. The SQLite path keeps `createConfiguredSemanticSource()`
 * (the certified int8 scan over the profile file and its matrix cache).
 */
import type { MessageRole } from '@recall/rpc-contract';
import type { SemanticStorage, Storage } from '@recall/storage-ports';
import type { SemanticScope } from './allowed-set.js';
import type { SemanticConfig } from './config.js';
import { fingerprintFields } from './fingerprint.js';
import type { ProviderInfo } from './provider.js';
import { aboveFloor, embedQuery, statusWithProvider, type ActiveFingerprint, type QueryEmbedder, type ScopedSemanticSource, type SemanticStatusReport } from './scoped-source.js';
import { SemanticSearchUnavailableError } from './errors.js';
import type { WorkerHealth } from './worker.js';
import { MatrixCache } from './matrix-cache.js';
import { cachedChunkSearch } from './port-search.js';

/** What `storageSemanticSource()` needs: the storage (with its semantic rows), the validated config and the query provider. */
export interface StorageSemanticSourceOptions {
  /** The storage to read; without `semantic` rows there is no source (null). */
  storage: Storage;
  /** The profile's validated `semantic` config (parseSemanticConfig); null = not configured. */
  config: SemanticConfig | null;
  /** The provider for query embeddings; its info names the fingerprint whose vectors are compared. */
  provider: (QueryEmbedder & { readonly info: Pick<ProviderInfo, 'provider' | 'endpoint' | 'model' | 'dims' | 'scripts'> }) | null;
  /** The in-process worker's health when one runs here (provider down → `unavailable`). */
  health?: () => WorkerHealth | null;
  /**
   * The matrix cache for adapters with `ChunkStore.projectVectors` (share one per process); default a
   * new MatrixCache for this source, null = always the adapter's own exact scan.
   */
  cache?: MatrixCache | null;
}

/**
 * The semantic source over the storage ports (it fits @recall/search-tool's `SemanticSource`, whose
 * `status()` may answer with a promise): as ScopedSemanticSource, with an asynchronous status.
 */
export interface StorageSemanticSource extends Omit<ScopedSemanticSource, 'status'> {
  status(scope: SemanticScope): Promise<SemanticStatusReport>;
  /**
   * Stops the background rebuilds of the matrix cache this source created (a cache passed in is
   * its owner's to close) and resolves when they have ended; call before closing the storage.
   */
  close(): Promise<void>;
}

/** A source's status of a scope from the ports: consent for the endpoint, then the fingerprint's chunk rows. */
async function portStatus(semantic: SemanticStorage, scope: SemanticScope, fingerprint: ActiveFingerprint | null, endpoint: string, health: WorkerHealth | null): Promise<SemanticStatusReport> {
  if (fingerprint === null) return { status: 'disabled', coverage: 'unknown', reason: 'turned_off' };
  if (scope.kind !== 'project') return { status: 'disabled', coverage: 'unknown', reason: 'no_project' };
  const consent = await semantic.chunks.consent(scope.projectId);
  if (!consent?.enabled) return { status: 'disabled', coverage: 'unknown', reason: 'project_not_enabled' };
  if (consent.endpoint !== endpoint) return { status: 'disabled', coverage: 'unknown', reason: 'consent_for_other_endpoint' };
  const counts = await semantic.chunks.counts(fingerprint.id, scope.projectId);
  const total = counts.ready + counts.pending + counts.failed;
  const coverage = total === 0 ? ('unknown' as const) : { indexed: counts.ready, total };
  if (health && !health.providerAvailable) return { status: 'unavailable', coverage, reason: 'provider_unavailable' };
  if (total === 0) return { status: 'partial', coverage, reason: 'planning' };
  if (counts.pending > 0) return { status: 'partial', coverage, reason: 'indexing' };
  if (counts.failed > 0) return { status: 'partial', coverage, reason: 'failed_chunks' };
  return { status: 'ready', coverage };
}

/**
 * The semantic source for a Storage with semantic rows: null when semantic is not configured or
 * switched off, there is no provider, or the storage carries no semantic rows (the tool then says
 * `disabled`). The fingerprint is looked up read-only (the index creates it) until it exists.
 * `status()` answers with a promise (the ports are async); `search()` embeds the query and runs
 * ChunkStore.search over the caller's allowed set (roles, dates and the caller's own live messages
 * applied by the adapter before ranking) and drops hits below the model's similarity floor.
 */
export function storageSemanticSource(options: StorageSemanticSourceOptions): StorageSemanticSource | null {
  const { storage, config, provider } = options;
  const semantic = storage.semantic;
  if (!config?.enabled || !provider || !semantic) return null;
  const fields = fingerprintFields(provider.info);
  let fingerprint: ActiveFingerprint | null = null;
  const active = async (): Promise<ActiveFingerprint | null> => {
    if (fingerprint) return fingerprint;
    const id = await semantic.chunks.findFingerprint(fields);
    if (id !== null) fingerprint = { id, dims: fields.dims };
    return fingerprint;
  };
  const owned = options.cache === undefined;
  const cache = owned ? new MatrixCache() : (options.cache ?? null);
  let embedCalls = 0;
  const scripts = provider.info.scripts;
  return {
    ...(config.fusion ? { fusion: config.fusion } : {}),
    ...(scripts ? { scripts } : {}),
    get embedCalls() {
      return embedCalls;
    },
    async close() {
      if (owned) await cache?.close();
    },
    async status(scope) {
      const report = await portStatus(semantic, scope, await active(), fields.endpoint, options.health?.() ?? null);
      return statusWithProvider(provider, () => report);
    },
    async search(query, scope, { limit, roles, signal, since, until }) {
      const { vector, fingerprint: fp } = await embedQuery(provider, active, query, signal, () => embedCalls++);
      const chunkScope =
        scope.kind === 'project'
          ? { kind: 'project' as const, projectId: scope.projectId, currentSessionId: scope.currentSessionId }
          : { kind: 'own' as const, sessionIds: scope.sessionIds, currentSessionId: scope.currentSessionId };
      let hits;
      try {
        hits = await cachedChunkSearch(semantic.chunks, cache, chunkScope, fp.id, vector, {
          limit,
          ...(roles ? { roles: roles as readonly MessageRole[] } : {}),
          ...(since !== undefined ? { since } : {}),
          ...(until !== undefined ? { until } : {}),
        });
      } catch (error) {
        throw new SemanticSearchUnavailableError(`the vector search failed: ${(error as Error).message}`);
      }
      if (signal.aborted) throw new SemanticSearchUnavailableError('the deadline passed during the scan');
      return aboveFloor(hits, config.fusion);
    },
  };
}
