/**
 * Typed errors of the PostgreSQL store. Every class carries a stable string `code`; only
 * gateway-rpc maps codes to numeric JSON-RPC errors (this package is not wired into it yet).
 */
export class RecallPostgresError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RecallPostgresError';
    this.code = code;
  }
}

/** The connection URL is not a postgres:// or postgresql:// URL. */
export class InvalidPostgresUrlError extends RecallPostgresError {
  constructor(detail: string) {
    super('invalid_postgres_url', `Invalid PostgreSQL URL: ${detail}`);
    this.name = 'InvalidPostgresUrlError';
  }
}

/** Applying the embedded migrations failed; the transaction was rolled back. */
export class PostgresMigrationError extends RecallPostgresError {
  constructor(message: string, cause?: unknown) {
    super('postgres_migration_failed', message, { cause });
    this.name = 'PostgresMigrationError';
  }
}

/** A keyword search argument is out of range (empty project id, non-positive limit, …). */
export class InvalidKeywordSearchError extends RecallPostgresError {
  constructor(message: string) {
    super('invalid_keyword_search', message);
    this.name = 'InvalidKeywordSearchError';
  }
}
