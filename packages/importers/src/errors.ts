/**
 * Typed errors of the importers. Each class carries a stable string `code` that callers switch on
 * (only gateway-rpc maps codes to numeric JSON-RPC errors) and scalar `details`. These are errors
 * that stop a whole import; a refused line or record is not thrown but reported in the import's
 * summary with its own stable code (recall-jsonl.ts, apply.ts).
 */
export class ImporterError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown>;
  constructor(code: string, message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

/**
 * Errors that stop an import rather than refuse one line, although the store throws them: a full
 * disk (`disk_full`) fails every line after it just the same.
 */
export function abortsImport(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === 'disk_full';
}

/**
 * Counts of what an import had committed when it stopped (the same fields as its summary): every
 * batch before the failing one is in the database, nothing of the failing one is.
 */
export interface CommittedCounts {
  /** Lines (records) whose outcome is committed. */
  lines: number;
  projects: number;
  sessions: number;
  sessionsUpdated: number;
  messages: number;
  /** Already present (skipped as duplicates). */
  skipped: number;
  /** Lines rejected (with their own codes) among the committed ones. */
  errorCount: number;
  /** 1-based number of the last line of the input whose outcome is committed (0 = none, or several files). */
  lastCommittedLine: number;
}

/**
 * An import stopped part-way by an error that fails every further write (`code` is the cause's, e.g.
 * `disk_full`). `committed` (also in `details`, scalar) is exactly what is in the database: run the
 * same import again once the cause is fixed and the committed lines are skipped as already present.
 */
export class ImportAbortedError extends ImporterError {
  readonly committed: CommittedCounts;
  constructor(cause: Error & { code: string }, committed: CommittedCounts) {
    const what = `${committed.projects} project(s), ${committed.sessions} new and ${committed.sessionsUpdated} updated conversation(s), ${committed.messages} message(s)`;
    const where =
      committed.lines === 0 ? 'nothing of it was saved' : committed.lastCommittedLine > 0 ? `everything up to line ${committed.lastCommittedLine} is saved (${what})` : `${committed.lines} record(s) are saved (${what})`;
    super(cause.code, `${cause.message} The import stopped: ${where}. Running the same import again later skips what is already saved.`, { ...committed }, { cause });
    this.committed = committed;
  }
}

/**
 * A Hermes state.db lacks a table or a required column the importer reads (`details.path`). The
 * store's reader (`@recall/store/hermes-state`) finds it and throws HermesStateSchemaError with the
 * same code; the importer rethrows it as this class (the store's error is `cause`).
 */
export class HermesSchemaError extends ImporterError {
  constructor(path: string, detail: string, options?: { cause?: unknown }) {
    super('hermes_schema_unsupported', `${path} is not a Hermes state.db this importer can read: ${detail}`, { path }, options);
  }
}

/**
 * Code `export_too_large`: the export is longer than an answer may carry (`details.maxChars`); write
 * it to a file with `recall export --to FILE` instead, which has no bound.
 */
export class ExportTooLargeError extends ImporterError {
  constructor(maxChars: number) {
    super('export_too_large', `This export is larger than ${Math.round(maxChars / 2 ** 20)} MiB, too large to download here. Use "recall export --to FILE" instead.`, { maxChars });
  }
}
