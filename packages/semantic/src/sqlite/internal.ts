/**
 * `@recall/semantic/sqlite/internal`: the SQLite adapter's pieces that tooling/bench and tests
 * drive on their own (planning, lease claims and re-checked writes, fingerprint and consent rows,
 * the allowed set and its scoped scan). NOT a public API: no compatibility promise, may change in
 * any release. Hosts use `@recall/semantic/sqlite` (`sqliteSemanticIndex`, `createConfiguredSemanticSource`).
 */
export { planDirtySessions } from './planner.js';
export type { PlanOptions, PlanResult } from './planner.js';
export { claimChunks, completeChunks, releaseDeadLeases } from './claims.js';
export type { ClaimedChunk, ClaimOptions, CompleteResult } from './claims.js';
export { ensureFingerprint } from './fingerprint.js';
export { enableProject } from './consent.js';
export { allowedSetFor, searchScope } from './exact-search.js';
