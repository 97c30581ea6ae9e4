/**
 * zod schemas of the WebSocket events (events.ts has their TypeScript types and constants, which the
 * desktop imports without pulling zod into its bundle). The gateway's event test parses every
 * notification a real server sends with `wireEventSchema`, so a field added, renamed or retyped in
 * an emitted event fails until the contract says so. Each schema is checked against its interface
 * below at compile time.
 */
import { z } from 'zod';
import { CHAT_EVENT_TYPES, EVENT_TYPES, type ChatDeltaEvent, type ChatDoneEvent, type ChatErrorEvent, type ChatStartedEvent, type ChatToolEvent, type GatewayEvent } from './events.js';
import { chatErrorCodeSchema, chatToolAnchorSchema } from './objects.js';

const id = z.string().min(1);
const messageId = z.number().int().positive();

export const gatewayEventSchema = z.strictObject({
  type: z.enum(EVENT_TYPES),
  projectIds: z.array(id).optional(),
  sessionIds: z.array(id).optional(),
  messageIds: z.array(messageId).optional(),
  unassigned: z.boolean().optional(),
});

const run = { sessionId: id, runId: id };

export const chatStartedEventSchema = z.strictObject({ type: z.literal('chat.started'), ...run, userMessageId: messageId });
export const chatDeltaEventSchema = z.strictObject({ type: z.literal('chat.delta'), ...run, round: z.number().int().positive(), text: z.string() });
export const chatToolEventSchema = z.strictObject({
  type: z.literal('chat.tool'),
  ...run,
  round: z.number().int().positive(),
  toolCallId: z.string(),
  name: z.string(),
  arguments: z.unknown(),
  used_mode: z.string().nullable(),
  hits: z.number().int().nonnegative(),
  anchors: z.array(chatToolAnchorSchema),
  error: z.strictObject({ code: z.string(), message: z.string() }).optional(),
  messageId,
});
export const chatDoneEventSchema = z.strictObject({ type: z.literal('chat.done'), ...run, messageId, status: z.literal('completed') });
export const chatErrorEventSchema = z.strictObject({
  type: z.literal('chat.error'),
  ...run,
  status: z.enum(['cancelled', 'failed']),
  code: chatErrorCodeSchema,
  message: z.string(),
  retryable: z.boolean(),
  messageIds: z.array(messageId),
});

/** Everything the `event` notification carries (its `params`). */
export const wireEventSchema = z.union([gatewayEventSchema, chatStartedEventSchema, chatDeltaEventSchema, chatToolEventSchema, chatDoneEventSchema, chatErrorEventSchema]);

/** Every event type has a schema (checked by the contract's tests). */
export const EVENT_SCHEMA_TYPES: readonly string[] = [...EVENT_TYPES, ...CHAT_EVENT_TYPES];

// Compile-time: each schema's output and its interface are assignable both ways.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Check<T extends true> = T;
export type EventSchemasMatchTypes = [
  Check<Same<z.output<typeof gatewayEventSchema>, GatewayEvent>>,
  Check<Same<z.output<typeof chatStartedEventSchema>, ChatStartedEvent>>,
  Check<Same<z.output<typeof chatDeltaEventSchema>, ChatDeltaEvent>>,
  Check<Same<z.output<typeof chatToolEventSchema>, ChatToolEvent>>,
  Check<Same<z.output<typeof chatDoneEventSchema>, ChatDoneEvent>>,
  Check<Same<z.output<typeof chatErrorEventSchema>, ChatErrorEvent>>,
];
