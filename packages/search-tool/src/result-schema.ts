/**
 * The result contract of `session_search` (result.ts) as a zod schema and as JSON Schema, for
 * clients that validate structured tool output — MCP 2025-06-18 `outputSchema` +
 * `structuredContent`. Objects are open (extra keys allowed) on purpose: a new optional field in a
 * result must not make a strict client reject every call; the closed vocabularies (shape, modes,
 * roles, error codes) are enums so a client can rely on them. A test checks real results of every
 * shape against it, so the schema cannot drift from what the tool returns.
 */
import { MESSAGE_ROLES } from '@recall/schema';
import { z } from 'zod';
import { SEARCH_MODES } from './arguments.js';
import { TOOL_ERROR_CODES } from './errors.js';

const windowMessageSchema = z.looseObject({
  message_id: z.number().int().describe('integer id of the message'),
  role: z.enum(MESSAGE_ROLES).describe('speaker role'),
  text: z.string().optional().describe("original text, clipped; absent on the anchor's own entry (its text is the result's snippet)"),
  date: z.string().describe('ISO-8601 time of the message'),
  is_anchor: z.boolean().describe('this is the result anchor'),
  session_id: z.string().optional().describe('set when the neighbour is in another compression segment of the conversation'),
});

const resultItemSchema = z.looseObject({
  session_id: z.string().describe('conversation of the anchor'),
  message_id: z.number().int().describe('the anchor message'),
  link: z.string().describe('recall://session/<id>#m<id>'),
  role: z.enum(MESSAGE_ROLES).describe('role of the anchor message'),
  snippet: z.string().describe('original text around the match'),
  match_source: z.enum(['keyword', 'semantic', 'both', 'direct']).describe('how the result was found'),
  match_field: z.enum(['title', 'message']).optional().describe('discover: where the keyword matched'),
  title: z.string().nullable().describe('conversation title'),
  date: z.string().describe('ISO-8601 time of the anchor'),
  session_date: z.string().describe('ISO-8601 start of the conversation'),
  conversation_id: z.string().describe('root session of the logical conversation'),
  segment: z.number().int().describe("this session's place among the conversation's compression segments (1 = first)"),
  segment_count: z.number().int().describe('number of compression segments of the conversation'),
  window: z.array(windowMessageSchema).describe('surrounding messages, in order'),
  other_message_ids: z.array(z.number().int()).optional().describe('other matches of the same conversation'),
  is_current_session: z.boolean().optional().describe("browse: this is the caller's own conversation"),
  is_anchor: z.boolean().optional().describe('scroll: the requested anchor'),
  text_offset: z.number().int().optional().describe('read/scroll: the snippet starts at this character of the message'),
  next_offset: z.number().int().optional().describe('read/scroll: the message goes on; scroll with around_message_id and this offset'),
  total_chars: z.number().int().optional().describe('read/scroll: full length of a message shown in part'),
});

const coverageSchema = z.looseObject({ indexed: z.number().int(), total: z.number().int() });

export const sessionSearchResultSchema = z
  .looseObject({
    shape: z.enum(['discover', 'browse', 'read', 'scroll']).nullable().describe('what the arguments asked for (null when they were invalid)'),
    requested_mode: z.enum(SEARCH_MODES).describe('search_mode asked for'),
    used_mode: z.enum([...SEARCH_MODES, 'direct', 'none']).describe('what actually ran'),
    semantic_status: z.enum(['disabled', 'ready', 'partial', 'unavailable']).describe('state of the semantic index'),
    semantic_coverage: z.union([coverageSchema, z.literal('unknown'), z.null()]).describe('indexed/total messages when known'),
    scope: z
      .looseObject({ kind: z.enum(['project', 'own_conversation']), project_id: z.string().nullable() })
      .describe("the caller's scope, fixed by the host"),
    query: z.string().nullable().describe('the query, if any'),
    notes: z.array(z.string()).describe('fallbacks, truncation, timeouts'),
    results: z.array(resultItemSchema).describe('best first'),
    truncated: z.boolean().describe('more exists than was returned'),
    error: z.looseObject({ code: z.enum(TOOL_ERROR_CODES), message: z.string() }).optional().describe('set when the call failed'),
  })
  .describe('session_search result');

/** JSON Schema (draft-7 subset) of the result, e.g. for an MCP tool's `outputSchema`. */
export function sessionSearchOutputJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(sessionSearchResultSchema, { io: 'output', target: 'draft-7' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}
