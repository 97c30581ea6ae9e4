/**
 * Error codes of the session_search tool. Agent tools never throw at the model: every failure is a
 * result with `error: { code, message }`, where `code` is one of these stable strings. Out-of-scope
 * and unknown targets share one code (`not_found`) so a result never reveals that a session exists
 * in another project or profile.
 */
import type { ToolErrorCode } from '@recall/rpc-contract';

// The code list is part of the wire contract (the result schema's enum): TOOL_ERROR_CODES and
// ToolErrorCode are imported from @recall/rpc-contract by whoever needs them.

/**
 * A failure inside a `session_search` call, with a stable `code` from `TOOL_ERROR_CODES` of
 * `@recall/rpc-contract` (`invalid_arguments`, `not_found`, `caller_session_not_found`,
 * `caller_project_not_found`, `profile_mismatch`, `semantic_unavailable`, `internal_error`, …).
 * The tool never lets it escape `execute()`: it becomes the result's `error: { code, message }`.
 * Exported so a host wrapping the tool can raise the same codes.
 */
export class ToolError extends Error {
  /** One of the wire's `TOOL_ERROR_CODES`. */
  readonly code: ToolErrorCode;
  constructor(code: ToolErrorCode, message: string) {
    super(message);
    this.name = 'ToolError';
    this.code = code;
  }
}
