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
