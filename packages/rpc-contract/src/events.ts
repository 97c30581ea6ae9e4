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

export const EVENT_TYPES = ['projects.changed', 'sessions.changed', 'messages.changed', 'index.changed'] as const;
export type GatewayEventType = (typeof EVENT_TYPES)[number];
export type GatewayEvent = z.output<typeof gatewayEventSchema>;

export const CHAT_EVENT_TYPES = ['chat.started', 'chat.delta', 'chat.tool', 'chat.done', 'chat.error'] as const;
export type ChatEventType = (typeof CHAT_EVENT_TYPES)[number];

export type ChatStartedEvent = z.output<typeof chatStartedEventSchema>;
export type ChatDeltaEvent = z.output<typeof chatDeltaEventSchema>;
export type ChatToolEvent = z.output<typeof chatToolEventSchema>;
export type ChatDoneEvent = z.output<typeof chatDoneEventSchema>;
export type ChatErrorEvent = z.output<typeof chatErrorEventSchema>;
export type ChatEvent = ChatStartedEvent | ChatDeltaEvent | ChatToolEvent | ChatDoneEvent | ChatErrorEvent;

/** Everything the `event` notification carries. */
export type WireEvent = GatewayEvent | ChatEvent;
