/**
 * The seam between the gateway (stage A) and a semantic index (stage B). The gateway never imports
 * `@recall/semantic`: a host that wants semantic recall builds the index itself and hands the
 * gateway a {@link SemanticPlugin} — `@recall/semantic`'s `SemanticIndex` satisfies
 * {@link IndexService} structurally, and the CLI's composition root loads that package with a
 * dynamic `import()` only when `semantic.enabled` is set. Without a plugin the `index.*` methods
 * answer as "not configured" and `session_search` is keyword-only.
 */
import type { IndexConsent, IndexProjectStatus, IndexProvider, IndexRunResult, IndexWorker, WorkerState } from '@recall/rpc-contract';
import type { RecallDatabase } from '@recall/schema';
import type { Storage } from '@recall/storage-ports';
import type { GatewayLogger, SessionSearchExecutor } from './context.js';
import type { EventHub } from './events.js';

/** Per-project semantic status as an index reports it (the gateway adds name, slug and archived). */
export type IndexServiceProjectStatus = Omit<IndexProjectStatus, 'name' | 'slug' | 'archived'> & { fingerprintId?: number | null };

/**
 * A project's status when no index serves it (not configured, turned off, or stage B missing): the
 * given state and reason, no consent, nothing counted (`eligible` unknown). The gateway answers it
 * without an index service; a stand-in service can answer it too.
 */
export function idleProjectStatus(
  projectId: string,
  state: Pick<IndexServiceProjectStatus, 'status' | 'reason'> & { lastError?: string | null },
): IndexServiceProjectStatus {
  return {
    projectId,
    status: state.status,
    reason: state.reason,
    consent: { enabled: false, endpoint: null, enabledAt: null },
    eligible: 'unknown',
    ready: 0,
    pending: 0,
    failed: 0,
    queuedSessions: 0,
    lastError: state.lastError ?? null,
  };
}

/** The embedding provider an index uses, as far as `index.status` shows it (never a key). */
export interface IndexServiceProvider {
  readonly info: Omit<IndexProvider, 'fingerprintId'>;
}

/** The background worker's health, as `index.status` shows it. */
export interface IndexServiceWorker {
  readonly health: IndexWorker & { state: WorkerState };
}

/**
 * What the gateway needs of a profile's semantic index: consent per project, status, the on-request
 * backfill, pause, rebuild and the worker's lifecycle. Every method may throw errors that carry a
 * stable string `code` (e.g. `semantic_disabled`, `project_not_found`).
 */
export interface IndexService {
  /** True when a provider is configured and enabled, so the worker runs and semantic search can serve. */
  readonly active: boolean;
  /** The validated configuration; `null` = no `semantic` section. */
  readonly config: { readonly enabled: boolean } | null;
  /** The provider in use; `null` when not active. */
  readonly provider: IndexServiceProvider | null;
  /** The reranker configured with the index (`semantic.rerank`), named in consent and status; absent/null = none. */
  readonly reranker?: { readonly endpoint: string; readonly model: string | null } | null;
  /** The active fingerprint (model identity); `null` when not active. */
  readonly fingerprint: { readonly id: number } | null;
  /** The in-process worker; `null` when not active. */
  readonly worker: IndexServiceWorker | null;
  /** One project's semantic status. */
  status(projectId: string): IndexServiceProjectStatus | Promise<IndexServiceProjectStatus>;
  /** Records the project's consent for the active endpoint and answers what will be sent where. */
  enable(projectId: string): IndexConsent | Promise<IndexConsent>;
  /** Withdraws the project's consent (deletes nothing); works while semantic is off too. */
  disable(projectId: string): { projectId: string } | Promise<{ projectId: string }>;
  /** Backfills one project (or every switched-on one); resolves when the run ends. */
  run(options: { projectId?: string }): Promise<Omit<IndexRunResult, 'started' | 'projectId'>>;
  /** Pauses the worker until the next `run` or `wake`. */
  pause(): void;
  /** Drops derived rows of one project (or all) and re-plans them. */
  rebuild(projectId?: string): { projectId: string | null; chunksDeleted: number } | Promise<{ projectId: string | null; chunksDeleted: number }>;
  /** New writes are there: look for work now. */
  wake(): void;
  /** Starts the background worker (no-op when not active). */
  start(): void;
  /** Stops the worker and releases what it holds; idempotent. */
  close(): Promise<void>;
}

/** What a {@link SemanticPlugin} receives from the gateway when it starts. */
export interface SemanticPluginDeps {
  /** The gateway's one read-write connection to the profile database; null on a storage of the host's (a PostgreSQL team database). */
  readonly db: RecallDatabase | null;
  /** The storage the gateway serves (the profile's SQLite ports, or the host's team database): a plugin without `db` builds on it. */
  readonly storage: Storage;
  readonly profile: string;
  /** Emit `index.changed` here (throttled) so clients re-read `index.status`. */
  readonly events: EventHub;
  readonly logger: GatewayLogger;
}

/** A search tool built on a running index, with what must be closed when the gateway stops. */
export interface SemanticSearchBinding {
  readonly tool: SessionSearchExecutor;
  close(): Promise<void>;
}

/** What a plugin started for one gateway: the index, and the hybrid search tool while it is active. */
export interface SemanticBinding {
  readonly index: IndexService;
  /** The hybrid `session_search` tool sharing the index's provider; `null` when the index is not active. */
  readonly search: SemanticSearchBinding | null;
}

/**
 * Stage B plugged into a gateway: `start()` builds the profile's index on the gateway's database
 * and, while that index is active, the hybrid `session_search` tool that shares its provider.
 * Throw a coded error (e.g. `invalid_config`) to fail the gateway's start.
 */
export interface SemanticPlugin {
  start(deps: SemanticPluginDeps): SemanticBinding | Promise<SemanticBinding>;
}
