/**
 * The WebSocket notifications of the gateway, all sent as `{"jsonrpc":"2.0","method":"event",
 * "params":{type,…}}`. Change events carry ids only, never content (a client re-reads through the
 * methods); an event without ids means "refresh everything of that kind". Chat run events carry the
 * run's fields, and `chat.delta` the streamed text — a partial answer is not persisted, so it can
 * only travel in the event. Every run emits `chat.started` first and exactly one terminal event,
 * `chat.done` (completed) or `chat.error` (cancelled/failed). The field-by-field shapes are the zod
 * schemas in event-schemas.ts; the types here are inferred from them with type-only imports, which
 * compile away, so the desktop imports these constants and types without pulling zod into its bundle.
 */
import type { z } from 'zod';
import type {
  chatDeltaEventSchema,
  chatDoneEventSchema,
  chatErrorEventSchema,
  chatStartedEventSchema,
  chatToolEventSchema,
  gatewayEventSchema,
} from './event-schemas.js';

/** The JSON-RPC notification method every event is sent as. */
export const EVENT_NOTIFICATION_METHOD = 'event';

/** Change events: something of that kind changed; re-read through the methods (the event carries ids only, never content). */
export const EVENT_TYPES = ['projects.changed', 'sessions.changed', 'messages.changed', 'index.changed'] as const;
/** One of EVENT_TYPES. */
export type GatewayEventType = (typeof EVENT_TYPES)[number];
/** A change event (`projects.changed`, `sessions.changed`, …) with the ids that changed; no ids = refresh everything of that kind. */
export type GatewayEvent = z.output<typeof gatewayEventSchema>;

/** Chat run events: `chat.started` first, any `chat.delta` / `chat.tool`, then exactly one of `chat.done` or `chat.error`. */
export const CHAT_EVENT_TYPES = ['chat.started', 'chat.delta', 'chat.tool', 'chat.done', 'chat.error'] as const;
/** One of CHAT_EVENT_TYPES. */
export type ChatEventType = (typeof CHAT_EVENT_TYPES)[number];

/** `chat.started`: a run began; its user message is stored as `userMessageId`. */
export type ChatStartedEvent = z.output<typeof chatStartedEventSchema>;
/** `chat.delta`: streamed answer text of one model round (not persisted; only travels in the event). */
export type ChatDeltaEvent = z.output<typeof chatDeltaEventSchema>;
/** `chat.tool`: the run called a tool (session_search); its anchors and the stored tool message. */
export type ChatToolEvent = z.output<typeof chatToolEventSchema>;
/** `chat.done`: the run completed; `messageId` is the final assistant message. */
export type ChatDoneEvent = z.output<typeof chatDoneEventSchema>;
/** `chat.error`: the run was cancelled or failed, with a `chat_*` code and whether retrying may help. */
export type ChatErrorEvent = z.output<typeof chatErrorEventSchema>;
/** Any chat run event (discriminated by `type`). */
export type ChatEvent = ChatStartedEvent | ChatDeltaEvent | ChatToolEvent | ChatDoneEvent | ChatErrorEvent;

/** Everything the `event` notification carries. */
export type WireEvent = GatewayEvent | ChatEvent;
