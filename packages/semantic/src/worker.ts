/**
 * The background worker: bounded batches inside the host process (the gateway), no separate
 * service. One cycle = plan queued sessions (ChunkStore.planWork, no network) → claim a batch with
 * a lease (ClaimQueue.claim, short transaction) → re-check consent → call the provider with NO transaction open →
 * write the vectors that are still valid. `start()` runs cycles until `stop()`; `wake()` starts
 * the next cycle at once (the gateway calls it after message writes; other processes' writes are
 * found by polling every `pollMs`); `pause()` finishes the batch in flight and waits. A failed
 * provider call is recorded on the chunks (attempts, last_error, backoff) and puts the worker in
 * `backoff` (5 s doubling to 5 min) — it never blocks a reply. Everything is persisted, so a crash
 * resumes from the rows: expired (or dead-process) leases are simply claimed again.
 * `run({projectId})` is the on-request backfill: it focuses the cycles on one project and resolves
 * when that project has nothing left to do (or is interrupted), reporting progress on the way.
 */
import type { MessageRole } from '@recall/rpc-contract';
import type { ClaimedChunkWork, SemanticStorage } from '@recall/storage-ports';
import { chunkText, contentHash, type ChunkerOptions } from './chunker.js';
import { deadOwnersOfThisHost, defaultChunkMask, newWorkerId } from './leases.js';
import { EmbeddingAbortedError, EmbeddingInputTooLargeError, EmbeddingUnavailableError, SemanticError } from './errors.js';
import type { Fingerprint } from './fingerprint.js';
import type { EmbeddingProvider } from './provider.js';

type ClaimedChunk = ClaimedChunkWork;

/** The background worker's state. */
export type WorkerStateName = 'stopped' | 'idle' | 'running' | 'paused' | 'backoff';

/**
 * The worker's health: state, whether the provider works, the last error (code, message, time in ms) and totals.
 */
export interface WorkerHealth {
  state: WorkerStateName;
  /**
   * False after a provider call failed as unreachable/unavailable, until the next success; false
   * from the start (with `lastError`) when the provider reports it cannot work at all
   * (`EmbeddingProvider.availability()`, e.g. the built-in model is not installed).
   */
  providerAvailable: boolean;
  lastError: { code: string; message: string; at: number } | null;
  lastSuccessAt: number | null;
  /** Chunks embedded and written by this worker since it was created. */
  embedded: number;
  /** Embedding requests (provider.embed calls) made by this worker. */
  providerCalls: number;
  /** The project a `run()` is focused on, if any. */
  focusProjectId: string | null;
}

/**
 * What one worker batch did: sessions planned, chunks claimed, written, dropped (message changed) and failed.
 */
export interface BatchReport {
  planned: { sessions: number; created: number; reused: number; removed: number };
  claimed: number;
  written: number;
  dropped: number;
  failed: number;
  /** True when there was nothing to do. */
  idle: boolean;
}

/** What a worker is built from (the index builds it): the storage's semantic rows, the provider, the active fingerprint, chunker, roles and budgets. */
export interface SemanticWorkerOptions {
  /** The chunk rows and claims (any adapter: SQLite's store modules, PostgreSQL + pgvector). */
  semantic: SemanticStorage;
  provider: EmbeddingProvider;
  fingerprint: Fingerprint;
  chunker: ChunkerOptions;
  roles: readonly MessageRole[];
  budgets: { chunksPerBatch: number; pauseMsBetweenBatches: number; maxAttempts: number; leaseMs: number };
  /** Poll interval when idle, for writes made by other processes (default 5000 ms). */
  pollMs?: number;
  /** Called after every batch that did something, and on state changes. */
  onBatch?: (report: BatchReport, health: WorkerHealth) => void;
  onState?: (health: WorkerHealth) => void;
  owner?: string;
  /** Same-length mask of a message's content before chunks are cut from it (see `ClaimOptions.mask`; default the built-in rules). */
  mask?: (content: string) => string;
}

const MIN_BACKOFF_MS = 5_000;
/**
 * Pause between two write transactions of the worker. SQLite's busy handler makes a waiting writer
 * in ANOTHER process sleep and retry (1, 2, 5, 10 … 100 ms); a worker that takes the lock again
 * immediately would starve it (measured: p99 append latency 0.9 s during a backfill without the
 * gap, docs/benchmarks.md). Writes made through the gateway's own connection never wait on it.
 */
export const WRITE_GAP_MS = 10;
const gap = () => new Promise<void>((r) => setTimeout(r, WRITE_GAP_MS));
const MAX_BACKOFF_MS = 300_000;

/**
 * The background indexer `SemanticIndex` creates (`index.worker`): plans, claims, embeds and writes
 * chunks in small write transactions, backing off while the provider is down. Hosts reach it only
 * through the index (`index.worker?.health`); it is exported as a type.
 */
export class SemanticWorker {
  readonly owner: string;
  readonly #o: SemanticWorkerOptions;
  #health: WorkerHealth = { state: 'stopped', providerAvailable: true, lastError: null, lastSuccessAt: null, embedded: 0, providerCalls: 0, focusProjectId: null };
  #loop: Promise<void> | null = null;
  #stopping = false;
  #paused = false;
  #wakeUp: (() => void) | null = null;
  #woken = false;
  #abort = new AbortController();
  #backoffMs = 0;

  constructor(options: SemanticWorkerOptions) {
    this.#o = options;
    this.owner = options.owner ?? newWorkerId();
    this.#cannotWork();
  }

  /**
   * The provider's up-front check: when it cannot work at all, health says so (before any call)
   * and the worker claims nothing — chunks are not charged attempts for a host that lacks a
   * package. Returns true when the provider cannot work.
   */
  #cannotWork(): boolean {
    const availability = this.#o.provider.availability?.();
    if (!availability || availability.available) return false;
    const { code, message } = availability.error;
    const last = this.#health.lastError;
    this.#health.providerAvailable = false;
    if (!last || last.code !== code || last.message !== message.slice(0, 500)) this.#health.lastError = { code, message: message.slice(0, 500), at: Date.now() };
    return true;
  }

  get health(): WorkerHealth {
    return { ...this.#health };
  }

  #setState(state: WorkerStateName): void {
    if (this.#health.state === state) return;
    this.#health.state = state;
    this.#o.onState?.(this.health);
  }

  /** Starts the background loop (idempotent). Releases leases of dead workers of this host first. */
  start(): void {
    if (this.#loop) return;
    this.#stopping = false;
    this.#abort = new AbortController();
    this.#setState(this.#paused ? 'paused' : 'idle');
    this.#loop = this.#run();
  }

  /** Next cycle now (after a message write, a consent change, `index.run`). */
  wake(): void {
    this.#woken = true;
    this.#backoffMs = Math.min(this.#backoffMs, MIN_BACKOFF_MS);
    this.#wakeUp?.();
  }

  pause(): void {
    this.#paused = true;
    this.#setState('paused');
  }

  resume(): void {
    this.#paused = false;
    if (this.#loop) this.#setState('idle');
    this.wake();
  }

  get paused(): boolean {
    return this.#paused;
  }

  /** Stops after aborting the request in flight (its chunks are released, not counted as failed). */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#abort.abort();
    this.#wakeUp?.();
    const loop = this.#loop;
    this.#loop = null;
    if (loop) await loop;
    this.#setState('stopped');
  }

  #sleep(ms: number): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref?.();
      const self = this;
      function done() {
        clearTimeout(timer);
        self.#wakeUp = null;
        self.#woken = false;
        resolve();
      }
      this.#wakeUp = done;
    });
  }

  /** Frees the leases of dead workers of this host (a crash, kill -9) and every expired lease. */
  async #releaseDeadLeases(): Promise<void> {
    const { claims } = this.#o.semantic;
    await claims.reclaim(deadOwnersOfThisHost(await claims.leaseOwners(), this.owner));
  }

  async #run(): Promise<void> {
    try {
      await this.#releaseDeadLeases();
    } catch (error) {
      this.#recordError(error);
    }
    while (!this.#stopping) {
      if (this.#paused) {
        await this.#sleep(60_000);
        continue;
      }
      let report: BatchReport;
      try {
        report = await this.runBatch({ projectId: this.#health.focusProjectId ?? undefined });
      } catch (error) {
        // A database error (e.g. SQLITE_BUSY beyond busy_timeout): keep serving, retry later.
        this.#recordError(error);
        await this.#sleep(MIN_BACKOFF_MS);
        continue;
      }
      if (this.#stopping) break;
      if (!this.#health.providerAvailable) {
        this.#setState('backoff');
        this.#backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(MIN_BACKOFF_MS, this.#backoffMs * 2));
        await this.#sleep(this.#backoffMs);
        continue;
      }
      this.#backoffMs = 0;
      if (report.idle) {
        this.#setState(this.#paused ? 'paused' : 'idle');
        await this.#sleep(this.#o.pollMs ?? 5_000);
      } else if (this.#o.budgets.pauseMsBetweenBatches > 0) {
        await this.#sleep(this.#o.budgets.pauseMsBetweenBatches);
      }
    }
  }

  #recordError(error: unknown): void {
    const code = error instanceof SemanticError ? error.code : 'internal_error';
    const message = error instanceof Error ? error.message : String(error);
    this.#health.lastError = { code, message: message.slice(0, 500), at: Date.now() };
  }

  /**
   * One cycle: plan (bounded), claim one batch, embed, write. Exposed for `run()`, tests and the
   * bench; the background loop calls it too.
   */
  async runBatch(options: { projectId?: string | undefined; signal?: AbortSignal } = {}): Promise<BatchReport> {
    const { semantic, fingerprint, budgets } = this.#o;
    const { chunker } = this.#o;
    // One bounded planning step per cycle (plan.more keeps the loop going), with a gap before each write.
    await gap();
    const plan = await semantic.chunks.planWork({
      fingerprintId: fingerprint.id,
      endpoint: fingerprint.endpoint,
      roles: this.#o.roles,
      split: (content) => chunkText(content, chunker),
      hash: contentHash,
      ...(options.projectId ? { projectId: options.projectId } : {}),
    });
    await gap();
    const report: BatchReport = {
      planned: { sessions: plan.sessionsPlanned, created: plan.created, reused: plan.reused, removed: plan.removed },
      claimed: 0,
      written: 0,
      dropped: 0,
      failed: 0,
      idle: false,
    };
    const nothingPlanned = !plan.more && plan.sessionsPlanned === 0 && plan.removed === 0 && plan.reused === 0;
    if (this.#cannotWork()) {
      // Planning needs no provider (the counts stay truthful); nothing is claimed or sent.
      report.idle = nothingPlanned;
      if (!report.idle) this.#o.onBatch?.(report, this.health);
      return report;
    }
    const claimed = await semantic.claims.claim({
      fingerprintId: fingerprint.id,
      endpoint: fingerprint.endpoint,
      owner: this.owner,
      limit: budgets.chunksPerBatch,
      leaseMs: budgets.leaseMs,
      maxAttempts: budgets.maxAttempts,
      ...(options.projectId ? { projectId: options.projectId } : {}),
      mask: this.#o.mask ?? defaultChunkMask(),
    });
    report.claimed = claimed.length;
    if (claimed.length === 0) {
      report.idle = nothingPlanned;
      if (!report.idle) this.#o.onBatch?.(report, this.health);
      return report;
    }
    this.#setState('running');
    // Consent can be withdrawn (or the session moved) between the claim and now: re-check.
    const allowed = new Set(await semantic.claims.consented(claimed.map((c) => c.id), fingerprint.endpoint));
    const toSend = claimed.filter((c) => allowed.has(c.id));
    const withdrawn = claimed.filter((c) => !allowed.has(c.id)).map((c) => c.id);
    if (withdrawn.length > 0) await semantic.claims.release(this.owner, withdrawn);
    const signals = [this.#abort.signal, ...(options.signal ? [options.signal] : [])];
    const signal = AbortSignal.any(signals);
    const outcome = await this.#embed(toSend, signal);
    if (outcome.aborted) {
      await semantic.claims.release(this.owner, toSend.map((c) => c.id));
      return report;
    }
    if (outcome.results.length > 0) {
      const done = await semantic.claims.complete(this.owner, outcome.results);
      report.written = done.written;
      report.dropped = done.dropped;
      this.#health.embedded += done.written;
    }
    for (const f of outcome.failures) {
      await semantic.claims.fail(this.owner, f.ids, f.error);
      report.failed += f.ids.length;
    }
    this.#o.onBatch?.(report, this.health);
    return report;
  }

  async #embed(
    chunks: readonly ClaimedChunk[],
    signal: AbortSignal,
  ): Promise<{ aborted: boolean; results: { chunk: ClaimedChunk; vector: Float32Array }[]; failures: { ids: number[]; error: string }[] }> {
    const results: { chunk: ClaimedChunk; vector: Float32Array }[] = [];
    const failures: { ids: number[]; error: string }[] = [];
    if (chunks.length === 0) return { aborted: false, results, failures };
    try {
      this.#health.providerCalls++;
      const vectors = await this.#o.provider.embed(
        chunks.map((c) => c.text),
        { signal },
      );
      chunks.forEach((chunk, i) => results.push({ chunk, vector: vectors[i]! }));
      this.#success();
    } catch (error) {
      if (error instanceof EmbeddingAbortedError || signal.aborted) return { aborted: true, results: [], failures: [] };
      this.#recordError(error);
      if (error instanceof EmbeddingInputTooLargeError && chunks.length > 1) {
        // Isolate the oversized input: the others still get their vectors.
        for (const chunk of chunks) {
          const one = await this.#embed([chunk], signal);
          if (one.aborted) return { aborted: true, results, failures };
          results.push(...one.results);
          failures.push(...one.failures);
        }
        return { aborted: false, results, failures };
      }
      if (error instanceof EmbeddingUnavailableError) this.#health.providerAvailable = false;
      const code = error instanceof SemanticError ? error.code : 'internal_error';
      failures.push({ ids: chunks.map((c) => c.id), error: `${code}: ${error instanceof Error ? error.message : String(error)}` });
    }
    return { aborted: false, results, failures };
  }

  #success(): void {
    const wasDown = !this.#health.providerAvailable;
    this.#health.providerAvailable = true;
    this.#health.lastSuccessAt = Date.now();
    if (wasDown) this.#o.onState?.(this.health);
  }

  /**
   * On-request backfill of one project (or everything): runs batches until nothing is left for it,
   * `signal` aborts, the worker is paused/stopped, or the provider is unavailable. Resumable: it
   * only ever continues from the persisted rows. `onProgress` is called after every batch.
   */
  async run(options: { projectId?: string; signal?: AbortSignal; onProgress?: (report: BatchReport) => void | Promise<void> } = {}): Promise<{ completed: boolean; reason: 'done' | 'aborted' | 'paused' | 'stopped' | 'unavailable'; written: number }> {
    let written = 0;
    // A backfill may run without the background loop (CLI, child process): recover dead leases here too.
    await this.#releaseDeadLeases();
    this.#health.focusProjectId = options.projectId ?? null;
    try {
      for (;;) {
        if (options.signal?.aborted) return { completed: false, reason: 'aborted', written };
        if (this.#stopping) return { completed: false, reason: 'stopped', written };
        if (this.#paused) return { completed: false, reason: 'paused', written };
        const report = await this.runBatch({ ...(options.projectId ? { projectId: options.projectId } : {}), ...(options.signal ? { signal: options.signal } : {}) });
        written += report.written;
        await options.onProgress?.(report);
        if (!this.#health.providerAvailable) return { completed: false, reason: 'unavailable', written };
        if (report.idle) {
          // Nothing claimable — but chunks may be in flight in the background loop or another
          // process (leased): done only when those have landed too.
          if ((await this.#o.semantic.claims.leased(this.#o.fingerprint.id, options.projectId)) === 0) return { completed: true, reason: 'done', written };
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    } finally {
      this.#health.focusProjectId = null;
    }
  }
}
