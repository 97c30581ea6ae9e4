/**
 * The chat run's live events, delivered through the gateway's event hub to every WebSocket client as
 * `{"jsonrpc":"2.0","method":"event","params":{"type":"chat.…", …}}` — the same notification frame
 * as the change events. Unlike those (ids only), `chat.delta` must carry the streamed text: the UI
 * cannot re-read a partial answer that is deliberately not persisted. Every run emits `chat.started`
 * first and exactly one terminal event, `chat.done` (completed) or `chat.error` (cancelled/failed).
 * Persisted messages additionally raise the ordinary `messages.changed` event.
 */
import type { ChatErrorCode } from '../errors.js';

export const CHAT_EVENT_TYPES = ['chat.started', 'chat.delta', 'chat.tool', 'chat.done', 'chat.error'] as const;
export type ChatEventType = (typeof CHAT_EVENT_TYPES)[number];

/** A search anchor as returned by session_search: enough for the UI to render a link that opens the message. */
export interface ChatToolAnchor {
  session_id: string;
  message_id: number;
  link: string;
}

export interface ChatStartedEvent {
  type: 'chat.started';
  sessionId: string;
  runId: string;
  userMessageId: number;
}

export interface ChatDeltaEvent {
  type: 'chat.delta';
  sessionId: string;
  runId: string;
  /** 1-based model request within the turn (a new round starts after tool results). */
  round: number;
  text: string;
}

export interface ChatToolEvent {
  type: 'chat.tool';
  sessionId: string;
  runId: string;
  round: number;
  toolCallId: string;
  name: string;
  /** Parsed arguments as the model sent them (the raw string when they were not a JSON object). */
  arguments: unknown;
  /** The tool's `used_mode` (keyword, hybrid, semantic, direct, none), null when the tool did not run. */
  used_mode: string | null;
  hits: number;
  anchors: ChatToolAnchor[];
  error?: { code: string; message: string };
  /** The stored tool message holding the full result JSON. */
  messageId: number;
}

export interface ChatDoneEvent {
  type: 'chat.done';
  sessionId: string;
  runId: string;
  /** The final assistant message. */
  messageId: number;
  status: 'completed';
}

export interface ChatErrorEvent {
  type: 'chat.error';
  sessionId: string;
  runId: string;
  status: 'cancelled' | 'failed';
  code: ChatErrorCode;
  message: string;
  retryable: boolean;
  /** Messages this run stored before it stopped (the user's message first). */
  messageIds: number[];
}

export type ChatEvent = ChatStartedEvent | ChatDeltaEvent | ChatToolEvent | ChatDoneEvent | ChatErrorEvent;
