/**
 * `@recall/search-tool/internal`: the fusion tuning knobs `pnpm tune:fusion` (tooling/bench)
 * sweeps. NOT a public API: no compatibility promise, may change in any release. Hosts use the
 * main entry; the tool applies these defaults (or a semantic source's `fusion` hints) itself.
 */
export { fuseRankings, FUSION_DEFAULTS } from './fusion.js';
export type { FusionCandidate, FusionForm, FusionParams } from './fusion.js';
export { blendRerank, retrievalWeight } from './reranker.js';
