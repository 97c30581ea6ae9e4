/**
 * `chat.*` params: the JSON-RPC face of the gateway's chat loop. `chat.send` stores the user's
 * message and starts an answer (progress arrives as `chat.*` events), `chat.cancel` stops a run,
 * `chat.status` says whether a model is configured, `chat.compress` is the chat's `/compress`.
 */
import { z } from 'zod';
import { sessionIdField, titleField } from '../fields.js';
import { methodGroup } from '../method-spec.js';

/** One user message: at most 100 000 characters (a prompt, not an attachment), not only whitespace. */
const chatContentField = z
  .string()
  .min(1)
  .max(100_000)
  .refine((s) => s.trim() !== '', 'content must not be only whitespace')
  .describe("The user's message (1-100000 characters, not only whitespace)");

const runIdField = z.string().min(1).max(100).describe('Run id returned by chat.send (e.g. "run_…")');

export const CHAT_METHODS = methodGroup({
  'chat.status': {
    summary: 'Whether a chat model is configured (model, endpoint — never the key), how to configure one, limits and runs in progress.',
    params: z.strictObject({}),
  },
  'chat.send': {
    summary:
      "Store the user's message, then answer it with the configured model (which may call session_search in this conversation's project). Returns at once with the runId unless wait is true.",
    params: z.strictObject({
      sessionId: sessionIdField.describe('The conversation to answer in; also the trusted scope of every session_search call'),
      content: chatContentField,
      wait: z.boolean().default(false).describe('false (default): return { runId, userMessageId } at once and stream chat.* events; true: return the finished run'),
    }),
  },
  'chat.cancel': {
    summary: 'Cancel a chat run in progress; what it completed stays stored. A finished run answers cancelled: false.',
    params: z.strictObject({ runId: runIdField }),
  },
  'chat.compress': {
    summary:
      "The chat's /compress: end this conversation segment (end_reason compression) and continue in a new session of the same logical conversation, starting with a short system note. Refused while an answer runs.",
    params: z.strictObject({
      sessionId: sessionIdField.describe('The conversation segment to end'),
      note: z
        .string()
        .min(1)
        .max(100_000)
        .optional()
        .describe("The continuation's first (system) message (default: a note saying where the earlier part went and that session_search finds it)"),
      title: titleField.optional().describe('Title of the continuation (default: the source title)'),
    }),
  },
});
