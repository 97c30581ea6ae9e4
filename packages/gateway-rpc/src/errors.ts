/**
 * Errors of the gateway and THE one mapping from stable string error codes to numeric JSON-RPC
 * error codes. Every package below us (schema, store, search-tool) throws errors that carry a
 * stable string `code`; only this module turns them into wire errors, so the numeric codes in
 * `docs/rpc.md` have exactly one source. Anything that is not a recognised domain error becomes
 * -32603 "Internal error" with no message or stack of the original exception on the wire (it goes to
 * the server's logger instead), because internal messages can contain paths, SQL or user data.
 */
import { RecallSchemaError } from '@recall/schema';
import { SemanticError } from '@recall/semantic';
import { StoreError } from '@recall/store';
import { ZodError } from 'zod';

/** Standard JSON-RPC 2.0 codes. */
export const JSONRPC_PARSE_ERROR = -32700;
export const JSONRPC_INVALID_REQUEST = -32600;
export const JSONRPC_METHOD_NOT_FOUND = -32601;
export const JSONRPC_INVALID_PARAMS = -32602;
export const JSONRPC_INTERNAL_ERROR = -32603;

/**
 * Stable string code → numeric JSON-RPC code. Numbers are part of the public contract: never
 * renumber, only append (and document the row in docs/rpc.md — a test checks that). -32000 is the
 * fallback for a recognised domain error whose code is not listed yet; it still carries its string
 * code in `data.code`, so clients should match on the string.
 */
export const DOMAIN_ERROR_CODES = {
  project_not_found: -32001,
  session_not_found: -32002,
  message_not_found: -32003,
  project_has_sessions: -32004,
  project_archived: -32005,
  folder_in_use: -32006,
  invalid_input: -32007,
  session_exists: -32008,
  invalid_lineage: -32009,
  busy: -32010,
  search_unavailable: -32011,
  shutting_down: -32012,
  invalid_profile: -32013,
  invalid_config: -32014,
  migration_failed: -32015,
  unauthorized: -32016,
  forbidden: -32017,
  // chat (src/chat/): refusals of chat.send / chat.cancel / chat.compress …
  chat_not_configured: -32018,
  chat_busy: -32019,
  chat_run_not_found: -32020,
  chat_session_ended: -32021,
  // … and how a chat run ended when it did not complete (chat.error events, chat.send {wait:true}).
  chat_cancelled: -32022,
  chat_deadline_exceeded: -32023,
  chat_tool_rounds_exceeded: -32024,
  chat_model_unreachable: -32025,
  chat_model_auth_failed: -32026,
  chat_model_not_found: -32027,
  chat_model_rate_limited: -32028,
  chat_model_error: -32029,
  chat_model_bad_response: -32030,
  chat_failed: -32031,
  // store lineage refusals added after the chat codes
  session_already_compressed: -32032,
  // semantic index (@recall/semantic): index.project.enable / index.run while semantic is not configured or off
  semantic_disabled: -32033,
  // transport bounds (jsonrpc.ts): a batch entry not run because the batch hit its cost or size bound
  batch_limit: -32050,
} as const satisfies Record<string, number>;

export type DomainErrorCode = keyof typeof DOMAIN_ERROR_CODES;
export const DOMAIN_ERROR_FALLBACK = -32000;

/** Error thrown by the gateway itself (config, token, transport). */
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

export class ConfigError extends GatewayError {
  constructor(message: string, data?: Record<string, unknown>) {
    super('invalid_config', message, data === undefined ? undefined : { data });
    this.name = 'ConfigError';
  }
}

export class TokenFileError extends GatewayError {
  constructor(message: string, cause?: unknown) {
    super('invalid_token_file', message, { cause });
    this.name = 'TokenFileError';
  }
}

/** Stable codes of the chat loop (a subset of DOMAIN_ERROR_CODES; documented in docs/rpc.md). */
export type ChatErrorCode = Extract<DomainErrorCode, `chat_${string}`>;

/**
 * A chat refusal or a chat run that did not complete. `retryable` tells a UI whether "try again"
 * can help (rate limits, unreachable endpoints, deadlines) or the configuration must change first.
 */
export class ChatError extends GatewayError {
  declare readonly code: ChatErrorCode;
  readonly retryable: boolean;
  constructor(code: ChatErrorCode, message: string, options?: { cause?: unknown; data?: Record<string, unknown>; retryable?: boolean }) {
    super(code, message, options);
    this.name = 'ChatError';
    this.retryable = options?.retryable ?? false;
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

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

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
 * send): ours, the store's, the schema package's and the semantic layer's (its messages are redacted of keys). Other packages' bases (e.g. the search tool's)
 * can be added with registerDomainErrorClass() by whoever composes them.
 */
const domainErrorClasses: (abstract new (...args: never[]) => Error)[] = [GatewayError, StoreError, RecallSchemaError, SemanticError];
export function registerDomainErrorClass(base: abstract new (...args: never[]) => Error): void {
  if (!domainErrorClasses.includes(base)) domainErrorClasses.push(base);
}

function isDomainError(error: Error & { code: string }): boolean {
  return rpcCodeFor(error.code) !== undefined || domainErrorClasses.some((base) => error instanceof base);
}

function isSqliteBusy(code: string): boolean {
  return code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED' || code.startsWith('SQLITE_LOCKED_');
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
 * get `data.code` plus scalar details; SQLITE_BUSY becomes the retryable `busy` code; everything
 * else is logged and answered with a bare -32603.
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
