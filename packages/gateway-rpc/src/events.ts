/**
 * The gateway's in-process event hub. Handlers emit a change event after their write has
 * committed (store calls are synchronous transactions, so "after the call returned" is "after
 * commit"); the WebSocket transport forwards every event to its clients as a JSON-RPC
 * notification `{"method":"event","params":{type,…ids}}` so the desktop UI can refresh exactly
 * the affected project groups and sessions. Events carry ids only, never content: a client that
 * cares re-reads through the normal methods, which keeps one source of truth and one auth path.
 * The one exception are chat run events (`chat.*`, built by @recall/chat), emitted with
 * `emitChat()`: a streamed partial answer is not persisted, so it can only travel in the event.
 */
// Event names and payload shapes are part of the wire contract (the desktop types its event bus
// with them), so they live in @recall/rpc-contract: import EVENT_TYPES and GatewayEvent from there.
import type { ChatEvent, GatewayEvent, GatewayEventType } from '@recall/rpc-contract';

/** Everything a listener can receive: change events (ids only) and chat run events. */
export type HubEvent = GatewayEvent | ChatEvent;
/** A hub subscriber; called synchronously after the write committed. Exceptions are caught and logged. */
export type EventListener = (event: HubEvent) => void;

/**
 * What a method handler passes to {@link EventHub.emit}: the event type and the ids it touched
 * (null/undefined entries are dropped, duplicates merged; a `null` project id means "unassigned").
 */
export interface EventInput {
  /** One of rpc-contract's EVENT_TYPES, e.g. `messages.changed`. */
  type: GatewayEventType;
  projectIds?: readonly (string | null | undefined)[];
  sessionIds?: readonly (string | null | undefined)[];
  messageIds?: readonly (number | null | undefined)[];
  unassigned?: boolean;
}

function uniq<T>(values: readonly (T | null | undefined)[] | undefined): T[] | undefined {
  if (values === undefined) return undefined;
  const out = [...new Set(values.filter((v): v is T => v !== null && v !== undefined))];
  return out.length === 0 ? undefined : out;
}

/**
 * In-process publish/subscribe of change events (ids only) and chat run events. The gateway creates
 * one per server (`gateway.events`); every WebSocket client receives each event as an `event`
 * notification. `onListenerError` receives what a listener threw (default: ignored).
 */
export class EventHub {
  readonly #listeners = new Set<EventListener>();
  readonly #onListenerError: (error: unknown) => void;

  constructor(onListenerError: (error: unknown) => void = () => {}) {
    this.#onListenerError = onListenerError;
  }

  /** Returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** How many listeners are subscribed. */
  get listenerCount(): number {
    return this.#listeners.size;
  }

  /** Normalises ids (dedupe, drop null) and delivers synchronously; one failing listener never stops the others or the handler that emitted. */
  emit(input: EventInput): GatewayEvent {
    const event: GatewayEvent = { type: input.type };
    const projectIds = uniq(input.projectIds);
    const sessionIds = uniq(input.sessionIds);
    const messageIds = uniq(input.messageIds);
    if (projectIds) event.projectIds = projectIds;
    if (sessionIds) event.sessionIds = sessionIds;
    if (messageIds) event.messageIds = messageIds;
    if (input.unassigned ?? input.projectIds?.some((p) => p === null) ?? false) event.unassigned = true;
    this.#deliver(event);
    return event;
  }

  /** Chat run events are delivered as built by the chat module (their shapes are its contract). */
  emitChat(event: ChatEvent): void {
    this.#deliver(event);
  }

  #deliver(event: HubEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }
}
