/**
 * Error codes of the session_search tool. Agent tools never throw at the model: every failure is a
 * result with `error: { code, message }`, where `code` is one of these stable strings. Out-of-scope
 * and unknown targets share one code (`not_found`) so a result never reveals that a session exists
 * in another project or profile.
 */
import type { ToolErrorCode } from '@recall/rpc-contract';

// The code list is part of the wire contract (the result schema's enum), so it lives there.
export { TOOL_ERROR_CODES } from '@recall/rpc-contract';
export type { ToolErrorCode } from '@recall/rpc-contract';

export class ToolError extends Error {
  readonly code: ToolErrorCode;
  constructor(code: ToolErrorCode, message: string) {
    super(message);
    this.name = 'ToolError';
    this.code = code;
  }
}
