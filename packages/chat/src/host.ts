/**
 * What the chat loop needs from its host (the gateway, or a test), typed structurally so any object
 * of the right shape fits: a sink for the events a run emits, a logger, and the `session_search`
 * executor the model's tool calls run on. The chat package owns the sink and logger shapes; the
 * executor's (`SessionSearchExecutor`, `SearchCallContext`) are @recall/search-tool's. gateway-rpc
 * passes its event hub (through a small adapter), its logger and its search tool in.
 */
import type { ChatEvent, GatewayEvent } from '@recall/rpc-contract';

/** The change event a run raises for every message it stores (ids only, like every change event). */
export type ChatMessagesChangedEvent = GatewayEvent & { type: 'messages.changed' };

/** Everything a run emits: `chat.*` run events and `messages.changed` for each stored message. */
export type ChatSinkEvent = ChatEvent | ChatMessagesChangedEvent;

/** Receives the run's events synchronously, in order; it must not throw (a hub isolates its listeners). */
export interface ChatEventSink {
  emit(event: ChatSinkEvent): void;
}

/** Where failed runs are reported (`warn`) and unexpected errors logged with their stack (`error`). */
export interface ChatLogger {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
}

