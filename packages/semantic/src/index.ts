/**
 * Public surface of @recall/semantic (stage B): what a host needs to run the semantic index of a
 * profile database and to plug it into `session_search` — configuration parsing, embedding
 * providers (the built-in offline USE-lite model and any OpenAI-compatible /v1/embeddings server),
 * the `SemanticIndex` facade a host holds per profile, the configured semantic source the search
 * tool takes, the typed errors, and the types in their signatures. This core reads and writes
 * only through @recall/storage-ports (`SemanticIndex.open({ storage })`, `storageSemanticSource`,
 * `storageReranker`); a SQLite profile database's adapter — `sqliteSemanticIndex`, the SQLite
 * search source and reranker, `sqliteSemanticStorage` — is `@recall/semantic/sqlite`. Chunking,
 * planning, leases, fingerprints and the vector scan are implementation: benches and the eval
 * reach the few pieces they measure through `@recall/semantic/internal` (no compatibility promise).
 */
export { parseSemanticConfig, resolveEmbeddingApiKey, USE_LITE_ENDPOINT, USE_LITE_MODEL, USE_LITE_DIMS, USE_LITE_SCRIPTS, USE_LITE_SIMILARITY_FLOOR, OPENAI_ENDPOINT } from './config.js';
export type { SemanticConfig, SemanticConfigInput, SemanticBudgets, RerankConfig } from './config.js';
export { createRerankClient, storageReranker, RERANK_MAX_RESPONSE_BYTES } from './rerank.js';
export type { RerankClient, RerankClientOptions, ConfiguredReranker, RerankerBaseOptions, StorageReranker, StorageRerankerOptions } from './rerank.js';
export { createProvider, l2normalize, withRedaction } from './provider.js';
export type { EmbeddingProvider, ProviderAvailability, ProviderInfo, EmbedOptions, CreateProviderOptions } from './provider.js';
export { createOpenAICompatibleProvider } from './openai-provider.js';
export type { OpenAICompatibleProviderOptions, ProviderLogger } from './openai-provider.js';
export { createUseLiteProvider } from './use-lite-provider.js';
export type { UseLiteProviderOptions } from './use-lite-provider.js';

export { SemanticIndex } from './semantic-index.js';
export type { SemanticIndexOptions, SemanticIndexEvent, EnableResult, IndexOverview } from './semantic-index.js';
/** What an index over the storage ports reads and writes through (`SemanticIndex.open({ storage })`, e.g. a PostgreSQL team database). */
export type { SemanticIndexStorage } from './semantic-index.js';
export type { Fingerprint, FingerprintFields } from './fingerprint.js';
export type { ProjectConsent } from './consent.js';
export type { SemanticStatusReason, ChunkCounts, ProjectIndexStatus } from './status.js';
export type { SemanticWorker, WorkerHealth, WorkerStateName, BatchReport } from './worker.js';

export type { QueryEmbedder, ScopedSemanticSource, SemanticStatusReport, SourceFusionHints, SourceHit } from './scoped-source.js';
/** The semantic source over the storage ports (a Storage with semantic rows, e.g. PostgreSQL + pgvector). */
export { storageSemanticSource } from './storage-source.js';
export type { StorageSemanticSource, StorageSemanticSourceOptions } from './storage-source.js';
export type { SemanticScope, AllowedSetSource, AsyncAllowedSetSource } from './allowed-set.js';
export { MatrixCache } from './matrix-cache.js';
export type { MatrixCacheStats } from './matrix-cache.js';

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
  SemanticSearchUnavailableError,
  RerankUnavailableError,
  RerankRequestError,
  RerankAbortedError,
} from './errors.js';

