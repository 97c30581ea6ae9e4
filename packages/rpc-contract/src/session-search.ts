/**
 * The `session_search` tool's own contract — its arguments (zod: validation, defaults, bounds,
 * descriptions) and its JSON result — shared by every face of the tool: the gateway's
 * `search.session_search`, MCP, OpenAI tool definitions (@recall/search-tool builds those from these
 * schemas) and the desktop UI, which renders the result. The project is deliberately NOT an
 * argument: it comes from the trusted call context, re-read from the database on every call.
 * Result objects are open (extra keys allowed) on purpose: a new optional field in a result must
 * not make a strict client reject every call; the closed vocabularies (shape, modes, roles, error
 * codes) are enums so a client can rely on them. search-tool's tests check real results of every
 * shape against the result schema, so it cannot drift from what the tool returns.
 */
import { z } from 'zod';
import { MAX_MESSAGE_CHARS, MESSAGE_ROLES, SEARCH_MODES, SORTS } from './vocabulary.js';

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
/** One of TOOL_ERROR_CODES: the `error.code` of a failed session_search result. */
export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number];

/**
 * A `since`/`until` bound of session_search: an ISO-8601 date (`2026-11-30`, a whole UTC day) or
 * date-time (`2026-11-30T14:00:00Z`), or a time before now: a whole number and a unit (`30m`,
 * `24h`, `7d`, `2w`; at most 100 years back). The tool turns it into a time when the call runs.
 */
export const DATE_BOUND_PATTERN = /^(?:\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:?\d{2})?)?|\d{1,6}[mhdw])$/;

const dateBound = (which: 'since' | 'until') =>
  z
    .string()
    .trim()
    .min(2)
    .max(40)
    .regex(DATE_BOUND_PATTERN, { message: 'must be an ISO date like 2026-11-30 (or 2026-11-30T14:00Z) or a time before now like 30m, 24h, 7d, 2w' })
    .optional()
    .describe(
      which === 'since'
        ? 'Only messages from this time on: an ISO date (2026-11-30, from the start of that UTC day) or date-time, or a time before now such as "24h", "7d", "2w". Applies to every shape that searches or lists.'
        : 'Only messages before this time: an ISO date (2026-11-30 includes that whole UTC day) or date-time, or a time before now such as "7d". Applies to every shape that searches or lists.',
    );

/**
 * session_search's arguments as a strict zod object: `parse()` applies the defaults (mode hybrid,
 * limit 8, sort relevance, window 2) and throws a `ZodError` on unknown keys or out-of-range values.
 * Which fields are set picks the shape: `query` → discover, nothing → browse, `session_id` → read,
 * `around_message_id` → scroll.
 */
export const sessionSearchArgsSchema = z
  .object({
    query: z
      .string()
      .max(10_000)
      .optional()
      .describe(
        'What to look for in earlier conversations of this project: keywords, an identifier, an error message or a natural-language question, in any language. Omit to browse recent conversations.',
      ),
    search_mode: z
      .enum(SEARCH_MODES)
      .default('hybrid')
      .describe('hybrid (default) fuses keyword and semantic matches; keyword is best for exact symbols and error codes; semantic finds paraphrases.'),
    limit: z.number().int().min(1).max(50).default(8).describe('Maximum number of results (conversations for a query, sessions for browse, messages for read/scroll).'),
    sort: z.enum(SORTS).default('relevance').describe('relevance (default), or newest/oldest to order the found results by time.'),
    role_filter: z
      .array(z.enum(MESSAGE_ROLES))
      .min(1)
      .max(4)
      .optional()
      .describe(
        'Only these roles, e.g. ["user"] for what the user said. Applies to every shape: matches, title-hit anchors, browse anchors and the messages read/scroll return (a scroll anchor is always shown).',
      ),
    session_id: z.string().min(1).max(200).optional().describe('Read one earlier conversation of this project (its head and tail) by the session_id of a previous result.'),
    around_message_id: z.number().int().positive().optional().describe('Scroll: return the messages around this message_id (from a previous result) in its conversation.'),
    window: z.number().int().min(0).max(20).default(2).describe('How many messages before and after an anchor to include as context.'),
    offset: z
      .number()
      .int()
      .min(0)
      .max(MAX_MESSAGE_CHARS)
      .optional()
      .describe('With around_message_id: read that one message from this character offset (a long message is shown in parts; a result with next_offset tells where to continue).'),
    since: dateBound('since'),
    until: dateBound('until'),
    conversation: z
      .boolean()
      .default(false)
      .describe(
        'With session_id: read the whole logical conversation (all its compression segments, oldest first) instead of that one segment. Results carry conversation_id and segment/segment_count.',
      ),
  })
  .strict();

/** session_search's arguments after validation (defaults applied). */
export type SessionSearchArgs = z.output<typeof sessionSearchArgsSchema>;
/** What a caller may pass to session_search (optional fields and defaults as optional keys). */
export type SessionSearchArgsInput = z.input<typeof sessionSearchArgsSchema>;

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

/**
 * session_search's JSON result as a zod schema. Objects are open (unknown keys pass) so a new
 * optional field never breaks a client; enums are closed. A failed call still parses: `shape` is
 * null and `error` is set.
 */
export const sessionSearchResultSchema = z
  .looseObject({
    shape: z.enum(['discover', 'browse', 'read', 'scroll']).nullable().describe('what the arguments asked for (null when they were invalid)'),
    requested_mode: z.enum(SEARCH_MODES).describe('search_mode asked for'),
    used_mode: z.enum([...SEARCH_MODES, 'direct', 'none']).describe('what actually ran'),
    semantic_status: z.enum(['disabled', 'ready', 'partial', 'unavailable']).describe('state of the semantic index'),
    semantic_coverage: z.union([coverageSchema, z.literal('unknown'), z.null()]).describe('indexed/total messages when known'),
    scope: z.looseObject({ kind: z.enum(['project', 'own_conversation']), project_id: z.string().nullable() }).describe("the caller's scope, fixed by the host"),
    query: z.string().nullable().describe('the query, if any'),
    notes: z.array(z.string()).describe('fallbacks, truncation, timeouts'),
    results: z.array(resultItemSchema).describe('best first'),
    truncated: z.boolean().describe('more exists than was returned'),
    error: z
      .looseObject({ code: z.enum(TOOL_ERROR_CODES), message: z.string() })
      .optional()
      .describe('set when the call failed'),
  })
  .describe('session_search result');

/** A `session_search` result as it travels (the tool's JSON verbatim, snake_case). */
export type SearchResult = z.output<typeof sessionSearchResultSchema>;
/** One result of `session_search`, anchored by session_id + message_id. */
export type SearchHit = z.output<typeof resultItemSchema>;
/** One message of a result's surrounding window (no `text` on the anchor's own entry: it is the snippet). */
export type SearchWindowMessage = z.output<typeof windowMessageSchema>;
