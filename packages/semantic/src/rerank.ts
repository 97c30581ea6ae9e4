/**
 * Optional reranking (issue 22 item 4): an HTTP client for the common rerank APIs and the reranker
 * `session_search` takes (structurally @recall/search-tool's `Reranker`; this package may not import
 * search-tool). Request shapes, both POSTed to `{endpoint}/rerank`:
 * - `tei` (Text Embeddings Inference): `{ query, texts }` → `[{ index, score }]`;
 * - `cohere` (vLLM, llama.cpp, Jina, Cohere): `{ model, query, documents, top_n }` →
 *   `{ results: [{ index, relevance_score }] }`.
 * One request per search call, no retries (the call has one deadline), a timeout of its own, a
 * bounded response body, typed errors whose messages never carry the key or the text. The reranker
 * sends text only for a project switched on for semantic search whose consent names this rerank
 * endpoint (the same consent as embeddings, recording the reranker it was given for; the consent
 * notice names the reranker), and every text and the query pass the redaction pass of the
 * `embedding` surface first.
 */
import { createRedactor } from '@recall/redaction';
import type { SemanticScope } from './allowed-set.js';
import type { SemanticStorage } from '@recall/storage-ports';
import type { RerankConfig, SemanticConfig } from './config.js';
import { redactSecret, RerankAbortedError, RerankRequestError, RerankUnavailableError } from './errors.js';

/** The largest rerank answer read (bytes); a longer body is refused with `RerankRequestError`. */
export const RERANK_MAX_RESPONSE_BYTES = 1 << 20;

/** Settings of a rerank client (normally a validated `semantic.rerank` section plus its key). */
export interface RerankClientOptions extends Pick<RerankConfig, 'endpoint' | 'api' | 'model' | 'timeoutMs'> {
  /** Secret (RECALL_RERANK_API_KEY): sent as a Bearer token, never logged, never in an error. */
  apiKey?: string | null;
  /** Default RERANK_MAX_RESPONSE_BYTES. */
  maxResponseBytes?: number;
}

/** A client of one rerank server: one score per text, in input order (the server's scale). */
export interface RerankClient {
  readonly info: { endpoint: string; api: 'tei' | 'cohere'; model: string | null };
  /**
   * Scores `texts` against `query`. Rejects with `RerankUnavailableError` (unreachable, timed out,
   * 408/429/5xx), `RerankRequestError` (other HTTP errors, malformed or oversized answers) or
   * `RerankAbortedError` (the caller's signal).
   */
  rerank(query: string, texts: readonly string[], options?: { signal?: AbortSignal }): Promise<number[]>;
}

async function readBounded(response: Response, max: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw new RerankRequestError(`The reranker's answer is larger than ${max} bytes.`, { maxBytes: max });
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Scores by index from either answer shape; indices must be integers inside the request. */
function scoresFrom(json: unknown, count: number): number[] {
  const list = Array.isArray(json) ? json : (json as { results?: unknown } | null)?.results;
  if (!Array.isArray(list)) throw new RerankRequestError('The reranker answered without a list of results.');
  const scores = new Array<number>(count).fill(Number.NaN);
  for (const entry of list) {
    const index = (entry as { index?: unknown })?.index;
    const raw = (entry as { relevance_score?: unknown; score?: unknown })?.relevance_score ?? (entry as { score?: unknown })?.score;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count) throw new RerankRequestError('The reranker answered with a result for a text it was not sent.');
    if (typeof raw !== 'number') throw new RerankRequestError('The reranker answered a result without a score.');
    scores[index] = raw;
  }
  return scores;
}

/**
 * A client for a rerank server (see the module header for the shapes). Does not contact the server
 * until the first `rerank()`.
 */
export function createRerankClient(options: RerankClientOptions): RerankClient {
  const url = `${options.endpoint}/rerank`;
  const max = options.maxResponseBytes ?? RERANK_MAX_RESPONSE_BYTES;
  const secret = options.apiKey ?? null;
  const clean = (text: string) => redactSecret(text, secret).slice(0, 300);
  return {
    info: { endpoint: options.endpoint, api: options.api, model: options.model },
    async rerank(query, texts, callOptions = {}) {
      if (texts.length === 0) return [];
      const signal = callOptions.signal;
      if (signal?.aborted) throw new RerankAbortedError();
      const body =
        options.api === 'tei'
          ? { query, texts, truncate: true, raw_scores: false }
          : { ...(options.model ? { model: options.model } : {}), query, documents: texts, top_n: texts.length, return_documents: false };
      const timeout = AbortSignal.timeout(options.timeoutMs);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      let response: Response;
      let text: string;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', ...(secret ? { authorization: `Bearer ${secret}` } : {}) },
          body: JSON.stringify(body),
          signal: combined,
        });
        text = await readBounded(response, max);
      } catch (error) {
        if (error instanceof RerankRequestError) throw error;
        if (signal?.aborted) throw new RerankAbortedError();
        if (timeout.aborted) throw new RerankUnavailableError(`The reranker at ${options.endpoint} did not answer within ${options.timeoutMs} ms.`, { timeoutMs: options.timeoutMs });
        throw new RerankUnavailableError(`The reranker at ${options.endpoint} cannot be reached.`, {}, { cause: error });
      }
      if (!response.ok) {
        let message = '';
        try {
          const j = JSON.parse(text) as { error?: unknown; message?: unknown };
          const e = j.error;
          message = typeof e === 'string' ? e : typeof (e as { message?: unknown })?.message === 'string' ? ((e as { message: string }).message) : typeof j.message === 'string' ? j.message : '';
        } catch {
          message = '';
        }
        const said = message ? `: ${clean(message)}` : '';
        const status = response.status;
        if (status === 408 || status === 429 || status >= 500) throw new RerankUnavailableError(`The reranker answered HTTP ${status}${said}`, { status });
        throw new RerankRequestError(`The reranker refused the request (HTTP ${status})${said}`, { status });
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new RerankRequestError('The reranker answered with something that is not JSON.');
      }
      return scoresFrom(json, texts.length);
    },
  };
}

/**
 * The reranker a search tool takes (fits @recall/search-tool's `Reranker`): `allows(scope)` is the
 * project's semantic consent for the active embedding endpoint naming this rerank endpoint;
 * `rerank()` redacts and sends.
 */
export interface ConfiguredReranker {
  readonly topN: number;
  /** Where the text goes (for consent notices and status). */
  readonly endpoint: string;
  readonly model: string | null;
  allows(scope: SemanticScope): { allowed: true } | { allowed: false; reason: string };
  rerank(query: string, texts: readonly string[], options: { signal: AbortSignal }): Promise<number[]>;
  /** Requests sent so far (tests count them). */
  readonly calls: number;
}

/** What every reranker needs besides where consent is read: the validated config, the key and the redaction pass (and a client for tests). */
export interface RerankerBaseOptions {
  config: SemanticConfig | null;
  /** RECALL_RERANK_API_KEY as the CLI's config resolved it (never logged). */
  apiKey?: string | null;
  /**
   * Applied to the query and every text before it is sent (the `embedding` surface of the
   * process's RedactionPolicy). Default: @recall/redaction's built-in rules; null = texts as they are.
   */
  redact?: ((text: string) => string) | null;
  /** A client to use instead of one built from the config (tests). */
  client?: RerankClient;
}

/** A reranker's consent answer for one scope (allowed, or not with a reason shown to people). */
export type Decision = { allowed: true } | { allowed: false; reason: string };

export const NO_PROJECT: Decision = { allowed: false, reason: 'a conversation without a project is never sent to the reranker' };
export const NOT_SWITCHED_ON: Decision = { allowed: false, reason: 'semantic search is not switched on for this project' };
export const withoutReranker = (endpoint: string): Decision => ({
  allowed: false,
  reason: `this project was switched on without the reranker at ${endpoint}; switch it on again in the Index panel to include the reranker`,
});

/** The client, the redaction pass and the call counter shared by every reranker; `allows` is the backend's consent check (SQLite: sqlite/rerank.ts). */
export function buildReranker<A>(options: RerankerBaseOptions, rerank: RerankConfig, allows: (scope: SemanticScope) => A) {
  const client = options.client ?? createRerankClient({ endpoint: rerank.endpoint, api: rerank.api, model: rerank.model, timeoutMs: rerank.timeoutMs, apiKey: options.apiKey ?? null });
  let redact = options.redact;
  if (redact === undefined) {
    const redactor = createRedactor();
    redact = (text) => redactor.redactText(text);
  }
  const pass = redact;
  let calls = 0;
  return {
    topN: rerank.topN,
    endpoint: rerank.endpoint,
    model: rerank.model,
    get calls() {
      return calls;
    },
    allows,
    async rerank(query: string, texts: readonly string[], callOptions: { signal: AbortSignal }): Promise<number[]> {
      calls++;
      return client.rerank(pass ? pass(query) : query, pass ? texts.map((t) => pass(t)) : texts, { signal: callOptions.signal });
    },
  };
}

/**
 * A reranker whose consent is read through the storage ports (fits @recall/search-tool's
 * `Reranker`, whose `allows()` may answer with a promise): as ConfiguredReranker, with an
 * asynchronous `allows()`.
 */
export interface StorageReranker extends Omit<ConfiguredReranker, 'allows'> {
  allows(scope: SemanticScope): Promise<{ allowed: true } | { allowed: false; reason: string }>;
}

/** What `storageReranker()` needs: the storage's semantic rows (consent), the validated config, the key and the redaction pass. */
export interface StorageRerankerOptions extends RerankerBaseOptions {
  /** The semantic rows of the storage (a PostgreSQL team database's, or a profile's through the ports): consent is read by `ChunkStore.consentRecord`. */
  semantic: SemanticStorage;
}

/**
 * The reranker over the storage ports, with the same rule as the SQLite `createConfiguredReranker()`: null
 * unless semantic search and `semantic.rerank` are configured and switched on; a project's text is
 * sent only while its consent (read per call by `ChunkStore.consentRecord`) is switched on for the
 * configured embedding endpoint and names the configured rerank endpoint; a conversation without a
 * project is never reranked.
 */
export function storageReranker(options: StorageRerankerOptions): StorageReranker | null {
  const { semantic, config } = options;
  if (!config?.enabled || !config.rerank) return null;
  const rerank = config.rerank;
  return buildReranker(options, rerank, async (scope): Promise<Decision> => {
    if (scope.kind !== 'project') return NO_PROJECT;
    const consent = await semantic.chunks.consentRecord(scope.projectId);
    if (!consent?.enabled || consent.endpoint !== config.endpoint) return NOT_SWITCHED_ON;
    if ((consent.rerankEndpoint ?? null) !== rerank.endpoint) return withoutReranker(rerank.endpoint);
    return { allowed: true };
  });
}
