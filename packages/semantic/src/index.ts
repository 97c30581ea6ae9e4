/**
 * Public surface of @recall/semantic (stage B): configuration, embedding providers (the built-in
 * offline USE-lite model and any OpenAI-compatible /v1/embeddings server), the chunker,
 * fingerprints, per-project consent, the planner and worker, status, the `SemanticIndex` facade a
 * host holds per profile, the typed errors, and the exact vector scan (bounded top-k over the
 * project's allowed set). Explicit named exports only.
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
export type { EmbeddingProvider, ProviderAvailability, ProviderInfo, EmbedOptions, CreateProviderOptions } from './provider.js';
export { createOpenAICompatibleProvider } from './openai-provider.js';
export type { OpenAICompatibleProviderOptions, ProviderLogger } from './openai-provider.js';
export { createUseLiteProvider, USE_LITE_PACKAGES } from './use-lite-provider.js';
export type { UseLiteProviderOptions } from './use-lite-provider.js';
export { chunkText, contentHash, estimateTokens, looksBinary, payloadRanges, CHUNKER_VERSION, MAX_CHUNKS_PER_MESSAGE, PAYLOAD_MIN_RUN } from './chunker.js';
export type { Chunk, ChunkerOptions } from './chunker.js';
export { ensureFingerprint, findFingerprint, listFingerprints, fingerprintFields, fingerprintKey } from './fingerprint.js';
export type { Fingerprint, FingerprintFields } from './fingerprint.js';
export { enableProject, disableProject, projectConsent, listConsents, consentAllows } from './consent.js';
export type { ProjectConsent } from './consent.js';
export { discoverNewMessages, messageMark, undiscoveredSessions } from './discovery.js';
export type { DiscoveryOptions, DiscoveryResult } from './discovery.js';
export { planDirtySessions, queueUnplannedProjects } from './planner.js';
export type { PlanOptions, PlanResult } from './planner.js';
export { claimChunks, completeChunks, failChunks, releaseLeases, releaseDeadLeases, stillConsented, retryDelayMs, newWorkerId } from './claims.js';
export type { ClaimedChunk, ClaimOptions, CompleteResult } from './claims.js';
export { SemanticWorker, WRITE_GAP_MS } from './worker.js';
export type { WorkerHealth, WorkerStateName, BatchReport, SemanticWorkerOptions } from './worker.js';
export { semanticStatus, chunkCounts, toolStatus } from './status.js';
export type { SemanticStatusName, SemanticStatusReason, ChunkCounts, ProjectIndexStatus, SemanticStatusInput } from './status.js';
export { SemanticIndex } from './semantic-index.js';
export type { SemanticIndexOptions, SemanticIndexEvent, EnableResult, IndexOverview } from './semantic-index.js';
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
export { loadAllowedSet, projectGeneration, type AllowedSegment, type AllowedSet, type SemanticScope } from './allowed-set.js';
export { MatrixCache, DEFAULT_MATRIX_CACHE_BYTES, type MatrixCacheStats } from './matrix-cache.js';
export { allowedSetFor, searchAllowedSet, type ExactSearchOptions, type ScopedHit } from './exact-search.js';
export {
  createScopedSemanticSource,
  createConfiguredSemanticSource,
  type ConfiguredSourceOptions,
  type ActiveFingerprint,
  type QueryEmbedder,
  type ScopedSemanticSource,
  type ScopedSemanticSourceOptions,
  type SemanticStatusReport,
  type SourceFusionHints,
  type SourceHit,
} from './scoped-source.js';
