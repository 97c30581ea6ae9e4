/**
 * What the chat loop needs from its host (the gateway, or a test), typed structurally so any object
 * of the right shape fits: a sink for the events a run emits, a logger, and the `session_search`
 * executor the model's tool calls run on. The chat package owns these shapes; gateway-rpc passes
 * its event hub (through a small adapter), its logger and its search tool in.
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

/** The trusted call context of `session_search` (a current session, or a project for a host without one): never taken from tool arguments. */
export type SearchCallContext = { profile: string } & (
  | { currentSessionId: string; projectId?: undefined }
  | { currentSessionId?: undefined; projectId: string }
);

/**
 * The shape a host's session_search tool must have (@recall/search-tool's tool fits, so does a
 * worker pool or a stand-in). If it also carries `description` / `parameters` (the tool's own
 * metadata), the model is offered those instead of the package defaults.
 */
export interface SessionSearchExecutor {
  execute(args: Record<string, unknown>, context: SearchCallContext): unknown;
}
