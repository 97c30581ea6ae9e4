/**
 * Public surface of @recall/eval (private, never published): the retrieval evaluation's building
 * blocks, for the repository's other tooling (tooling/bench's fusion tuning and semantic seed) to
 * measure on the same data the same way. The evaluation itself is the command `pnpm eval`
 * (src/main.ts). Not a stable API: it follows the eval's needs.
 */

/** Where the eval reads the shared evaluation data (`../shared/data` next to the repository). */
export { DEFAULT_DATA_DIR } from './eval.js';
/** The repository root (the eval reads docs/, tooling/scripts and the store's CJK fixture from it). */
export { REPO_ROOT } from './eval.js';
/** Runs the evaluation: loads the requested datasets, imports each into a temp home, asks every question, writes what was asked for. */
export { runEval } from './eval.js';
/** The generated Markdown section (tables, notes, machine line, command) of a finished run. */
export { markdownSection } from './eval.js';
/** The datasets the eval knows (`locomo`, `memorybank`). */
export { DATASETS } from './eval.js';
/** Options of `runEval`, one evaluated dataset's report, a dataset name, and how the tool is built. */
export type { EvalOptions, DatasetReport, DatasetName, ToolFactory } from './eval.js';
/** LoCoMo conversations → the eval's dataset (projects, sessions, messages, questions with evidence). */
export { loadLocomo } from './locomo.js';
/** The raw LoCoMo conversation record, as in locomo10.json. */
export type { LocomoConversation } from './locomo.js';
/** The id of the session the eval asks a project's questions from (excluded from its own search). */
export { askerSessionId } from './runner.js';
/** Imports an eval dataset into a database through the real recall-jsonl importer. */
export { importDataset } from './runner.js';
/** Wraps an embedding provider in the eval's on-disk embedding cache (outside the repository). */
export { cachedProvider } from './embedding-cache.js';
/** The cached provider, with its hit/miss counters. */
export type { CachedProvider } from './embedding-cache.js';
/** session_search without a semantic source, as the product composes it. */
export { keywordTools } from './tools.js';
/** session_search with a semantic index attached, as the product composes it. */
export { semanticSearchTool } from './tools.js';
/** Errors of the eval, with stable string codes (`eval_data_missing`, `eval_usage`). */
export { EvalError, EvalDataMissingError, EvalUsageError } from './errors.js';
/** Stable codes of @recall/eval errors. */
export type { EvalErrorCode } from './errors.js';
