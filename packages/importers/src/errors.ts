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

/** A Hermes state.db lacks a table or a required column the importer reads (`details.path`). */
export class HermesSchemaError extends ImporterError {
  constructor(path: string, detail: string) {
    super('hermes_schema_unsupported', `${path} is not a Hermes state.db this importer can read: ${detail}`, { path });
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
