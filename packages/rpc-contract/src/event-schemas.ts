/**
 * zod schemas of the WebSocket events, the one definition of their shapes: events.ts infers its
 * types from them (type-only, so the desktop's bundle carries no zod). The gateway's event test
 * parses every notification a real server sends with `wireEventSchema`, so a field added, renamed
 * or retyped in an emitted event fails until the contract says so.
 */
import { z } from 'zod';
import { CHAT_EVENT_TYPES, EVENT_TYPES } from './events.js';
import { chatErrorCodeSchema, chatToolAnchorSchema } from './objects.js';

const id = z.string().min(1);
const messageId = z.number().int().positive();

/** zod schema of a change event (GatewayEvent); strict. */
export const gatewayEventSchema = z.strictObject({
  type: z.enum(EVENT_TYPES),
  /** Projects whose contents or metadata changed (both source and target of a move). Never null: the "No project" group refreshes on any sessions.changed. */
  projectIds: z.array(id).optional(),
  sessionIds: z.array(id).optional(),
  messageIds: z.array(messageId).optional(),
  /** Set when a session left or joined "No project" (project_id NULL), so a UI refreshes that group too. */
  unassigned: z.boolean().optional(),
});

const run = { sessionId: id, runId: id };
/** 1-based model request within the turn (a new round starts after tool results). */
const round = z.number().int().positive();

/** zod schema of `chat.started` (ChatStartedEvent); strict. */
export const chatStartedEventSchema = z.strictObject({ type: z.literal('chat.started'), ...run, userMessageId: messageId });
/** zod schema of `chat.delta` (ChatDeltaEvent); strict. */
export const chatDeltaEventSchema = z.strictObject({ type: z.literal('chat.delta'), ...run, round, text: z.string() });
/** zod schema of `chat.tool` (ChatToolEvent); strict. */
export const chatToolEventSchema = z.strictObject({
  type: z.literal('chat.tool'),
  ...run,
  round,
  toolCallId: z.string(),
  name: z.string(),
  /** Parsed arguments as the model sent them (the raw string when they were not a JSON object). */
  arguments: z.unknown(),
  /** The tool's `used_mode` (keyword, hybrid, semantic, direct, none), null when the tool did not run. */
  used_mode: z.string().nullable(),
  hits: z.number().int().nonnegative(),
  anchors: z.array(chatToolAnchorSchema),
  error: z.strictObject({ code: z.string(), message: z.string() }).optional(),
  /** The stored tool message holding the full result JSON. */
  messageId,
});
/** zod schema of `chat.done` (ChatDoneEvent); strict. `messageId`: the final assistant message. */
export const chatDoneEventSchema = z.strictObject({ type: z.literal('chat.done'), ...run, messageId, status: z.literal('completed') });
/** zod schema of `chat.error` (ChatErrorEvent); strict. */
export const chatErrorEventSchema = z.strictObject({
  type: z.literal('chat.error'),
  ...run,
  status: z.enum(['cancelled', 'failed']),
  code: chatErrorCodeSchema,
  message: z.string(),
  retryable: z.boolean(),
  /** Messages this run stored before it stopped (the user's message first). */
  messageIds: z.array(messageId),
});

/** Everything the `event` notification carries (its `params`). */
export const wireEventSchema = z.union([gatewayEventSchema, chatStartedEventSchema, chatDeltaEventSchema, chatToolEventSchema, chatDoneEventSchema, chatErrorEventSchema]);

/** Every event type has a schema (checked by the contract's tests). */
export const EVENT_SCHEMA_TYPES: readonly string[] = [...EVENT_TYPES, ...CHAT_EVENT_TYPES];
