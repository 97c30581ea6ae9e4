/**
 * `SemanticIndex`: the one object a host (the gateway, the CLI, a test) holds per profile
 * database. It composes the validated config, the provider, the active fingerprint, the worker,
 * consent and status, so callers never wire those pieces by hand. With no `semantic` section or
 * `enabled: false` it has no provider and no worker: status says `disabled`, nothing is sent, and
 * nothing is deleted. Events are throttled (≤ 1 per project per `eventIntervalMs`) so a backfill
 * does not flood WebSocket clients; they carry project ids only — clients re-read `status()`.
 */
import type { ProjectStore, SemanticStorage } from '@recall/storage-ports';
import type { SemanticConfig } from './config.js';
import type { ProjectConsent } from './consent.js';
import { SemanticDisabledError, SemanticProjectNotFoundError } from './errors.js';
import { fingerprintFields, fingerprintKey, type Fingerprint, type FingerprintFields } from './fingerprint.js';
import { createProvider, type EmbeddingProvider, type ProviderInfo } from './provider.js';
import { chunkableContent } from './chunker.js';
import type { ProviderLogger } from './openai-provider.js';
import { statusOf, type ProjectIndexStatus } from './status.js';
import { SemanticWorker, type BatchReport, type WorkerHealth } from './worker.js';

/**
 * What an index reads and writes through (@recall/storage-ports): the projects (listing, existence)
 * and the semantic rows (fingerprints, consent, planning, counts, claims). A SQLite profile database
 * or a PostgreSQL team database both provide it (`storage` of `openStorage()` with its `semantic` part;
 * a SQLite profile database's: `sqliteSemanticIndex()` of `@recall/semantic/sqlite` builds it).
 */
export interface SemanticIndexStorage {
  readonly projects: Pick<ProjectStore, 'list' | 'exists'>;
  readonly semantic: SemanticStorage;
}

/**
 * The throttled change notice of an index (≤ 1 per project per `eventIntervalMs`): re-read `status()`.
 */
export interface SemanticIndexEvent {
  type: 'index.changed';
  /** Projects whose counts or state may have changed; empty = worker state / all. */
  projectIds: string[];
}

/**
 * What a `SemanticIndex` is built from: the storage, the validated config (null = not configured),
 * the API key, optionally a ready provider (tests, custom models), a logger, an event callback and timings
 * (`pollMs`: idle poll for other processes' writes, default 5000; `eventIntervalMs`: throttle, default 500).
 */
export interface SemanticIndexOptions {
  /**
   * The storage with semantic rows (e.g. a PostgreSQL team database); build the index with
   * `SemanticIndex.open()`. A SQLite profile database: `sqliteSemanticIndex({ db, … })` of `@recall/semantic/sqlite`.
   */
  storage: SemanticIndexStorage;
  /** From `parseSemanticConfig()`; null = not configured. */
  config: SemanticConfig | null;
  /** From `resolveEmbeddingApiKey()`. */
  apiKey?: string | null;
  /** A ready provider (tests, benches); default: built from the config. */
  provider?: EmbeddingProvider;
  /** The redaction pass of the provider built from the config (see `CreateProviderOptions.redact`; default the built-in rules, null = off). */
  redact?: ((text: string) => string) | null;
  /**
   * Same-length mask of a message's content before its chunks are cut from it and sent (see
   * `ClaimOptions.mask`). Default: the built-in rules; null = only `<private>` spans are blanked.
   */
  mask?: ((content: string) => string) | null;
  logger?: ProviderLogger;
  onEvent?: (event: SemanticIndexEvent) => void;
  pollMs?: number;
  eventIntervalMs?: number;
}

/** What `enable()` consented to: the endpoint the project's text will be sent to and a notice to show. */
export interface EnableResult {
  projectId: string;
  enabled: true;
  /** Where the text of this project will be sent. */
  endpoint: string;
  /** False for the built-in model: nothing leaves this machine. */
  remote: boolean;
  model: string;
  /** Always true: new messages of the project are sent too while it stays enabled. */
  includesNewMessages: true;
  notice: string;
  /** The reranker that also receives text of this project at search time (`semantic.rerank`), when configured. */
  reranker?: { endpoint: string; model: string | null };
}

/** Every project's index status plus the provider and worker health (what `index.status` shows). */
export interface IndexOverview {
  configured: boolean;
  enabled: boolean;
  provider: (Omit<ProviderInfo, never> & { fingerprintId: number; reranker?: { endpoint: string; model: string | null } }) | null;
  worker: WorkerHealth | null;
  projects: ProjectIndexStatus[];
}

/**
 * The semantic index of one profile database, the one object a host holds for stage B. Constructing it
 * never calls the model; with no config or `enabled: false` it has no provider and no worker (`active`
 * is false, status says `disabled`). `start()` runs the background worker, `run()` a resumable
 * backfill, `enable()`/`disable()` record per-project consent, `status()`/`overview()` report counts,
 * `rebuild()` deletes derived vectors, `close()` stops the worker and the provider it created.
 * Throws `SemanticDisabledError` (`semantic_disabled`) for `enable`/`run`/`rebuild` while semantic is
 * off, `SemanticProjectNotFoundError` (`project_not_found`) for an unknown project id.
 */
export class SemanticIndex {
  /** The ports the index reads and writes through. */
  readonly storage: SemanticIndexStorage;
  readonly config: SemanticConfig | null;
  readonly provider: EmbeddingProvider | null;
  readonly fingerprint: Fingerprint | null;
  readonly worker: SemanticWorker | null;
  readonly #onEvent: ((event: SemanticIndexEvent) => void) | undefined;
  readonly #eventInterval: number;
  readonly #lastEvent = new Map<string, number>();
  readonly #pendingEvent = new Map<string, ReturnType<typeof setTimeout>>();
  #closed = false;

  /**
   * Builds the index over `options.storage` with its active fingerprint already known: `fingerprint`
   * is the row, or a synchronous step that creates it from the provider's fields (the SQLite
   * adapter's; `sqliteSemanticIndex()` passes it). Without one use `await SemanticIndex.open()`,
   * which creates it over the async ports.
   */
  constructor(options: SemanticIndexOptions & { fingerprint?: Fingerprint | ((fields: FingerprintFields) => Fingerprint) }) {
    this.config = options.config;
    this.#onEvent = options.onEvent;
    this.#eventInterval = options.eventIntervalMs ?? 500;
    const on = options.config?.enabled === true;
    this.provider = on ? (options.provider ?? createProvider(options.config!, { apiKey: options.apiKey ?? null, ...(options.logger ? { logger: options.logger } : {}), ...(options.redact === undefined ? {} : { redact: options.redact }) })) : null;
    if (!options.storage) throw new TypeError('SemanticIndex: pass `storage` (a SQLite profile database: `sqliteSemanticIndex()` of @recall/semantic/sqlite).');
    this.storage = options.storage;
    const made = options.fingerprint;
    const fingerprint: Fingerprint | null = typeof made === 'function' ? (this.provider ? made(fingerprintFields(this.provider.info)) : null) : (made ?? null);
    if (this.provider && !fingerprint) throw new TypeError('SemanticIndex: build an index over storage ports with `await SemanticIndex.open(options)`.');
    this.fingerprint = this.provider ? fingerprint : null;
    this.worker =
      this.provider && this.fingerprint
        ? new SemanticWorker({
            semantic: this.storage.semantic,
            provider: this.provider,
            fingerprint: this.fingerprint,
            chunker: { maxInputTokens: this.provider.info.maxInputTokens, charsPerToken: this.provider.info.charsPerToken },
            roles: options.config!.indexedRoles,
            budgets: options.config!.budgets,
            ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
            ...(options.mask === undefined ? {} : { mask: options.mask ?? chunkableContent }),
            onBatch: (report) => this.#batchEvent(report),
            onState: () => this.#emit(''),
          })
        : null;
  }

  /**
   * The index over any storage with semantic rows (`options.storage`, e.g. a PostgreSQL team
   * database): creates the active fingerprint through the ports (idempotent across processes)
   * before the worker is built. Constructing never calls the model.
   */
  static async open(options: SemanticIndexOptions): Promise<SemanticIndex> {
    const on = options.config?.enabled === true;
    if (!on || !options.storage) return new SemanticIndex(options);
    const provider =
      options.provider ?? createProvider(options.config!, { apiKey: options.apiKey ?? null, ...(options.logger ? { logger: options.logger } : {}), ...(options.redact === undefined ? {} : { redact: options.redact }) });
    const fields = fingerprintFields(provider.info);
    const id = await options.storage.semantic.chunks.ensureFingerprint(fields);
    return new SemanticIndex({ ...options, provider, fingerprint: { ...fields, id, key: fingerprintKey(fields), createdAt: Date.now() } });
  }

  /** The reranker configured with this index (named in consent notices and status), or null. */
  get reranker(): { endpoint: string; model: string | null } | null {
    const r = this.active ? this.config?.rerank : undefined;
    return r ? { endpoint: r.endpoint, model: r.model } : null;
  }

  /** Semantic is configured AND switched on (a provider and a fingerprint exist). */
  get active(): boolean {
    return this.worker !== null;
  }

  start(): void {
    this.worker?.start();
  }

  wake(): void {
    this.worker?.wake();
  }

  pause(): void {
    this.worker?.pause();
    this.#emit('');
  }

  resume(): void {
    this.worker?.resume();
    this.#emit('');
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#pendingEvent.values()) clearTimeout(t);
    this.#pendingEvent.clear();
    await this.worker?.stop();
    await this.provider?.close();
  }

  #requireActive(): { provider: EmbeddingProvider; fingerprint: Fingerprint; worker: SemanticWorker } {
    if (!this.provider || !this.fingerprint || !this.worker) throw new SemanticDisabledError();
    return { provider: this.provider, fingerprint: this.fingerprint, worker: this.worker };
  }

  async #assertProject(projectId: string): Promise<void> {
    if (!(await this.storage.projects.exists(projectId))) throw new SemanticProjectNotFoundError(projectId);
  }

  /** Consent: this project's existing and new messages may be sent to the active endpoint. */
  async enable(projectId: string): Promise<EnableResult> {
    const { provider } = this.#requireActive();
    await this.#assertProject(projectId);
    await this.storage.semantic.chunks.setConsent(projectId, provider.info.endpoint, true, this.reranker?.endpoint ?? null);
    this.wake();
    this.#emit(projectId);
    const notice = provider.info.remote
      ? `The text of every message of this project — existing ones and new ones, while it stays switched on — will be sent to ${provider.info.endpoint} (model ${provider.info.model}) to be embedded.`
      : `Messages of this project will be embedded by the built-in ${provider.info.model} model (English only) on this machine; nothing leaves the machine.`;
    const rerank = this.reranker ? this.config!.rerank! : undefined;
    const rerankNotice = rerank
      ? ` When you search with meaning (hybrid or semantic), the question and the text of up to ${rerank.topN} top matches are also sent to the reranker at ${rerank.endpoint}${rerank.model ? ` (model ${rerank.model})` : ''} to put the best first.`
      : '';
    return {
      projectId,
      enabled: true,
      endpoint: provider.info.endpoint,
      remote: provider.info.remote,
      model: provider.info.model,
      includesNewMessages: true,
      notice: notice + rerankNotice,
      ...(rerank ? { reranker: { endpoint: rerank.endpoint, model: rerank.model } } : {}),
    };
  }

  /** Stops sending this project's text; deletes nothing. Works while semantic is off too. */
  async disable(projectId: string): Promise<ProjectConsent> {
    await this.#assertProject(projectId);
    const chunks = this.storage.semantic.chunks;
    const before = await chunks.consentRecord(projectId);
    if (before) await chunks.setConsent(projectId, before.endpoint ?? '', false);
    this.#emit(projectId);
    const c = before ? await chunks.consentRecord(projectId) : null;
    const now = Date.now();
    return c
      ? { projectId, enabled: c.enabled, endpoint: c.endpoint ?? '', rerankEndpoint: c.rerankEndpoint ?? null, enabledAt: c.enabledAt ?? null, updatedAt: c.updatedAt ?? now }
      : { projectId, enabled: false, endpoint: '', rerankEndpoint: null, enabledAt: null, updatedAt: now };
  }

  /** One project's status (null project = a conversation outside any project: always disabled). */
  async status(projectId: string | null): Promise<ProjectIndexStatus> {
    const input = {
      configured: this.config !== null,
      enabled: this.config?.enabled === true,
      fingerprint: this.fingerprint,
      roles: this.config?.indexedRoles ?? (['user', 'assistant'] as const),
      health: this.worker?.health ?? null,
    };
    const chunks = this.storage.semantic.chunks;
    const consent = projectId === null ? null : await chunks.consentRecord(projectId);
    const counts = projectId !== null && input.configured && input.enabled && input.fingerprint !== null ? await chunks.indexCounts(input.fingerprint.id, projectId, input.roles) : null;
    return statusOf(projectId, consent, counts, input);
  }

  /** Every project (consented or not) with its status; what `index.status` and `recall index status` show. */
  async overview(): Promise<IndexOverview> {
    const projects = await this.#projectsInOrder();
    const statuses: ProjectIndexStatus[] = [];
    for (const p of projects) statuses.push(await this.status(p.id));
    return {
      configured: this.config !== null,
      enabled: this.config?.enabled === true,
      provider:
        this.provider && this.fingerprint
          ? { ...this.provider.info, fingerprintId: this.fingerprint.id, ...(this.config?.rerank ? { reranker: { endpoint: this.config.rerank.endpoint, model: this.config.rerank.model } } : {}) }
          : null,
      worker: this.worker?.health ?? null,
      projects: statuses,
    };
  }

  /** Active projects first, then by name ignoring ASCII case, then by id (the Index panel's order). */
  async #projectsInOrder(): Promise<Array<{ id: string; name: string; archived: boolean }>> {
    const fold = (t: string) => t.replace(/[A-Z]/g, (c) => c.toLowerCase());
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    return [...(await this.storage.projects.list({ includeArchived: true }))].sort((a, b) => Number(a.archived) - Number(b.archived) || cmp(fold(a.name), fold(b.name)) || cmp(a.id, b.id));
  }

  /** Every project's consent record (projects never switched on are left out), by project id. */
  async consents(): Promise<ProjectConsent[]> {
    const out: ProjectConsent[] = [];
    for (const p of [...(await this.storage.projects.list({ includeArchived: true }))].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
      const c = await this.storage.semantic.chunks.consentRecord(p.id);
      if (c) out.push({ projectId: p.id, enabled: c.enabled, endpoint: c.endpoint ?? '', rerankEndpoint: c.rerankEndpoint ?? null, enabledAt: c.enabledAt ?? null, updatedAt: c.updatedAt ?? 0 });
    }
    return out;
  }

  /** On-request backfill (one project or all enabled ones); resumable, interruptible by `signal` or pause. */
  async run(options: { projectId?: string; signal?: AbortSignal; onProgress?: (status: ProjectIndexStatus | null, report: BatchReport) => void | Promise<void> } = {}) {
    const { worker } = this.#requireActive();
    if (options.projectId !== undefined) await this.#assertProject(options.projectId);
    if (worker.paused) worker.resume();
    const projectId = options.projectId;
    return worker.run({
      ...(projectId ? { projectId } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      onProgress: async (report) => {
        if (options.onProgress) await options.onProgress(projectId ? await this.status(projectId) : null, report);
      },
    });
  }

  /**
   * Drops derived rows (chunks of every fingerprint) of one project's sessions, or of all, and
   * re-plans with the active fingerprint. Messages and consent are untouched. Deletes in batches
   * so concurrent message appends never wait long.
   */
  async rebuild(projectId?: string): Promise<{ projectId: string | null; chunksDeleted: number }> {
    if (projectId !== undefined) await this.#assertProject(projectId);
    const deleted = await this.storage.semantic.chunks.dropChunks(projectId ?? null, this.fingerprint?.id ?? null);
    this.wake();
    this.#emit(projectId ?? '');
    return { projectId: projectId ?? null, chunksDeleted: deleted };
  }

  #batchEvent(report: BatchReport): void {
    if (report.written + report.failed + report.planned.created + report.planned.removed + report.planned.reused + report.dropped === 0) return;
    const focus = this.worker?.health.focusProjectId;
    this.#emit(focus ?? '');
  }

  /** Throttled `index.changed`; '' = not project-specific (worker state, all projects). */
  #emit(projectId: string): void {
    if (!this.#onEvent || this.#closed) return;
    const fire = () => {
      this.#pendingEvent.delete(projectId);
      this.#lastEvent.set(projectId, Date.now());
      this.#onEvent?.({ type: 'index.changed', projectIds: projectId ? [projectId] : [] });
    };
    const last = this.#lastEvent.get(projectId) ?? 0;
    const wait = last + this.#eventInterval - Date.now();
    if (wait <= 0) fire();
    else if (!this.#pendingEvent.has(projectId)) {
      const t = setTimeout(fire, wait);
      t.unref?.();
      this.#pendingEvent.set(projectId, t);
    }
  }
}
