/**
 * The numeric JSON-RPC error codes of the wire: the five standard ones and the table from stable
 * string code to number. Clients match on the string (`error.data.code`); the numbers are a fixed
 * mapping that never changes: never renumber, only append (and document the row in docs/rpc.md — a
 * test checks that). Only @recall/gateway-rpc maps thrown errors to these numbers (its errors.ts);
 * the table lives here so the desktop UI reads the same numbers it does.
 */

/** JSON-RPC 2.0 -32700: the request body is not valid JSON. */
export const JSONRPC_PARSE_ERROR = -32700;
/** JSON-RPC 2.0 -32600: valid JSON but not a JSON-RPC request object (or batch). */
export const JSONRPC_INVALID_REQUEST = -32600;
/** JSON-RPC 2.0 -32601: no method of that name (see RPC_METHOD_NAMES). */
export const JSONRPC_METHOD_NOT_FOUND = -32601;
/** JSON-RPC 2.0 -32602: params failed the method's zod schema (`RPC_METHODS[m].params`). */
export const JSONRPC_INVALID_PARAMS = -32602;
/** JSON-RPC 2.0 -32603: an unexpected failure inside the gateway (not a domain error). */
export const JSONRPC_INTERNAL_ERROR = -32603;

/**
 * Stable string code → numeric JSON-RPC code. -32000 is the fallback for a recognised domain error
 * whose code is not listed yet; it still carries its string code in `data.code`.
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
  // chat (@recall/chat): refusals of chat.send / chat.cancel / chat.compress …
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
  // semantic index: index.project.enable named endpoints (what the consent dialog showed) that are
  // not the embedding / rerank endpoints in use now — the person is asked again
  consent_endpoint_changed: -32039,
  // store: a path that cannot be a project folder (relative, a filesystem root, the home folder unconfirmed)
  invalid_folder: -32034,
  // store / importers / gateway: a write failed for want of space (SQLITE_FULL, ENOSPC); nothing of it was stored
  disk_full: -32035,
  // storage ports (@recall/storage-ports): the database cannot be reached (retryable), an operation
  // the configured storage does not serve yet, a storage configuration that is not valid
  storage_unavailable: -32045,
  storage_unsupported: -32046,
  invalid_storage_config: -32047,
  // transport bounds (jsonrpc.ts): a batch entry not run because the batch hit its cost or size bound
  batch_limit: -32050,
  // export / backup / restore (importers, store): the user's data out and back
  export_too_large: -32060,
  backup_target_exists: -32061,
  backup_invalid: -32062,
  backup_schema_unknown: -32063,
  restore_target_newer: -32064,
} as const satisfies Record<string, number>;

/** A stable string code of a domain error (`error.data.code`): a key of DOMAIN_ERROR_CODES. */
export type DomainErrorCode = keyof typeof DOMAIN_ERROR_CODES;
/** Numeric code of a recognised domain error whose string code is not in DOMAIN_ERROR_CODES yet. */
export const DOMAIN_ERROR_FALLBACK = -32000;

/** Stable codes of the chat loop (a subset of DOMAIN_ERROR_CODES): `chat.error` events and chat.send errors. */
export type ChatErrorCode = Extract<DomainErrorCode, `chat_${string}`>;
