/**
 * The OpenAI-compatible HTTP provider: `POST {endpoint}/embeddings` through the official `openai`
 * client, which speaks to OpenAI, Ollama, llama.cpp server, vLLM, TEI, LM Studio and Infinity.
 * Rules it owns: always `encoding_format: "float"` (the SDK asks for base64 otherwise and several
 * local servers then return corrupted vectors); `dimensions` only when configured; batches cut to
 * `batchSize`; an "input too large" answer (413, or 400/500 saying so) halves the batch and retries
 * instead of failing it; 429/5xx/timeouts back off exponentially for a bounded number of retries;
 * vectors of the wrong length are refused. The API key is passed explicitly (the SDK would read
 * OPENAI_API_KEY from the environment otherwise) and every server message is redacted before it
 * reaches an error or a log line.
 */
import type { WritingScript } from '@recall/rpc-contract';
import OpenAI from 'openai';
import {
  EmbeddingAbortedError,
  EmbeddingInputTooLargeError,
  EmbeddingRequestError,
  EmbeddingUnavailableError,
  ProviderClosedError,
  SemanticError,
  redactSecret,
} from './errors.js';
import { toUnitVector, type EmbedOptions, type EmbeddingProvider, type ProviderInfo } from './provider.js';

/**
 * Where a provider reports retries and split batches (`warn`); messages never contain the key or text.
 */
export interface ProviderLogger {
  warn(message: string, data?: Record<string, unknown>): void;
}

/**
 * Settings of an OpenAI-compatible `/v1/embeddings` provider (normally taken from a validated config by
 * `createProvider()`): endpoint, model, vector size, batching, timeout and retries, the key.
 */
export interface OpenAICompatibleProviderOptions {
  endpoint: string;
  model: string;
  dims: number;
  /** Send `dimensions: dims` (only models that can shorten their output accept it). */
  sendDimensions: boolean;
  batchSize: number;
  timeoutMs: number;
  maxRetries: number;
  maxInputTokens: number;
  charsPerToken: number;
  /** The writing systems the model reads (`semantic.scripts`); absent = every script. */
  scripts?: readonly WritingScript[];
  /** Secret. Never logged, never part of an error or of `info`. */
  apiKey: string | null;
  logger?: ProviderLogger;
  /** First backoff delay in ms (doubles per retry, capped at 8 s); tests shorten it. */
  backoffBaseMs?: number;
}

const TOO_LARGE_RE = /too (large|long|many)|maximum context|context length|exceed|input length|payload|batch size|max.{0,20}(tokens|inputs|batch)/i;
const MAX_BACKOFF_MS = 8_000;

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new EmbeddingAbortedError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new EmbeddingAbortedError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

type Classified =
  | { kind: 'aborted' }
  | { kind: 'too_large'; status: number; message: string }
  | { kind: 'retry'; status: number | null; message: string; retryAfterMs: number | null }
  | { kind: 'fatal'; status: number | null; message: string };

/**
 * A provider for any OpenAI-compatible `/v1/embeddings` server (OpenAI, Ollama, vLLM, LM Studio …):
 * batches inputs, splits a batch the server calls too large, retries with backoff, checks every vector's
 * length (`EmbeddingDimensionError`) and L2-normalises. Errors: `EmbeddingUnavailableError` (unreachable,
 * timed out, kept failing), `EmbeddingRequestError` (auth, unknown model, malformed answer),
 * `EmbeddingInputTooLargeError`, `EmbeddingAbortedError`, `ProviderClosedError` after `close()`.
 * Does not contact the server until the first `embed()`.
 */
export function createOpenAICompatibleProvider(options: OpenAICompatibleProviderOptions): EmbeddingProvider {
  const secret = options.apiKey;
  const client = new OpenAI({
    // Local servers need no key, but the SDK refuses to start without one: they get a placeholder.
    apiKey: secret ?? 'no-key',
    baseURL: options.endpoint,
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    maxRetries: 0, // retries are ours: they must know about splitting and the caller's signal
    timeout: options.timeoutMs,
    logLevel: 'off',
  });
  const backoffBase = options.backoffBaseMs ?? 250;
  let closed = false;

  const info: ProviderInfo = {
    provider: 'openai-compatible',
    endpoint: options.endpoint,
    model: options.model,
    dims: options.dims,
    maxInputTokens: options.maxInputTokens,
    charsPerToken: options.charsPerToken,
    maxBatch: options.batchSize,
    remote: true,
    languages: 'model-dependent',
    ...(options.scripts ? { scripts: [...options.scripts] } : {}),
  };

  const clean = (text: string) => redactSecret(text, secret).slice(0, 500);

  function classify(error: unknown, signal: AbortSignal | undefined): Classified {
    if (signal?.aborted || error instanceof OpenAI.APIUserAbortError) return { kind: 'aborted' };
    if (error instanceof OpenAI.APIConnectionTimeoutError) return { kind: 'retry', status: null, message: `no answer within ${options.timeoutMs} ms`, retryAfterMs: null };
    if (error instanceof OpenAI.APIConnectionError) return { kind: 'retry', status: null, message: 'connection failed', retryAfterMs: null };
    if (error instanceof OpenAI.APIError) {
      const status = error.status ?? 0;
      const message = clean(error.message ?? '');
      if (status === 413 || ((status === 400 || status === 500) && TOO_LARGE_RE.test(message))) return { kind: 'too_large', status, message };
      if (status === 429 || status >= 500 || status === 408) {
        const header = error.headers?.get?.('retry-after');
        const seconds = header ? Number(header) : NaN;
        return { kind: 'retry', status, message, retryAfterMs: Number.isFinite(seconds) ? seconds * 1000 : null };
      }
      return { kind: 'fatal', status, message };
    }
    return { kind: 'fatal', status: null, message: clean(error instanceof Error ? error.message : String(error)) };
  }

  async function request(batch: readonly string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    for (let attempt = 0; ; attempt++) {
      if (closed) throw new ProviderClosedError();
      let response: OpenAI.CreateEmbeddingResponse;
      try {
        response = await client.embeddings.create(
          {
            model: options.model,
            input: batch as string[],
            encoding_format: 'float',
            ...(options.sendDimensions ? { dimensions: options.dims } : {}),
          },
          { ...(signal ? { signal } : {}), maxRetries: 0, timeout: options.timeoutMs },
        );
      } catch (error) {
        const c = classify(error, signal);
        if (c.kind === 'aborted') throw new EmbeddingAbortedError();
        if (c.kind === 'too_large') {
          if (batch.length > 1) {
            const half = Math.ceil(batch.length / 2);
            const left = await request(batch.slice(0, half), signal);
            const right = await request(batch.slice(half), signal);
            return [...left, ...right];
          }
          throw new EmbeddingInputTooLargeError(`The embedding endpoint refused one input as too large (HTTP ${c.status}): ${c.message}`, { status: c.status });
        }
        if (c.kind === 'retry' && attempt < options.maxRetries) {
          const delay = Math.min(MAX_BACKOFF_MS, c.retryAfterMs ?? backoffBase * 2 ** attempt);
          options.logger?.warn('embedding request failed; retrying', { endpoint: options.endpoint, status: c.status, attempt: attempt + 1, delayMs: delay });
          await sleep(delay, signal);
          continue;
        }
        if (c.kind === 'retry') {
          throw new EmbeddingUnavailableError(`The embedding endpoint ${options.endpoint} failed ${attempt + 1} time(s): ${c.status === null ? '' : `HTTP ${c.status} `}${c.message}`, {
            endpoint: options.endpoint,
            status: c.status,
          });
        }
        throw new EmbeddingRequestError(`The embedding endpoint ${options.endpoint} refused the request${c.status === null ? '' : ` (HTTP ${c.status})`}: ${c.message}`, {
          endpoint: options.endpoint,
          status: c.status,
        });
      }
      return decode(response, batch.length);
    }
  }

  function decode(response: OpenAI.CreateEmbeddingResponse, expected: number): Float32Array[] {
    const data = Array.isArray(response?.data) ? response.data : null;
    if (!data || data.length !== expected) {
      throw new EmbeddingRequestError(`The embedding endpoint returned ${data ? data.length : 'no'} vectors for ${expected} inputs.`, { endpoint: options.endpoint });
    }
    const out = new Array<Float32Array>(expected);
    for (let i = 0; i < data.length; i++) {
      const item = data[i]!;
      const index = typeof item.index === 'number' ? item.index : i;
      if (index < 0 || index >= expected || out[index] !== undefined) throw new EmbeddingRequestError('The embedding endpoint returned inconsistent indexes.', { endpoint: options.endpoint });
      if (!Array.isArray(item.embedding) || item.embedding.some((v) => typeof v !== 'number')) {
        throw new EmbeddingRequestError('The embedding endpoint did not return float vectors (encoding_format "float" was requested).', { endpoint: options.endpoint });
      }
      out[index] = toUnitVector(item.embedding, options.dims);
    }
    return out;
  }

  return {
    info,
    async embed(texts: readonly string[], embedOptions: EmbedOptions = {}): Promise<Float32Array[]> {
      if (closed) throw new ProviderClosedError();
      const signal = embedOptions.signal;
      if (signal?.aborted) throw new EmbeddingAbortedError();
      const out: Float32Array[] = [];
      try {
        for (let i = 0; i < texts.length; i += options.batchSize) {
          out.push(...(await request(texts.slice(i, i + options.batchSize), signal)));
        }
      } catch (error) {
        if (error instanceof SemanticError) throw error;
        throw new EmbeddingRequestError(`Embedding failed: ${clean(error instanceof Error ? error.message : String(error))}`, { endpoint: options.endpoint });
      }
      return out;
    },
    async close(): Promise<void> {
      closed = true;
    },
  };
}
