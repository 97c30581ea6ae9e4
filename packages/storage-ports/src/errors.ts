/**
 * Typed errors of the storage ports themselves (choosing and opening a backend). The domain errors
 * every adapter throws (project_not_found, session_not_found, invalid_lineage, …) keep their one
 * home, @recall/store's errors.ts (importable without SQLite as `@recall/store/portable`); their codes
 * are listed here as `StorageErrorCode`, and the conformance suite checks both adapters throw them.
 */

/**
 * The stable `code` of every error a storage adapter throws for bad input or a refused write — the
 * same set on SQLite and PostgreSQL (the classes are @recall/store's; match on `code`).
 */
export type StorageErrorCode =
  | 'invalid_input'
  | 'project_not_found'
  | 'session_not_found'
  | 'message_not_found'
  | 'project_has_sessions'
  | 'project_archived'
  | 'folder_in_use'
  | 'invalid_folder'
  | 'session_exists'
  | 'invalid_lineage'
  | 'session_already_compressed'
  | StoragePortErrorCode;

/** Codes of the errors this package defines (see StoragePortError's subclasses). */
export type StoragePortErrorCode = 'invalid_storage_config' | 'storage_unavailable' | 'storage_unsupported';

/** Base class of the storage ports' own errors; `code` is stable, `details` names what was involved (never a password). */
export class StoragePortError extends Error {
  /** Stable string code to switch on. */
  readonly code: StoragePortErrorCode;
  /** What was involved (kind, operation); never a connection URL with its password. */
  readonly details: Record<string, unknown>;
  constructor(code: StoragePortErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

/** Code `invalid_storage_config`: the storage configuration is not one openStorage() accepts (`details.reason`). */
export class StorageConfigError extends StoragePortError {
  constructor(reason: string) {
    super('invalid_storage_config', `The storage configuration is not valid: ${reason}.`, { reason });
  }
}

/** Code `storage_unavailable`: no adapter for this kind of storage was given to openStorage() (`details.kind`). */
export class StorageUnavailableError extends StoragePortError {
  constructor(kind: string) {
    super('storage_unavailable', `Storage of kind ${JSON.stringify(kind)} is not available in this installation.`, { kind });
  }
}

/**
 * Code `storage_unsupported`: this adapter does not implement the operation yet (`details.operation`,
 * `details.kind`); nothing was read or written.
 */
export class StorageUnsupportedError extends StoragePortError {
  constructor(kind: string, operation: string) {
    super('storage_unsupported', `The ${kind} storage does not support ${operation} yet.`, { kind, operation });
  }
}
