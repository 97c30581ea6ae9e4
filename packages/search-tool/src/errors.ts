/**
 * Error codes of the session_search tool. Agent tools never throw at the model: every failure is a
 * result with `error: { code, message }`, where `code` is one of these stable strings. Out-of-scope
 * and unknown targets share one code (`not_found`) so a result never reveals that a session exists
 * in another project or profile.
 */
export const TOOL_ERROR_CODES = [
  'invalid_arguments',
  'caller_session_not_found',
  'caller_project_not_found',
  'profile_mismatch',
  'not_found',
  'semantic_unavailable',
  'internal_error',
] as const;
export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number];

export class ToolError extends Error {
  readonly code: ToolErrorCode;
  constructor(code: ToolErrorCode, message: string) {
    super(message);
    this.name = 'ToolError';
    this.code = code;
  }
}
