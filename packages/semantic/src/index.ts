/**
 * @recall/semantic: the semantic layer (stage B). Exact vector scan (bounded top-k over the
 * project's allowed set), and the SemanticSource that session_search uses.
 */
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
