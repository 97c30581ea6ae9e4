/**
 * The SQLite semantic source of `session_search`: the query path of ../scoped-source.ts
 * (`embedQuery`, `aboveFloor`, `statusWithProvider`) over the profile database's allowed set and
 * matrix cache (exact-search.ts `searchScope`), with a synchronous status from the same rows
 * (status.ts `semanticStatus`). The active fingerprint is looked up read-only, so a source also
 * works on a read-only connection in a search thread.
 */
import type { MessageRole } from '@recall/rpc-contract';
import type { RecallDatabase } from '@recall/schema';
import type { SemanticScope } from '../allowed-set.js';
import type { SemanticConfig } from '../config.js';
import { fingerprintFields, type Fingerprint } from '../fingerprint.js';
import type { MatrixCache } from '../matrix-cache.js';
import type { ProviderInfo } from '../provider.js';
import { aboveFloor, embedQuery, statusWithProvider, type ActiveFingerprint, type QueryEmbedder, type ScopedSemanticSource, type SemanticStatusReport, type SourceFusionHints } from '../scoped-source.js';
import { toolStatus } from '../status.js';
import type { ScanBackend } from '../vector-scan.js';
import type { WorkerHealth } from '../worker.js';
import { searchScope } from './exact-search.js';
import { findFingerprint } from './fingerprint.js';
import { semanticStatus } from './status.js';

/** What `createScopedSemanticSource()` needs: the database, the embedder, the active fingerprint and the status of a scope. */
export interface ScopedSemanticSourceOptions {
  db: RecallDatabase;
  /** The active provider; null when none is configured or it could not start. */
  embedder: QueryEmbedder | null;
  /** The active fingerprint's row (null until the index created it). */
  activeFingerprint: () => ActiveFingerprint | null;
  /** The index's coverage/status for a scope (h-index's status function). */
  status: (scope: SemanticScope) => SemanticStatusReport;
  cache?: MatrixCache | null;
  fusion?: SourceFusionHints;
  backend?: ScanBackend;
}

export function createScopedSemanticSource(options: ScopedSemanticSourceOptions): ScopedSemanticSource {
  const { db } = options;
  let embedCalls = 0;
  const scripts = options.embedder?.info.scripts;
  return {
    ...(options.fusion ? { fusion: options.fusion } : {}),
    ...(scripts ? { scripts } : {}),
    get embedCalls() {
      return embedCalls;
    },
    status(scope) {
      return statusWithProvider(options.embedder, () => options.status(scope));
    },
    async search(query, scope, { limit, roles, signal, since, until }) {
      const { vector, fingerprint } = await embedQuery(options.embedder, options.activeFingerprint, query, signal, () => embedCalls++);
      const dates = { ...(since !== undefined ? { since } : {}), ...(until !== undefined ? { until } : {}) };
      const hits = searchScope(db, options.cache ?? null, scope, fingerprint.id, fingerprint.dims, vector, { limit, roles: roles as readonly MessageRole[] | undefined, ...(options.backend ? { backend: options.backend } : {}) }, dates);
      return aboveFloor(hits, options.fusion);
    },
  };
}

/**
 * What `createConfiguredSemanticSource()` needs: the database, the validated config and a provider for
 * query embeddings (the index's own `index.provider` in-process), optionally the worker's health and a
 * shared `MatrixCache`.
 */
export interface ConfiguredSourceOptions {
  db: RecallDatabase;
  /** The profile's validated `semantic` config (parseSemanticConfig); null = not configured. */
  config: SemanticConfig | null;
  /** The provider for query embeddings (shared with the index in-process, or a thread's own). */
  provider: QueryEmbedder & { readonly info: Pick<ProviderInfo, 'provider' | 'endpoint' | 'model' | 'dims' | 'scripts'> } | null;
  /** The in-process worker's health when one runs here (provider down → `unavailable`). */
  health?: () => WorkerHealth | null;
  /** A cache shared between sources of the process (default: none, every query reads the vectors). */
  cache?: MatrixCache | null;
  /** Scan kernel override for tests and benches (default: usearch when it loads, else js). */
  backend?: ScanBackend;
}

/**
 * The source for a profile: null when semantic is not configured or switched off (the tool then
 * says `disabled`). The active fingerprint is looked up read-only (the index creates it), so this
 * also works on a read-only connection in a search thread; status comes from the index's own
 * `semanticStatus` over the same allowed set the scan reads.
 */
export function createConfiguredSemanticSource(options: ConfiguredSourceOptions): ScopedSemanticSource | null {
  const { db, config, provider } = options;
  if (!config?.enabled || !provider) return null;
  const fields = fingerprintFields(provider.info);
  let fingerprint: Fingerprint | null = null;
  const active = (): Fingerprint | null => (fingerprint ??= findFingerprint(db, fields));
  return createScopedSemanticSource({
    db,
    embedder: provider,
    activeFingerprint: () => {
      const fp = active();
      return fp ? { id: fp.id, dims: fp.dims } : null;
    },
    status: (scope) =>
      toolStatus(
        semanticStatus(db, scope.kind === 'project' ? scope.projectId : null, {
          configured: true,
          enabled: true,
          fingerprint: active(),
          roles: config.indexedRoles,
          health: options.health?.() ?? null,
        }),
      ),
    cache: options.cache ?? null,
    ...(config.fusion ? { fusion: config.fusion } : {}),
    ...(options.backend ? { backend: options.backend } : {}),
  });
}
