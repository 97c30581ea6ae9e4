/**
 * Public surface of @recall/importers: conversation history into a Recall profile database.
 * Two kinds of input: the `recall-jsonl` v1 format (docs/import-format.md) and the agents' own
 * history — Claude Code transcripts, Codex rollouts and Hermes state.db files (docs/importers.md),
 * imported once or kept in step by live sync. Every importer is idempotent (re-running writes only
 * what is new), reports refused lines in its summary with stable codes instead of throwing, and
 * writes only through the storage ports (@recall/storage-ports; SQLite or PostgreSQL). A recall-jsonl import resolves to the wire object
 * `ImportSummary` of @recall/rpc-contract.
 */

// ---------------------------------------------------------------------------------------------
// Where an import writes

export type {
  /** A storage of either adapter (@recall/storage-ports), or an open SQLite profile database (wrapped in the SQLite adapter). */
  ImportTarget,
} from './target.js';

// ---------------------------------------------------------------------------------------------
// recall-jsonl v1

export {
  /** Streams a recall-jsonl file from disk in batched write transactions; resolves to its summary. */
  importJsonlFile,
  /** Imports a whole recall-jsonl document held in memory (e.g. the body of an RPC call). */
  importJsonlText,
  /** Imports recall-jsonl from any (async) iterable of text lines; the driver behind the file and text entry points. */
  importJsonlLines,
  /** Validates one recall-jsonl line without writing anything; never throws (a line error carries its stable code). */
  parseLine,
  /** zod schema of a `project` line (snake_case, as in the file). */
  projectLineSchema,
  /** zod schema of a `session` line (snake_case, as in the file). */
  sessionLineSchema,
  /** zod schema of a `message` line (snake_case, as in the file). */
  messageLineSchema,
  /** Lines applied per write transaction unless `batchLines` says otherwise. */
  DEFAULT_IMPORT_BATCH_LINES,
  /** At most this many line errors are kept in a summary's `errors`; `errorCount` has the full number. */
  MAX_REPORTED_ERRORS,
} from './recall-jsonl.js';
export {
  /** The longest line any importer reads (8 MiB of UTF-8, newline excluded); a longer one is skipped as `line_too_long`, never read into memory. */
  MAX_LINE_BYTES,
} from './line-reader.js';
export type {
  /** Batch size and a progress callback for a recall-jsonl import. */
  ImportOptions,
  /** Progress after each committed batch of a recall-jsonl import. */
  ImportProgress,
  /** A refused recall-jsonl line: 1-based line number, stable code, message. */
  ImportLineError,
  /** A parsed line: the validated record, or its line error. */
  ParsedLine,
  /** Any validated recall-jsonl record. */
  ImportRecord,
  /** A validated `project` line. */
  ProjectLine,
  /** A validated `session` line. */
  SessionLine,
  /** A validated `message` line. */
  MessageLine,
} from './recall-jsonl.js';

// ---------------------------------------------------------------------------------------------
// Claude Code, Codex and Hermes history

export {
  /** Every format `recall import --from` accepts: the three agents' and recall-jsonl. */
  IMPORT_FORMATS,
  /** The `sessions.source` values of conversations imported from the agents' own history. */
  IMPORTED_SOURCES,
  /** Put before a tool result the tool itself reported as failed (Claude Code `is_error`, a Codex non-zero exit code). */
  TOOL_ERROR_MARKER,
} from './records.js';
export type {
  /** One of IMPORT_FORMATS. */
  ImportFormat,
} from './records.js';
export {
  /** The transcript files of a Claude Code or Codex folder (or the file itself), in import order. */
  transcriptFiles,
  /** Imports Claude Code or Codex transcript files (optionally resuming from per-file checkpoints). */
  importTranscripts,
  /** Imports one Hermes state.db, opened read-only (optionally from a message cursor). */
  importHermes,
} from './source-import.js';
export type {
  /** `claude-code` or `codex`: the JSONL transcript formats. */
  TranscriptFormat,
  /** Project mapping, dry run, batch size and progress callback of an import run. */
  SourceRunOptions,
  /** Progress of an import run, by files and bytes (JSONL) or rows (Hermes). */
  ImportProgressInfo,
  /** Where a transcript file was read up to (offset, line, reader state), so a later run resumes there. */
  FileCheckpoint,
} from './source-import.js';
export {
  /** Records per write transaction of an import run unless `batchSize` says otherwise. */
  DEFAULT_SOURCE_BATCH,
  /** At most this many errors are kept in a summary's `errors`; `errorCount` has the full number. */
  MAX_REPORTED_SOURCE_ERRORS,
} from './apply.js';
export type {
  /** What an import run did (or, in a dry run, would do), with per-project counts and errors. */
  SourceImportSummary,
} from './apply.js';
export type {
  /** Which project new root sessions go to: none, one given project, or one project per folder. */
  ProjectMapping,
  /** A refused record: file, line (or Hermes message id), stable code, message. */
  SourceLineError,
  /** New sessions and messages of one owning project in a SourceImportSummary. */
  ProjectCount,
} from './counts.js';
export type {
  /** Per-file reader state of a Claude Code transcript (part of a FileCheckpoint). */
  ClaudeCodeFileState,
} from './claude-code.js';
export type {
  /** Per-file reader state of a Codex rollout (part of a FileCheckpoint). */
  CodexFileState,
} from './codex.js';
export {
  /** The state.db files of a Hermes path: the file itself, or a Hermes home's default and per-profile stores. */
  hermesStores,
  /** The Hermes columns read (required ones must exist, optional ones read as NULL when absent). */
  HERMES_COLUMNS,
} from './hermes.js';
export type {
  /** A Hermes state.db and the Recall profile it maps to (null = the profile the caller runs with). */
  HermesStore,
  /** The highest Hermes message id already imported from a store. */
  HermesCursor,
} from './hermes.js';
export {
  /** The Recall session a host means by its own transcript id: the newest compression continuation of an imported one. */
  hostSession,
} from './host-session.js';

// ---------------------------------------------------------------------------------------------
// Live sync

export {
  /** Keeps a database in step with transcript folders and Hermes stores (watch + poll, persisted checkpoints). */
  LiveSync,
  /** The sync-state.json path of a profile under a Recall home. */
  syncStatePath,
  /** Reads a saved sync state (sources, mapping, checkpoints, recent errors), or null when there is none. */
  loadSyncState,
  /** At most this many recent sync errors are kept in the saved state. */
  MAX_SYNC_ERRORS,
} from './live-sync.js';
export type {
  /** Database, state file, sources, mapping, interval and callbacks of a LiveSync. */
  LiveSyncOptions,
  /** One watched source: a format and a path. */
  SyncSource,
  /** The persisted sync state: sources, mapping, per-file / per-store checkpoints and recent errors. */
  SyncState,
  /** What one sync pass imported (messages, sessions, files read) and refused (its errors). */
  SyncPassResult,
  /** A sync error as saved in the state: a refused line (passed) or a failed file (retried), with when it was seen. */
  SyncError,
} from './live-sync.js';

// ---------------------------------------------------------------------------------------------
// Errors

export {
  /** Base class of the errors that stop a whole import; carries a stable string `code` and scalar `details`. */
  ImporterError,
  /** `hermes_schema_unsupported`: the file is not a Hermes state.db this importer can read. */
  HermesSchemaError,
  /** `export_too_large`: an export held in memory (`exportText`) passed its bound; write it to a file instead. */
  ExportTooLargeError,
  /** An import stopped part-way (code of the cause, e.g. `disk_full`); `committed` says exactly what is saved. */
  ImportAbortedError,
} from './errors.js';
/** What an aborted import had committed (`ImportAbortedError.committed`). */
export type { CommittedCounts } from './errors.js';

// ---------------------------------------------------------------------------------------------
// Export (recall-jsonl that round-trips through the importer, Markdown for people)

export {
  /** Writes the export of a project or a logical conversation piece by piece through the storage ports, in one read scope; resolves with counts. */
  exportConversations,
  /** The whole export as one string, bounded (for RPC answers); throws ExportTooLargeError past the bound. */
  exportText,
  /** A safe file name for an export (title + `.jsonl` / `.md`). */
  exportFileName,
  /** Default bound of exportText in characters (32 MiB). */
  MAX_EXPORT_TEXT_CHARS,
} from './export.js';
export type {
  /** `recall-jsonl` or `markdown` (the contract's EXPORT_FORMAT_NAMES). */
  ExportFormat,
  /** What to export: `{ projectId }` or `{ sessionId }` (its whole logical conversation). */
  ExportScope,
  /** Projects, sessions and messages an export wrote. */
  ExportCounts,
} from './export.js';
