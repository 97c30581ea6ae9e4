/**
 * The result contract of `session_search` (result.ts) as JSON Schema, for clients that validate
 * structured tool output — MCP 2025-06-18 `outputSchema` + `structuredContent`. The zod schema
 * lives in @recall/rpc-contract (the desktop UI parses the same shape); a test checks real results
 * of every shape against it, so the schema cannot drift from what the tool returns.
 */
import { z } from 'zod';
import { sessionSearchResultSchema } from '@recall/rpc-contract';

/**
 * JSON Schema (draft-7 subset, no `$schema` key) of a `session_search` result, e.g. for an MCP
 * tool's `outputSchema`. A fresh object on every call. The zod form is `sessionSearchResultSchema`
 * of `@recall/rpc-contract`.
 */
export function sessionSearchOutputJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(sessionSearchResultSchema, { io: 'output', target: 'draft-7' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}
