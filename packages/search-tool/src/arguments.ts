/**
 * The argument schema of `session_search`, as zod (validation, defaults, bounds) and as JSON Schema
 * for OpenAI tool definitions and MCP. The zod schema itself lives in @recall/rpc-contract (one
 * home for the wire contract: the gateway's `search.session_search` params and the desktop UI use
 * the same object); this module adds the JSON Schema form the tool definitions need. The project
 * is deliberately NOT an argument: it comes from the trusted call context, re-read from the
 * database on every call.
 */
import { z } from 'zod';
import { sessionSearchArgsSchema } from '@recall/rpc-contract';

export type { SearchMode, SessionSearchArgs } from '@recall/rpc-contract';
export { sessionSearchArgsSchema };

/**
 * JSON Schema (draft-7 subset, no `$schema` key) of the `session_search` arguments, as OpenAI tool
 * definitions and MCP `inputSchema` take it. A fresh object on every call. The zod form is
 * `sessionSearchArgsSchema` of `@recall/rpc-contract`.
 */
export function sessionSearchJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(sessionSearchArgsSchema, { io: 'input', target: 'draft-7' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}
