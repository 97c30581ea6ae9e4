/**
 * `SemanticIndex`: the one object a host (the gateway, the CLI, a test) holds per profile
 * database. It composes the validated config, the provider, the active fingerprint, the worker,
 * consent and status, so callers never wire those pieces by hand. With no `semantic` section or
 * `enabled: false` it has no provider and no worker: status says `disabled`, nothing is sent, and
 * nothing is deleted. Events are throttled (≤ 1 per project per `eventIntervalMs`) so a backfill
 * does not flood WebSocket clients; they carry project ids only — clients re-read `status()`.
 */
import type { RecallDatabase } from '@recall/schema';
import type { SemanticConfig } from './config.js';
import { disableProject, enableProject, listConsents, type ProjectConsent } from './consent.js';
import { SemanticDisabledError, SemanticProjectNotFoundError } from './errors.js';
import { ensureFingerprint, fingerprintFields, type Fingerprint } from './fingerprint.js';
import { createProvider, type EmbeddingProvider, type ProviderInfo } from './provider.js';
import { chunkableContent } from './chunker.js';
import type { ProviderLogger } from './openai-provider.js';
import { semanticStatus, type ProjectIndexStatus } from './status.js';
import { SemanticWorker, type BatchReport, type WorkerHealth } from './worker.js';

/**
 * The throttled change notice of an index (≤ 1 per project per `eventIntervalMs`): re-read `status()`.
 */
export interface SemanticIndexEvent {
  type: 'index.changed';
  /** Projects whose counts or state may have changed; empty = worker state / all. */
  projectIds: string[];
}

/**
 * What a `SemanticIndex` is built from: the database, the validated config (null = not configured),
 * the API key, optionally a ready provider (tests, custom models), a logger, an event callback and timings
 * (`pollMs`: idle poll for other processes' writes, default 5000; `eventIntervalMs`: throttle, default 500).
 */
export interface SemanticIndexOptions {
  db: RecallDatabase;
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
  readonly db: RecallDatabase;
  readonly config: SemanticConfig | null;
  readonly provider: EmbeddingProvider | null;
  readonly fingerprint: Fingerprint | null;
  readonly worker: SemanticWorker | null;
  readonly #onEvent: ((event: SemanticIndexEvent) => void) | undefined;
  readonly #eventInterval: number;
  readonly #lastEvent = new Map<string, number>();
  readonly #pendingEvent = new Map<string, ReturnType<typeof setTimeout>>();
  #closed = false;

  constructor(options: SemanticIndexOptions) {
    this.db = options.db;
    this.config = options.config;
    this.#onEvent = options.onEvent;
    this.#eventInterval = options.eventIntervalMs ?? 500;
    const on = options.config?.enabled === true;
    this.provider = on ? (options.provider ?? createProvider(options.config!, { apiKey: options.apiKey ?? null, ...(options.logger ? { logger: options.logger } : {}), ...(options.redact === undefined ? {} : { redact: options.redact }) })) : null;
    this.fingerprint = this.provider ? ensureFingerprint(this.db, fingerprintFields(this.provider.info)) : null;
    this.worker =
      this.provider && this.fingerprint
        ? new SemanticWorker({
            db: this.db,
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

  /** Consent: this project's existing and new messages may be sent to the active endpoint. */
  enable(projectId: string): EnableResult {
    const { provider } = this.#requireActive();
    enableProject(this.db, projectId, provider.info.endpoint, { rerankEndpoint: this.reranker?.endpoint ?? null });
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
  disable(projectId: string): ProjectConsent {
    const consent = disableProject(this.db, projectId);
    this.#emit(projectId);
    return consent;
  }

  status(projectId: string | null): ProjectIndexStatus {
    return semanticStatus(this.db, projectId, {
      configured: this.config !== null,
      enabled: this.config?.enabled === true,
      fingerprint: this.fingerprint,
      roles: this.config?.indexedRoles ?? ['user', 'assistant'],
      health: this.worker?.health ?? null,
    });
  }

  /** Every project (consented or not) with its status; what `index.status` and `recall index status` show. */
  overview(): IndexOverview {
    const ids = this.db.raw.prepare('select id from projects order by archived, name collate nocase, id').pluck().all() as string[];
    return {
      configured: this.config !== null,
      enabled: this.config?.enabled === true,
      provider:
        this.provider && this.fingerprint
          ? { ...this.provider.info, fingerprintId: this.fingerprint.id, ...(this.config?.rerank ? { reranker: { endpoint: this.config.rerank.endpoint, model: this.config.rerank.model } } : {}) }
          : null,
      worker: this.worker?.health ?? null,
      projects: ids.map((id) => this.status(id)),
    };
  }

  consents(): ProjectConsent[] {
    return listConsents(this.db);
  }

  /** On-request backfill (one project or all enabled ones); resumable, interruptible by `signal` or pause. */
  async run(options: { projectId?: string; signal?: AbortSignal; onProgress?: (status: ProjectIndexStatus | null, report: BatchReport) => void } = {}) {
    const { worker } = this.#requireActive();
    if (options.projectId !== undefined && !this.db.raw.prepare('select 1 from projects where id = ?').get(options.projectId)) throw new SemanticProjectNotFoundError(options.projectId);
    if (worker.paused) worker.resume();
    return worker.run({
      ...(options.projectId ? { projectId: options.projectId } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      onProgress: (report) => options.onProgress?.(options.projectId ? this.status(options.projectId) : null, report),
    });
  }

  /**
   * Drops derived rows (chunks of every fingerprint) of one project's sessions, or of all, and
   * re-plans with the active fingerprint. Messages and consent are untouched. Deletes in batches
   * so concurrent message appends never wait long.
   */
  rebuild(projectId?: string): { projectId: string | null; chunksDeleted: number } {
    if (projectId !== undefined && !this.db.raw.prepare('select 1 from projects where id = ?').get(projectId)) throw new SemanticProjectNotFoundError(projectId);
    let deleted = 0;
    const batch = projectId
      ? this.db.raw.prepare('delete from semantic_chunks where id in (select c.id from semantic_chunks c join sessions s on s.id = c.session_id where s.project_id = ? limit 5000)')
      : this.db.raw.prepare('delete from semantic_chunks where id in (select id from semantic_chunks limit 5000)');
    for (;;) {
      const n = this.db.raw.transaction(() => batch.run(...(projectId ? [projectId] : [])).changes).immediate();
      deleted += n;
      if (n === 0) break;
    }
    this.db.raw
      .transaction(() => {
        if (projectId) this.db.raw.prepare('update semantic_projects set planned_fingerprint_id = null where project_id = ?').run(projectId);
        else {
          this.db.raw.prepare('update semantic_projects set planned_fingerprint_id = null').run();
          // Fingerprints other than the active one have no rows left: drop them too.
          this.db.raw.prepare('delete from semantic_fingerprints where id is not ?').run(this.fingerprint?.id ?? null);
        }
      })
      .immediate();
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
