/**
 * `@recall/semantic/internal`: the pieces of the index pipeline and the vector scan that
 * tooling/bench measures on their own (chunking, planning, lease claims and re-checked writes,
 * fingerprints and consent rows, the exact scan kernels). NOT a public API: no compatibility
 * promise, may change in any release. Hosts use the main entry (`SemanticIndex`,
 * `createConfiguredSemanticSource`), which drives all of this itself.
 */
export { chunkText } from './chunker.js';
export type { Chunk, ChunkerOptions } from './chunker.js';
export { planDirtySessions } from './planner.js';
export type { PlanOptions, PlanResult } from './planner.js';
export { claimChunks, completeChunks, releaseDeadLeases } from './claims.js';
export type { ClaimedChunk, ClaimOptions, CompleteResult } from './claims.js';
export { WRITE_GAP_MS } from './worker.js';
export { ensureFingerprint, fingerprintFields } from './fingerprint.js';
export type { FingerprintFields } from './fingerprint.js';
export { enableProject } from './consent.js';
export { vectorToBlob } from './provider.js';
export { TopK } from './topk.js';
export type { ScoredRow } from './topk.js';
export { INT8_CANDIDATES, loadUsearch, normalizeL2, scanTopK } from './vector-scan.js';
export type { ScanBackend, ScanOptions, VectorMatrix } from './vector-scan.js';
export { quantizeMatrix } from './int8-scan.js';
export type { Int8ScanStats, QuantizedMatrix } from './int8-scan.js';
export type { AllowedSegment, AllowedSet } from './allowed-set.js';
export { allowedSetFor, searchScope } from './exact-search.js';
export type { ExactSearchOptions, ScopedHit } from './exact-search.js';
