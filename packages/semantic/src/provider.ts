/**
 * The one interface every embedding provider implements, plus the vector helpers they share.
 * A provider turns texts into L2-normalised Float32 vectors of exactly `info.dims` values, in input
 * order; it owns batching, splitting, retries and timeouts for its transport. `info` is non-secret
 * (it becomes part of the fingerprint and of status answers) — a provider never exposes its key.
 */
import type { WritingScript } from '@recall/rpc-contract';
import type { SemanticConfig } from './config.js';
import { EmbeddingDimensionError, EmbeddingRequestError, type SemanticError } from './errors.js';
import { createOpenAICompatibleProvider, type OpenAICompatibleProviderOptions } from './openai-provider.js';
import { createUseLiteProvider } from './use-lite-provider.js';
import { createRedactor } from '@recall/redaction';

/**
 * What a provider is: kind, endpoint, model, vector size and input limits. Part of the model fingerprint
 * (provider, endpoint, model, dims), so vectors of another model are never compared.
 */
export interface ProviderInfo {
  provider: 'openai-compatible' | 'use-lite';
  /** Normalised base URL, or `local:use-lite` (nothing leaves the machine). */
  endpoint: string;
  model: string;
  dims: number;
  /** Input limit in tokens that the chunker sizes chunks for. */
  maxInputTokens: number;
  /** Assumed non-CJK characters per token (no tokenizer known for remote models). */
  charsPerToken: number;
  /** Inputs per request. */
  maxBatch: number;
  /** Whether texts leave this machine (consent dialogs say so). */
  remote: boolean;
  /** Language coverage label shown in config, UI and status. */
  languages: 'english-only' | 'model-dependent';
  /**
   * The writing systems the model reads (absent = every script: unknown for a remote model unless
   * `semantic.scripts` says). The built-in USE-lite reads `latin` only; session_search then keeps a
   * semantic match of a query written only in other scripts (番茄炒蛋) only when the matching chunk
   * shares the query's script.
   */
  scripts?: readonly WritingScript[];
}

/**
 * Per-call options of `embed()`: `signal` aborts the request (it then rejects with `EmbeddingAbortedError`).
 */
export interface EmbedOptions {
  signal?: AbortSignal;
}

/**
 * Whether a provider can work at all, known without calling it: e.g. the built-in model's packages
 * are not installed. `available: true` does not promise that the next call succeeds (a server may
 * still be down); `available: false` means no call can succeed until the host is fixed and restarted.
 */
export type ProviderAvailability = { available: true } | { available: false; error: SemanticError };

/**
 * An embedding model as the index and the search source use it. Implement it to plug in any model:
 * `embed()` returns one vector of `info.dims` floats per text, in order (L2-normalise them, e.g. with
 * `l2normalize`), and throws a typed `SemanticError` (`EmbeddingUnavailableError` when it cannot reach
 * the model, `EmbeddingAbortedError` on abort); `close()` releases what it holds. `createProvider()`
 * builds one from the config.
 */
export interface EmbeddingProvider {
  readonly info: ProviderInfo;
  /** One L2-normalised vector per input text, in order. Throws a typed SemanticError. */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
  /**
   * Optional up-front check (cheap, no network, no model load). The worker reads it before every
   * batch, so its health says `providerAvailable: false` from the start instead of after a failed
   * call, and the scoped source reports `unavailable`. Absent = assumed available.
   */
  availability?(): ProviderAvailability;
  close(): Promise<void>;
}

/** Normalises in place and returns the vector; a zero or non-finite vector is refused. */
export function l2normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  const norm = Math.sqrt(sum);
  if (!Number.isFinite(norm) || norm === 0) throw new EmbeddingRequestError('The embedding endpoint returned a zero or non-finite vector.');
  for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm;
  return vector;
}

/** Checks the length, copies into a Float32Array and normalises. */
export function toUnitVector(values: ArrayLike<number>, dims: number): Float32Array {
  if (values.length !== dims) throw new EmbeddingDimensionError(dims, values.length);
  return l2normalize(Float32Array.from(values));
}

/** Dot product of two unit vectors = cosine similarity. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

/** Float32 little-endian bytes, as stored in `semantic_chunks.vector`. */
export function vectorToBlob(vector: Float32Array): Buffer {
  const out = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) out.writeFloatLE(vector[i]!, i * 4);
  return out;
}

export function blobToVector(blob: Uint8Array): Float32Array {
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const out = new Float32Array(blob.byteLength / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/** Options of `createProvider()`: the API key (openai-compatible only), a logger for retries and the redaction pass. */
export interface CreateProviderOptions extends Pick<OpenAICompatibleProviderOptions, 'logger'> {
  /** From `resolveEmbeddingApiKey()`; only for openai-compatible. */
  apiKey?: string | null;
  /**
   * Applied to every text before it is embedded (chunks and queries). Default: @recall/redaction's
   * built-in rules (secrets become `[redacted:KIND]`); `null` = send texts as they are (the
   * `privacy.redact.embedding: false` setting; `<private>` spans are still never in a chunk).
   */
  redact?: ((text: string) => string) | null;
}

let builtinRedact: ((text: string) => string) | null = null;

/** The built-in redaction pass of @recall/redaction, compiled once. */
function defaultRedact(): (text: string) => string {
  if (builtinRedact === null) {
    const redactor = createRedactor();
    builtinRedact = (text) => redactor.redactText(text);
  }
  return builtinRedact;
}

/**
 * `provider` with `redact` applied to every text before `embed()` sends it (same `info`,
 * `availability` and `close`). What `createProvider()` returns unless its `redact` is null.
 */
export function withRedaction(provider: EmbeddingProvider, redact: (text: string) => string): EmbeddingProvider {
  return {
    info: provider.info,
    embed: (texts, options) => provider.embed(texts.map((t) => redact(t)), options),
    ...(provider.availability ? { availability: () => provider.availability!() } : {}),
    close: () => provider.close(),
  };
}

/**
 * The provider a validated configuration names: `use-lite` (built-in, offline; unavailable but constructible
 * when its optional packages are missing) or `openai-compatible`, with the redaction pass applied to
 * every text it embeds (`options.redact`; default the built-in rules). Does not call the model.
 */
export function createProvider(config: SemanticConfig, options: CreateProviderOptions = {}): EmbeddingProvider {
  const provider = createBareProvider(config, options);
  const redact = options.redact === undefined ? defaultRedact() : options.redact;
  return redact === null ? provider : withRedaction(provider, redact);
}

function createBareProvider(config: SemanticConfig, options: CreateProviderOptions): EmbeddingProvider {
  if (config.provider === 'use-lite') return createUseLiteProvider({ charsPerToken: config.charsPerToken, maxInputTokens: config.maxInputTokens, batchSize: config.batchSize });
  return createOpenAICompatibleProvider({
    endpoint: config.endpoint,
    model: config.model,
    dims: config.dims,
    sendDimensions: config.sendDimensions,
    batchSize: config.batchSize,
    timeoutMs: config.timeoutMs,
    maxRetries: config.maxRetries,
    maxInputTokens: config.maxInputTokens,
    charsPerToken: config.charsPerToken,
    ...(config.scripts ? { scripts: config.scripts } : {}),
    apiKey: options.apiKey ?? null,
    ...(options.logger ? { logger: options.logger } : {}),
  });
}
