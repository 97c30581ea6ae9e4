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

/**
 * Code `storage_unavailable` (retryable): the database could not be reached or the connection was
 * lost mid-request (a restart, a failover, a network cut). The pool opens new connections for the
 * next request. The driver's own message (it can name hosts and users) is kept only as `cause`.
 */
export class DatabaseUnreachableError extends RecallPostgresError {
  /** Always true: the same request can succeed once the database is back. */
  readonly retryable = true;
  readonly details = { retryable: true };
  constructor(cause?: unknown) {
    super('storage_unavailable', 'The team database cannot be reached right now (it may be restarting); try again in a moment.', { cause });
    this.name = 'DatabaseUnreachableError';
  }
}
