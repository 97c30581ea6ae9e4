/**
 * The `semantic` section of a profile's config.json: its zod schema (with defaults and bounds),
 * validation into a `SemanticConfig`, and the endpoint normalisation the fingerprint and the
 * consent records compare. The gateway passes the raw section through untouched; this module is the
 * only one that interprets it. The API key never lives in config.json: the gateway reads
 * `RECALL_EMBEDDING_API_KEY` (or `OPENAI_API_KEY`, for OpenAI's own endpoint only) from the
 * environment and hands it to `resolveEmbeddingApiKey()`.
 */
import { MESSAGE_ROLES, WRITING_SCRIPTS, type MessageRole, type WritingScript } from '@recall/rpc-contract';
import { z } from 'zod';
import { SemanticConfigError } from './errors.js';

/**
 * The built-in model's similarity floor (cosine): below it a USE-lite match is noise. Calibrated on
 * the eval's dev data (LoCoMo conversations 0–4; docs/benchmarks.md, "Similarity floor"): the
 * largest of 0.2 / 0.3 / 0.4 / 0.5 that keeps dev semantic R@1 and R@5 and costs at most 0.005 of
 * R@10 (0.3: R@10 0.582 → 0.580; 0.4 already costs 0.060).
 */
export const USE_LITE_SIMILARITY_FLOOR = 0.3;

function definedOnly<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** The built-in model's endpoint label: it runs in this process and sends nothing anywhere. */
export const USE_LITE_ENDPOINT = 'local:use-lite';
export const USE_LITE_MODEL = 'universal-sentence-encoder-lite';
export const USE_LITE_DIMS = 512;
/** The writing systems the built-in model reads: Latin only (its vocabulary is English). */
export const USE_LITE_SCRIPTS: readonly WritingScript[] = ['latin'];
/** OpenAI's own API: the only endpoint `OPENAI_API_KEY` may be sent to. */
export const OPENAI_ENDPOINT = 'https://api.openai.com/v1';

const budgetsSchema = z
  .strictObject({
    chunksPerBatch: z.number().int().min(1).max(4096).default(64).describe('pending chunks one worker batch claims (1-4096, default 64)'),
    pauseMsBetweenBatches: z.number().int().min(0).max(60_000).default(0).describe('pause between two worker batches in ms, to leave CPU/quota to others (0-60000, default 0)'),
    maxAttempts: z.number().int().min(1).max(100).default(5).describe('attempts per chunk before it stays failed until a rebuild (1-100, default 5)'),
    leaseMs: z.number().int().min(5_000).max(3_600_000).default(120_000).describe('how long a claimed batch is reserved for one worker before another may take it over (5000-3600000 ms, default 120000)'),
  })
  .describe('worker budgets');

/** Bounds of the reranker's candidate count (`semantic.rerank.topN`). */
export const RERANK_TOP_N_MAX = 50;

const rerankSchema = z
  .strictObject({
    endpoint: z
      .url()
      .max(2048)
      .describe('base URL of the rerank server; Recall POSTs to {endpoint}/rerank, e.g. http://127.0.0.1:8080 (TEI) or http://127.0.0.1:8000/v1 (vLLM, llama.cpp), https://api.jina.ai/v1'),
    api: z
      .enum(['tei', 'cohere'])
      .default('cohere')
      .describe('request shape: "tei" = Text Embeddings Inference {query, texts} → [{index, score}]; "cohere" (default) = {model, query, documents, top_n} → {results: [{index, relevance_score}]}, spoken by vLLM, llama.cpp, Jina and Cohere'),
    model: z.string().min(1).max(200).optional().describe('reranker model name, e.g. bge-reranker-v2-m3 (required for api "cohere")'),
    topN: z.number().int().min(2).max(RERANK_TOP_N_MAX).default(20).describe(`how many of the fused top conversations are reranked (2-${RERANK_TOP_N_MAX}, default 20)`),
    timeoutMs: z.number().int().min(100).max(60_000).default(3_000).describe("timeout of one rerank request in ms (100-60000, default 3000); the search call's own deadline applies too"),
  })
  .describe('optional reranking of the fused top results by a cross-encoder; the API key comes only from RECALL_RERANK_API_KEY');

export const semanticConfigSchema = z
  .strictObject({
    enabled: z.boolean().default(false).describe('turn semantic indexing on; off = keyword-only, nothing is deleted'),
    provider: z
      .enum(['openai-compatible', 'use-lite'])
      .default('use-lite')
      .describe('"openai-compatible": any /v1/embeddings server (OpenAI, Ollama, llama.cpp, vLLM, TEI, LM Studio, Infinity); "use-lite": built-in offline Universal Sentence Encoder lite, ENGLISH ONLY, 512-d, nothing leaves the machine'),
    endpoint: z.url().max(2048).optional().describe('base URL of the OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1 (required for openai-compatible)'),
    model: z.string().min(1).max(200).optional().describe('embedding model name, e.g. bge-m3 or text-embedding-3-small (required for openai-compatible)'),
    dims: z.number().int().min(1).max(16_384).optional().describe('vector length the model returns (required for openai-compatible; vectors of another length are refused)'),
    sendDimensions: z.boolean().default(false).describe('send `dimensions: dims` with each request (only for models that can shorten their output, e.g. text-embedding-3-*, qwen3-embedding)'),
    batchSize: z.number().int().min(1).max(2048).default(32).describe('inputs per /v1/embeddings request (1-2048, default 32); larger batches are split'),
    timeoutMs: z.number().int().min(1_000).max(600_000).default(30_000).describe('timeout of one embeddings request in ms (1000-600000, default 30000)'),
    maxRetries: z.number().int().min(0).max(8).default(3).describe('retries of a request answered 429/5xx or not at all, with exponential backoff (0-8, default 3)'),
    maxInputTokens: z.number().int().min(16).max(131_072).default(512).describe("the model's input limit in tokens (default 512); chunks are cut to fit it"),
    charsPerToken: z
      .number()
      .min(1)
      .max(8)
      .default(3)
      .describe('assumed non-CJK characters per token when no tokenizer is known (default 3, conservative for English; CJK always counts 1 token per character)'),
    scripts: z
      .array(z.enum(WRITING_SCRIPTS))
      .min(1)
      .max(WRITING_SCRIPTS.length)
      .optional()
      .describe(
        'writing systems the openai-compatible model reads, e.g. ["latin"] for an English-only model (default: every script; the built-in use-lite model reads "latin" only). A query written only in other scripts then keeps a semantic match only when the matching text shares its script',
      ),
    indexedRoles: z.array(z.enum(MESSAGE_ROLES)).min(1).max(MESSAGE_ROLES.length).default(['user', 'assistant']).describe('message roles that are embedded (default user + assistant)'),
    includeToolOutput: z.boolean().default(false).describe('also embed tool-role messages (tool output); off by default'),
    budgets: budgetsSchema.default({ chunksPerBatch: 64, pauseMsBetweenBatches: 0, maxAttempts: 5, leaseMs: 120_000 }),
    fusion: z
      .strictObject({
        semanticWeight: z.number().min(0).max(10).optional().describe('weight of the semantic list in hybrid fusion (default 0.5 against keyword 4, see search-tool fusion.ts); raise it for a stronger model (4 = equal say)'),
        similarityFloor: z
          .number()
          .min(-1)
          .max(1)
          .optional()
          .describe(
            `the model's noise level: semantic hits below this cosine never enter hybrid/semantic results, and semantic mode answers "no semantic match" instead (default ${USE_LITE_SIMILARITY_FLOOR} for the built-in model, calibrated on the eval's dev data; 0 for other models — calibrate yours, see docs/semantic.md)`,
          ),
        keywordTopBonus: z.number().min(0).max(1).optional().describe("rank bonus of keyword's rank-1 hit in hybrid fusion (default 1: it stays first; see search-tool fusion.ts); 0 = none"),
        keywordTopMinGap: z.number().min(0).max(1).optional().describe("the bonus applies only when keyword's rank 1 leads rank 2 by this share of its score (0 = always)"),
        keywordTopRanks: z.number().int().min(1).max(50).optional().describe("how many of keyword's top ranks get the bonus (default 1)"),
      })
      .optional()
      .describe('per-model hybrid fusion overrides; omit to use the defaults measured on LoCoMo with the built-in model'),
    rerank: rerankSchema.optional(),
  })
  .describe('semantic index settings (config.json "semantic" section); the API key comes only from RECALL_EMBEDDING_API_KEY');

/** The `semantic` section of config.json as a user writes it (before validation and defaults). */
export type SemanticConfigInput = z.input<typeof semanticConfigSchema>;
type Parsed = z.output<typeof semanticConfigSchema>;

/**
 * Worker budgets of a validated config: batch sizes, provider call limits and backoff (see `docs/semantic.md`).
 */
export type SemanticBudgets = Parsed['budgets'];

/** The validated `semantic.rerank` section: where the reranker is, which request shape it speaks, how many candidates and how long. */
export interface RerankConfig {
  /** Normalised base URL; requests go to `{endpoint}/rerank`. */
  endpoint: string;
  api: 'tei' | 'cohere';
  /** Model name (always set for `cohere`; null = the server's only model, TEI). */
  model: string | null;
  topN: number;
  timeoutMs: number;
}

/** A validated, complete configuration (provider-specific fields resolved). */
export interface SemanticConfig {
  enabled: boolean;
  provider: 'openai-compatible' | 'use-lite';
  /** Normalised base URL, or `local:use-lite`. */
  endpoint: string;
  model: string;
  dims: number;
  sendDimensions: boolean;
  batchSize: number;
  timeoutMs: number;
  maxRetries: number;
  maxInputTokens: number;
  charsPerToken: number;
  /**
   * The writing systems the model reads: `latin` for the built-in model, `semantic.scripts` for an
   * openai-compatible one (absent = every script).
   */
  scripts?: readonly WritingScript[];
  /** Roles actually embedded: `indexedRoles`, plus `tool` only when includeToolOutput is on. */
  indexedRoles: readonly MessageRole[];
  includeToolOutput: boolean;
  budgets: SemanticBudgets;
  /**
   * Per-model fusion overrides for session_search (absent = the measured defaults). For the built-in
   * model `similarityFloor` defaults to USE_LITE_SIMILARITY_FLOOR.
   */
  fusion?: { semanticWeight?: number; similarityFloor?: number; keywordTopBonus?: number; keywordTopMinGap?: number; keywordTopRanks?: number };
  /** Optional reranker of the fused top results (absent = no reranking). */
  rerank?: RerankConfig;
}

/**
 * Canonical form of a base URL: lower-case scheme and host, no trailing slash, no query, no
 * fragment, no credentials. Two spellings of one server give one fingerprint and one consent.
 */
export function normalizeEndpoint(url: string): string {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  u.hash = '';
  u.search = '';
  let text = u.toString();
  while (text.endsWith('/')) text = text.slice(0, -1);
  return text;
}

/** Validates the raw `semantic` section (null/undefined = not configured → disabled). */
export function parseSemanticConfig(raw: unknown): SemanticConfig | null {
  if (raw === null || raw === undefined) return null;
  const parsed = semanticConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `semantic.${i.path.join('.')}: ${i.message}`);
    throw new SemanticConfigError(`Invalid "semantic" configuration: ${issues.join('; ')}`, issues);
  }
  const c = parsed.data;
  const rerank = c.rerank ? parseRerank(c.rerank) : undefined;
  // tool output is embedded only when explicitly included, whatever indexedRoles says.
  const roles = new Set<MessageRole>(c.indexedRoles.filter((r) => r !== 'tool'));
  if (c.includeToolOutput) roles.add('tool');
  const indexedRoles = MESSAGE_ROLES.filter((r) => roles.has(r));
  if (indexedRoles.length === 0) throw new SemanticConfigError('Invalid "semantic" configuration: semantic.indexedRoles: no role left to index (tool needs includeToolOutput: true).', ['semantic.indexedRoles']);
  const common = {
    enabled: c.enabled,
    batchSize: c.batchSize,
    timeoutMs: c.timeoutMs,
    maxRetries: c.maxRetries,
    charsPerToken: c.charsPerToken,
    indexedRoles,
    includeToolOutput: c.includeToolOutput,
    budgets: c.budgets,
    ...(c.fusion ? { fusion: definedOnly(c.fusion) } : {}),
    ...(rerank ? { rerank } : {}),
  };
  if (c.provider === 'use-lite') {
    if (c.endpoint !== undefined || (c.model !== undefined && c.model !== USE_LITE_MODEL) || (c.dims !== undefined && c.dims !== USE_LITE_DIMS) || c.scripts !== undefined) {
      throw new SemanticConfigError(`Invalid "semantic" configuration: semantic.provider: "use-lite" is the built-in ${USE_LITE_DIMS}-d English model; remove endpoint/model/dims/scripts.`, ['semantic.provider']);
    }
    // USE-lite's sentencepiece model was trained on sentences/short paragraphs: 256 tokens keeps a chunk meaningful.
    const fusion = { similarityFloor: USE_LITE_SIMILARITY_FLOOR, ...common.fusion };
    return { ...common, fusion, provider: 'use-lite', endpoint: USE_LITE_ENDPOINT, model: USE_LITE_MODEL, dims: USE_LITE_DIMS, scripts: USE_LITE_SCRIPTS, sendDimensions: false, maxInputTokens: Math.min(c.maxInputTokens, 256) };
  }
  const missing = (['endpoint', 'model', 'dims'] as const).filter((k) => c[k] === undefined);
  if (missing.length > 0) {
    const issues = missing.map((k) => `semantic.${k}: required for provider "openai-compatible"`);
    throw new SemanticConfigError(`Invalid "semantic" configuration: ${issues.join('; ')}`, issues);
  }
  const endpoint = normalizeEndpoint(c.endpoint!);
  if (!/^https?:\/\//.test(endpoint)) throw new SemanticConfigError('Invalid "semantic" configuration: semantic.endpoint must be http(s).', ['semantic.endpoint']);
  return { ...common, provider: 'openai-compatible', endpoint, model: c.model!, dims: c.dims!, ...(c.scripts ? { scripts: [...new Set(c.scripts)] } : {}), sendDimensions: c.sendDimensions, maxInputTokens: c.maxInputTokens };
}

function parseRerank(r: Parsed['rerank'] & object): RerankConfig {
  if (r.api === 'cohere' && r.model === undefined) throw new SemanticConfigError('Invalid "semantic" configuration: semantic.rerank.model: required for api "cohere" (e.g. "bge-reranker-v2-m3").', ['semantic.rerank.model']);
  const endpoint = normalizeEndpoint(r.endpoint);
  if (!/^https?:\/\//.test(endpoint)) throw new SemanticConfigError('Invalid "semantic" configuration: semantic.rerank.endpoint must be http(s).', ['semantic.rerank.endpoint']);
  return { endpoint, api: r.api, model: r.model ?? null, topN: r.topN, timeoutMs: r.timeoutMs };
}

/**
 * Which key (if any) may be sent to the configured endpoint. `RECALL_EMBEDDING_API_KEY` is meant
 * for this endpoint; `OPENAI_API_KEY` is only ever sent to OpenAI's own API, never to a third party
 * that happens to be configured (it may be set on the machine for other tools).
 */
export function resolveEmbeddingApiKey(config: Pick<SemanticConfig, 'provider' | 'endpoint'>, env: { embeddingApiKey?: string | null; openaiApiKey?: string | null }): string | null {
  if (config.provider !== 'openai-compatible') return null;
  if (env.embeddingApiKey) return env.embeddingApiKey;
  if (env.openaiApiKey && config.endpoint === OPENAI_ENDPOINT) return env.openaiApiKey;
  return null;
}
