/**
 * The chat run's live events, emitted to the host's event sink (the gateway forwards them to every WebSocket client) as
 * `{"jsonrpc":"2.0","method":"event","params":{"type":"chat.…", …}}` — the same notification frame
 * as the change events. Unlike those (ids only), `chat.delta` must carry the streamed text: the UI
 * cannot re-read a partial answer that is deliberately not persisted. Every run emits `chat.started`
 * first and exactly one terminal event, `chat.done` (completed) or `chat.error` (cancelled/failed).
 * Persisted messages additionally raise the ordinary `messages.changed` event.
 */
// The payload shapes are part of the wire contract (the desktop renders them), so they live in
// @recall/rpc-contract; this module names them for the chat loop.
export { CHAT_EVENT_TYPES } from '@recall/rpc-contract';
export type { ChatEventType, ChatToolAnchor, ChatStartedEvent, ChatDeltaEvent, ChatToolEvent, ChatDoneEvent, ChatErrorEvent, ChatEvent } from '@recall/rpc-contract';
