/**
 * The argument schema of `session_search`, as zod (validation, defaults, bounds) and as JSON Schema
 * for OpenAI tool definitions and MCP. The project is deliberately NOT an argument: it comes from
 * the trusted call context, re-read from the database on every call.
 */
import { z } from 'zod';
import { MESSAGE_ROLES } from '@recall/schema';
import { MAX_MESSAGE_CHARS } from '@recall/store';

export const SEARCH_MODES = ['hybrid', 'keyword', 'semantic'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];
export const SORTS = ['relevance', 'newest', 'oldest'] as const;

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
    session_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('Read one earlier conversation of this project (its head and tail) by the session_id of a previous result.'),
    around_message_id: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Scroll: return the messages around this message_id (from a previous result) in its conversation.'),
    window: z.number().int().min(0).max(20).default(2).describe('How many messages before and after an anchor to include as context.'),
    offset: z
      .number()
      .int()
      .min(0)
      .max(MAX_MESSAGE_CHARS)
      .optional()
      .describe(
        'With around_message_id: read that one message from this character offset (a long message is shown in parts; a result with next_offset tells where to continue).',
      ),
    conversation: z
      .boolean()
      .default(false)
      .describe(
        'With session_id: read the whole logical conversation (all its compression segments, oldest first) instead of that one segment. Results carry conversation_id and segment/segment_count.',
      ),
  })
  .strict();

export type SessionSearchArgs = z.output<typeof sessionSearchArgsSchema>;
export type SessionSearchArgsInput = z.input<typeof sessionSearchArgsSchema>;

/** JSON Schema (draft 2020-12 subset) of the arguments, for OpenAI tools and MCP. */
export function sessionSearchJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(sessionSearchArgsSchema, { io: 'input', target: 'draft-7' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}
