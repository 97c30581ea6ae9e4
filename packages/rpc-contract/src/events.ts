/**
 * The WebSocket notifications of the gateway, all sent as `{"jsonrpc":"2.0","method":"event",
 * "params":{type,…}}`. Change events carry ids only, never content (a client re-reads through the
 * methods); an event without ids means "refresh everything of that kind". Chat run events carry the
 * run's fields, and `chat.delta` the streamed text — a partial answer is not persisted, so it can
 * only travel in the event. Every run emits `chat.started` first and exactly one terminal event,
 * `chat.done` (completed) or `chat.error` (cancelled/failed).
 */
import type { ChatErrorCode } from './error-codes.js';
import type { ChatToolAnchor } from './objects.js';

/** The JSON-RPC notification method every event is sent as. */
export const EVENT_NOTIFICATION_METHOD = 'event';

export const EVENT_TYPES = ['projects.changed', 'sessions.changed', 'messages.changed', 'index.changed'] as const;
export type GatewayEventType = (typeof EVENT_TYPES)[number];

export interface GatewayEvent {
  type: GatewayEventType;
  /** Projects whose contents or metadata changed (both source and target of a move). Never null: the "No project" group refreshes on any sessions.changed. */
  projectIds?: string[];
  sessionIds?: string[];
  messageIds?: number[];
  /** Set when a session left or joined "No project" (project_id NULL), so a UI refreshes that group too. */
  unassigned?: boolean;
}

export const CHAT_EVENT_TYPES = ['chat.started', 'chat.delta', 'chat.tool', 'chat.done', 'chat.error'] as const;
export type ChatEventType = (typeof CHAT_EVENT_TYPES)[number];

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

/** Everything the `event` notification carries. */
export type WireEvent = GatewayEvent | ChatEvent;
