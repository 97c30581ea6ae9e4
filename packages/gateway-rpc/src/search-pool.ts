/**
 * A pool of search worker threads: the gateway's `session_search` executor when it serves a
 * database file. Each worker holds its own read-only connection (search-worker.ts →
 * `openSearchTool()`), so a slow search runs beside the event loop instead of on it, searches use
 * more than one core, and the main thread's one read-write connection is left to writes (WAL lets
 * readers and the writer proceed together; a reader sees every write committed before its search
 * began). Each worker runs one search at a time; jobs wait in a queue, bounded because each
 * socket has a bounded number of calls in flight; a job goes first to the worker its project prefers
 * (search-affinity.ts), else to any idle one. A worker that dies fails only its own job and is
 * replaced. Errors come back as plain data and are rebuilt with their stable code, so JSON-RPC maps
 * them exactly as if the tool had run in-process.
 */
import { availableParallelism } from 'node:os';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { GatewayLogger, SearchCallContext, SessionSearchExecutor } from './context.js';
import { GatewayError } from './errors.js';
import type { SearchJobReply, SearchWorkerData } from './search-worker.js';
import type { SearchToolInput } from './search-worker-tool.js';
import { SearchAffinity } from './search-affinity.js';

export interface SearchPoolOptions extends SearchToolInput {
  /** Worker threads (default: the number of cores, at least 2, at most 8). */
  workers?: number;
  /** Tests only: an ES module exporting `openSearchTool(input)` to build each worker's tool. */
  factoryModule?: string | null;
  logger: GatewayLogger;
}

export interface SearchPool extends SessionSearchExecutor {
  execute(args: Record<string, unknown>, context: SearchCallContext): Promise<unknown>;
  readonly size: number;
  /** Stops every worker (jobs still queued fail with shutting_down). Idempotent. */
  close(): Promise<void>;
}

export function defaultSearchWorkers(): number {
  return Math.min(8, Math.max(2, availableParallelism()));
}

/**
 * The compiled worker script. Under vitest this module runs from src/*.ts, which a worker thread
 * cannot load, so the built file next to it in dist/ is used (turbo's test task depends on build).
 */
function workerScript(): URL {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) {
    const built = new URL('../dist/search-worker.js', import.meta.url);
    if (!existsSync(built)) throw new Error(`${fileURLToPath(built)} is missing: build @recall/gateway-rpc first.`);
    return built;
  }
  return new URL('./search-worker.js', import.meta.url);
}

interface Job {
  id: number;
  args: Record<string, unknown>;
  context: SearchCallContext;
  /** The worker this job's project prefers (search-affinity.ts). */
  slot: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  job: Job | null;
}

function rebuildError(error: { message: string; code?: string }): Error {
  if (error.code === undefined) return new Error(error.message);
  // SQLITE_BUSY & co. keep their code so the busy mapping applies; domain codes become GatewayErrors.
  return error.code.startsWith('SQLITE_') ? Object.assign(new Error(error.message), { code: error.code }) : new GatewayError(error.code, error.message);
}

/** Starts the workers and waits until each has opened its connection (so a bad path fails the start). */
export async function startSearchPool(options: SearchPoolOptions): Promise<SearchPool> {
  const size = Math.max(1, Math.floor(options.workers ?? defaultSearchWorkers()));
  const script = workerScript();
  const data: SearchWorkerData = { dbPath: options.dbPath, profile: options.profile, factoryModule: options.factoryModule ?? null };
  const queue: Job[] = [];
  const slots: Slot[] = [];
  const affinity = new SearchAffinity(size);
  let nextId = 1;
  let closed = false;

  const spawn = (): Slot => {
    // execArgv: [] — not the parent's flags: a test runner's `--conditions source` would make the worker
    // resolve workspace packages to TypeScript sources it cannot load.
    const worker = new Worker(script, { workerData: data, execArgv: [] });
    const slot: Slot = { worker, job: null, ready: Promise.resolve() };
    slot.ready = new Promise<void>((resolveReady, rejectReady) => {
      const onFirst = (message: { ready?: boolean; error?: string }): void => {
        if (message.ready === true) resolveReady();
        else rejectReady(new Error(`search worker could not start: ${message.error ?? 'unknown error'}`));
      };
      worker.once('message', onFirst);
      worker.once('error', rejectReady);
    }).then(() => {
      worker.on('message', (reply: SearchJobReply) => {
        const job = slot.job;
        if (job === null || job.id !== reply.id) return;
        slot.job = null;
        if (reply.ok) {
          affinity.learn(job.context, reply.result);
          job.resolve(reply.result);
        } else job.reject(rebuildError(reply.error));
        pump();
      });
    });
    slot.ready.catch(() => {});
    worker.on('error', (error) => options.logger.error('Search worker failed', { error: error.stack ?? error.message }));
    worker.on('exit', (code) => {
      const index = slots.indexOf(slot);
      if (index < 0) return;
      const job = slot.job;
      slot.job = null;
      job?.reject(new Error(`search worker exited with code ${code}`));
      if (closed) return;
      // Replace it so one crash does not shrink the pool for good.
      slots[index] = spawn();
      slots[index]!.ready.then(pump, (error: unknown) => options.logger.error('Search worker could not restart', { error: String(error) }));
    });
    return slot;
  };

  const give = (slot: Slot, index: number): void => {
    const job = queue.splice(index, 1)[0]!;
    slot.job = job;
    slot.worker.postMessage({ id: job.id, args: job.args, context: job.context });
  };
  // Two passes, so no worker idles while a job waits: first each idle worker takes the oldest job
  // that prefers it; every job still waiting then prefers a busy worker, and an idle one takes the oldest.
  const pump = (): void => {
    slots.forEach((slot, i) => {
      if (slot.job !== null || queue.length === 0) return;
      const own = queue.findIndex((job) => job.slot === i);
      if (own >= 0) give(slot, own);
    });
    for (const slot of slots) if (slot.job === null && queue.length > 0) give(slot, 0);
  };

  for (let i = 0; i < size; i++) slots.push(spawn());
  try {
    await Promise.all(slots.map((s) => s.ready));
  } catch (error) {
    closed = true;
    await Promise.all(slots.map((s) => s.worker.terminate()));
    throw error;
  }

  return {
    size,
    execute(args, context) {
      if (closed) return Promise.reject(new GatewayError('shutting_down', 'The gateway is shutting down.'));
      return new Promise((resolveJob, rejectJob) => {
        queue.push({ id: nextId++, args, context, slot: affinity.preferred(context), resolve: resolveJob, reject: rejectJob });
        pump();
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const job of queue.splice(0)) job.reject(new GatewayError('shutting_down', 'The gateway is shutting down.'));
      await Promise.all(
        slots.map(
          (slot) =>
            new Promise<void>((resolveExit) => {
              slot.worker.once('exit', () => resolveExit());
              slot.worker.postMessage('close');
              // A worker stuck in a search is stopped rather than waited for.
              setTimeout(() => void slot.worker.terminate(), 2_000).unref();
            }),
        ),
      );
    },
  };
}
