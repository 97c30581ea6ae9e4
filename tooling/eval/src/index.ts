/**
 * `@recall/gateway-rpc/internal`: building blocks of the gateway that the repository's own tooling
 * (the benches in tooling/bench) drives directly, below the public surface of the main entry point.
 * Not a stable API: names and signatures follow the gateway's needs and may change in any release.
 */

/** Where `recall eval` reads the shared evaluation data (`../shared/data` next to the repository). */
export { DEFAULT_DATA_DIR } from './eval/eval.js';
/** LoCoMo conversations → the eval's dataset (projects, sessions, messages, questions with evidence). */
export { loadLocomo } from './eval/locomo.js';
/** The raw LoCoMo conversation record, as in locomo10.json. */
export type { LocomoConversation } from './eval/locomo.js';
/** The id of the session the eval asks a project's questions from (excluded from its own search). */
export { askerSessionId } from './eval/runner.js';
/** Imports an eval dataset into a database through the real recall-jsonl importer. */
export { importDataset } from './eval/runner.js';
/** Wraps an embedding provider in the eval's on-disk embedding cache (outside the repository). */
export { cachedProvider } from './eval/embedding-cache.js';
/** The cached provider, with its hit/miss counters. */
export type { CachedProvider } from './eval/embedding-cache.js';
