/**
 * `@recall/semantic/internal`: the pieces of the index pipeline and the vector scan that
 * tooling/bench measures on their own (chunking, fingerprint fields, the exact scan kernels). NOT
 * a public API: no compatibility promise, may change in any release. Hosts use the main entry
 * (`SemanticIndex`) and the adapters' (`@recall/semantic/sqlite`), which drive all of this
 * themselves; the SQLite adapter's own pieces (planning, claims, fingerprint and consent rows,
 * the scoped scan) are in `@recall/semantic/sqlite/internal`.
 */
export { chunkText } from './chunker.js';
export type { Chunk, ChunkerOptions } from './chunker.js';
export { WRITE_GAP_MS } from './worker.js';
export { fingerprintFields } from './fingerprint.js';
export type { FingerprintFields } from './fingerprint.js';
export { vectorToBlob } from './provider.js';
export { TopK } from './topk.js';
export type { ScoredRow } from './topk.js';
export { INT8_CANDIDATES, loadUsearch, normalizeL2, scanTopK } from './vector-scan.js';
export type { ScanBackend, ScanOptions, VectorMatrix } from './vector-scan.js';
export { quantizeMatrix } from './int8-scan.js';
export type { Int8ScanStats, QuantizedMatrix } from './int8-scan.js';
export type { AllowedSegment, AllowedSet } from './allowed-set.js';
export type { ExactSearchOptions, ScopedHit } from './exact-search.js';
export { cachedChunkSearch } from './port-search.js';
export type { CachedSearchCounters } from './port-search.js';
export { searchAllowedSetAsync, StaleVectorError } from './exact-search.js';
export type { StoredChunk, StoredChunkReader } from './exact-search.js';
export { scanQuantizedTopKAsync } from './vector-scan.js';
export type { AsyncQuantizedScanOptions } from './vector-scan.js';
