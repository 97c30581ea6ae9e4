/**
 * Typed errors of the schema package: opening and migrating a profile database. Every class carries
 * a stable string `code`; only gateway-rpc maps codes to numeric JSON-RPC errors.
 */
/** Base class of the schema package's errors; `code` is a stable string (`invalid_profile`, `migration_failed`). */
export class RecallSchemaError extends Error {
  /** Stable string code; match on this, not on the message. */
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RecallSchemaError';
    this.code = code;
  }
}

/** Code `invalid_profile`: a profile name is not 1-64 letters, digits, `-` or `_`. */
export class InvalidProfileNameError extends RecallSchemaError {
  constructor(name: string) {
    super('invalid_profile', `Invalid profile name ${JSON.stringify(name)}: use 1-64 letters, digits, "-" or "_".`);
    this.name = 'InvalidProfileNameError';
  }
}

/** Code `migration_failed`: a migration failed (the cause is attached), left foreign key violations, or `migrateUpTo` named no migration. */
export class MigrationError extends RecallSchemaError {
  constructor(message: string, cause?: unknown) {
    super('migration_failed', message, { cause });
    this.name = 'MigrationError';
  }
}
