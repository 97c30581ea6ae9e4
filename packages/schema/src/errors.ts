/**
 * Typed errors of the schema package: opening and migrating a profile database. Every class carries
 * a stable string `code`; only gateway-rpc maps codes to numeric JSON-RPC errors.
 */
export class RecallSchemaError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RecallSchemaError';
    this.code = code;
  }
}

export class InvalidProfileNameError extends RecallSchemaError {
  constructor(name: string) {
    super('invalid_profile', `Invalid profile name ${JSON.stringify(name)}: use 1-64 letters, digits, "-" or "_".`);
    this.name = 'InvalidProfileNameError';
  }
}

export class MigrationError extends RecallSchemaError {
  constructor(message: string, cause?: unknown) {
    super('migration_failed', message, { cause });
    this.name = 'MigrationError';
  }
}
