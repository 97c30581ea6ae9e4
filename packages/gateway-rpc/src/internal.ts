/**
 * `@recall/gateway-rpc/internal`: building blocks of the gateway that the repository's own tooling
 * (the benches in tooling/bench) drives directly, below the public surface of the main entry point.
 * Not a stable API: names and signatures follow the gateway's needs and may change in any release.
 */

/** Imports recall-jsonl text into a database (the importer behind `recall import --from recall-jsonl`). */
export { importJsonlText } from './import-jsonl.js';
/** Streams a recall-jsonl file into a database, line by line. */
export { importJsonlFile } from './import-jsonl.js';
/** Options and summary of a recall-jsonl import. */
export type { ImportOptions, ImportSummary } from './import-jsonl.js';
/** Imports Claude Code or Codex transcript files (the importer behind `recall import --from claude-code|codex`). */
export { importTranscripts } from './importers/source-import.js';
/** The transcript files of a format under a file or folder, in a stable order. */
export { transcriptFiles } from './importers/source-import.js';
/** The transcript formats importTranscripts reads. */
export type { TranscriptFormat } from './importers/source-import.js';
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
