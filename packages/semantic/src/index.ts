/**
 * Public surface of @recall/semantic (stage B): configuration, embedding providers (the built-in
 * offline USE-lite model and any OpenAI-compatible /v1/embeddings server), the typed errors, and
 * the exact vector scan (bounded top-k over the project's allowed set). Explicit named exports only.
 */
export {
  semanticConfigSchema,
  parseSemanticConfig,
  normalizeEndpoint,
  resolveEmbeddingApiKey,
  USE_LITE_ENDPOINT,
  USE_LITE_MODEL,
  USE_LITE_DIMS,
  OPENAI_ENDPOINT,
} from './config.js';
export type { SemanticConfig, SemanticConfigInput, SemanticBudgets } from './config.js';
export { createProvider, l2normalize, toUnitVector, cosine, vectorToBlob, blobToVector } from './provider.js';
export type { EmbeddingProvider, ProviderInfo, EmbedOptions, CreateProviderOptions } from './provider.js';
export { createOpenAICompatibleProvider } from './openai-provider.js';
export type { OpenAICompatibleProviderOptions, ProviderLogger } from './openai-provider.js';
export { createUseLiteProvider } from './use-lite-provider.js';
export type { UseLiteProviderOptions } from './use-lite-provider.js';
export {
  SemanticError,
  SemanticConfigError,
  SemanticDisabledError,
  EmbeddingDimensionError,
  EmbeddingInputTooLargeError,
  EmbeddingUnavailableError,
  EmbeddingRequestError,
  EmbeddingAbortedError,
  ProviderClosedError,
  SemanticProjectNotFoundError,
  redactSecret,
} from './errors.js';
export { TopK, compareScored, type ScoredRow } from './topk.js';
export {
  dotAt,
  defaultBackend,
  loadUsearch,
  normalizeL2,
  quantizeInt8,
  scanTopK,
  usearchLoadError,
  INT8_RESCORE,
  PARALLEL_MIN_ROWS,
  type Int8Matrix,
  type ScanBackend,
  type ScanOptions,
  type VectorMatrix,
} from './vector-scan.js';
