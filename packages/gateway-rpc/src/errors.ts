/**
 * Errors of the gateway and THE one mapping from stable string error codes to numeric JSON-RPC
 * error codes. Every package below us (schema, store, importers, search-tool) throws errors that carry a
 * stable string `code`; only this module turns them into wire errors. The numbers themselves are
 * part of the wire contract (the desktop reads them too), so their table lives in
 * @recall/rpc-contract (import it from there) and docs/rpc.md lists it. Anything that is not a
 * recognised domain error becomes -32603 "Internal error" with no message or stack of the original
 * exception on the wire (it goes to the server's logger instead), because internal messages can
 * contain paths, SQL or user data.
 */
import {
  DOMAIN_ERROR_CODES,
  DOMAIN_ERROR_FALLBACK,
  JSONRPC_INTERNAL_ERROR,
  JSONRPC_INVALID_PARAMS,
  type DomainErrorCode,
} from '@recall/rpc-contract';
import { ChatModuleError } from '@recall/chat';
import { ImporterError } from '@recall/importers';
import { RecallSchemaError } from '@recall/schema';
import { StoreError } from '@recall/store';
import { ZodError } from 'zod';

/**
 * Base class of the gateway's own errors (config, token, transport) and of the host's coded errors:
 * `code` is a stable string (matched by `toJsonRpcError` against rpc-contract's DOMAIN_ERROR_CODES,
 * else -32000) and `data` holds scalar details sent along on the wire. Extend it, or throw it with
 * your own code, to answer a JSON-RPC call with a user-facing error.
 */
export class GatewayError extends Error {
  readonly code: string;
  readonly data: Record<string, unknown> | undefined;
  constructor(code: string, message: string, options?: { cause?: unknown; data?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.data = options?.data;
  }
}

/** Invalid settings (`code` `invalid_config`): chat or semantic configuration, or a config file; `data` says which field. */
export class ConfigError extends GatewayError {
  constructor(message: string, data?: Record<string, unknown>) {
    super('invalid_config', message, data === undefined ? undefined : { data });
    this.name = 'ConfigError';
  }
}

/** `<home>/gateway.token` cannot be created or holds no valid token (`code` `invalid_token_file`); delete the file to get a new one. */
export class TokenFileError extends GatewayError {
  constructor(message: string, cause?: unknown) {
    super('invalid_token_file', message, { cause });
    this.name = 'TokenFileError';
  }
}

/**
 * Thrown inside the protocol layer (and usable by handlers) to answer with an exact JSON-RPC
 * error, e.g. -32602 for params the zod schema could not express.
 */
export class JsonRpcError extends Error {
  readonly rpcCode: number;
  readonly data: unknown;
  constructor(rpcCode: number, message: string, data?: unknown) {
    super(message);
    this.name = 'JsonRpcError';
    this.rpcCode = rpcCode;
    this.data = data;
  }
}

/** The `error` member of a JSON-RPC response: numeric `code`, message, and `data` (`{ code: <stable string>, … }` for domain errors). */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** Where `toJsonRpcError` reports unexpected exceptions (with their stack); any `GatewayLogger` will do. */
export interface ErrorLogger {
  error(message: string, meta?: Record<string, unknown>): void;
}

/** Bounded, path + message only: enough for a UI to point at the field, never the whole input echoed back. */
export function zodIssues(error: ZodError, max = 20): { path: (string | number)[]; code: string; message: string }[] {
  return error.issues.slice(0, max).map((issue) => ({
    path: issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
    code: issue.code,
    message: issue.message,
  }));
}

export function invalidParams(error: ZodError): JsonRpcError {
  return new JsonRpcError(JSONRPC_INVALID_PARAMS, 'Invalid params', { code: 'invalid_params', issues: zodIssues(error) });
}

/** Numeric code for a stable string code; undefined when the code is not in the table. */
export function rpcCodeFor(code: string): number | undefined {
  return Object.hasOwn(DOMAIN_ERROR_CODES, code) ? DOMAIN_ERROR_CODES[code as DomainErrorCode] : undefined;
}

/**
 * Base classes whose instances are deliberate, user-facing domain errors (their message is safe to
 * send): ours, the store's, the schema package's, the importers' and the chat package's (ChatError,
 * its config and shutdown refusals). Other packages' bases (the semantic layer's, whose messages are
 * redacted of keys; the search tool's) are added with registerDomainErrorClass() by whoever composes
 * them — the gateway never imports stage B.
 */
const domainErrorClasses: (abstract new (...args: never[]) => Error)[] = [GatewayError, StoreError, RecallSchemaError, ImporterError, ChatModuleError];
/**
 * Marks instances of `base` (and its subclasses) as deliberate, user-facing errors: their `message`
 * and scalar details go on the wire under their `code`, instead of a bare -32603. Call it once for
 * every error base class of a package you compose into the gateway (e.g. `SemanticError`); idempotent.
 */
export function registerDomainErrorClass(base: abstract new (...args: never[]) => Error): void {
  if (!domainErrorClasses.includes(base)) domainErrorClasses.push(base);
}

function isDomainError(error: Error & { code: string }): boolean {
  return rpcCodeFor(error.code) !== undefined || domainErrorClasses.some((base) => error instanceof base);
}

/** A write that failed for want of space, from a layer that did not map it itself (the store does: DiskFullError). */
function isDiskFull(code: string): boolean {
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT';
}

function isSqliteBusy(code: string): boolean {
  return code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED' || code.startsWith('SQLITE_LOCKED_');
}

/**
 * A lost or refused database connection (PostgreSQL team mode): SQLSTATE class 08 (connection
 * exception), 57P01-57P03 (server shutting down, crashed, not accepting connections yet) and the
 * socket errors the pg driver passes through. Retrying later can succeed.
 */
function isConnectionLoss(code: string): boolean {
  return /^08[0-9A-Z]{3}$/.test(code) || code === '57P01' || code === '57P02' || code === '57P03' || code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ETIMEDOUT' || code === 'EPIPE';
}

const SCALAR = new Set(['string', 'number', 'boolean']);

/**
 * Structured details of a domain error (e.g. `sessionCount` of project_has_sessions), limited to
 * scalar fields plus sanitised zod issues, so no nested internal object is ever echoed.
 */
function safeDetails(error: Error): Record<string, unknown> {
  const raw = (error as { details?: unknown; data?: unknown }).details ?? (error as { data?: unknown }).data;
  if (typeof raw !== 'object' || raw === null) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'code') continue;
    if (value === null || SCALAR.has(typeof value)) out[key] = typeof value === 'string' ? value.slice(0, 1000) : value;
    else if (key === 'issues' && Array.isArray(value)) {
      out.issues = value.slice(0, 20).map((issue: { path?: unknown; message?: unknown; code?: unknown }) => ({
        path: Array.isArray(issue?.path) ? issue.path.filter((p) => typeof p === 'string' || typeof p === 'number') : [],
        code: typeof issue?.code === 'string' ? issue.code : 'invalid',
        message: typeof issue?.message === 'string' ? issue.message.slice(0, 500) : 'invalid value',
      }));
    }
  }
  return out;
}

/**
 * The single exception → wire error mapping. Domain errors keep their (user-facing) message and
 * get `data.code` plus scalar details; SQLITE_BUSY becomes the retryable `busy` code, SQLITE_FULL /
 * ENOSPC not mapped below us `disk_full`, a lost database connection (or a storage_unavailable
 * error) the retryable `storage_unavailable`; zod errors
 * become -32602; everything else is logged to `logger` and answered with a bare -32603. Never throws.
 */
export function toJsonRpcError(error: unknown, logger?: ErrorLogger, method?: string): JsonRpcErrorObject {
  if (error instanceof JsonRpcError) {
    return error.data === undefined ? { code: error.rpcCode, message: error.message } : { code: error.rpcCode, message: error.message, data: error.data };
  }
  if (error instanceof ZodError) {
    // A lower layer validated its own input with zod: still the caller's params that were wrong.
    return { code: JSONRPC_INVALID_PARAMS, message: 'Invalid params', data: { code: 'invalid_params', issues: zodIssues(error) } };
  }
  if (error instanceof Error && typeof (error as { code?: unknown }).code === 'string') {
    const coded = error as Error & { code: string };
    if (isSqliteBusy(coded.code)) {
      return { code: DOMAIN_ERROR_CODES.busy, message: 'The database is busy; retry the request.', data: { code: 'busy', retryable: true } };
    }
    if (isDiskFull(coded.code)) {
      return { code: DOMAIN_ERROR_CODES.disk_full, message: 'The disk is full, so this change was not saved. Free some disk space and try again.', data: { code: 'disk_full' } };
    }
    // Nothing of the driver's message goes on the wire: it can name hosts and users.
    if (isConnectionLoss(coded.code)) {
      return { code: DOMAIN_ERROR_CODES.storage_unavailable, message: 'The database cannot be reached right now; retry the request.', data: { code: 'storage_unavailable', retryable: true } };
    }
    if (coded.code === 'storage_unavailable') {
      return { code: DOMAIN_ERROR_CODES.storage_unavailable, message: coded.message.slice(0, 2000), data: { ...safeDetails(coded), code: 'storage_unavailable', retryable: true } };
    }
    if (isDomainError(coded)) {
      return { code: rpcCodeFor(coded.code) ?? DOMAIN_ERROR_FALLBACK, message: coded.message.slice(0, 2000), data: { ...safeDetails(coded), code: coded.code } };
    }
  }
  logger?.error('Internal error while handling a JSON-RPC call', {
    method,
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  return { code: JSONRPC_INTERNAL_ERROR, message: 'Internal error', data: { code: 'internal_error' } };
}
