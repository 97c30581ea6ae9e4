/**
 * MessageStore: appending (idempotent per external id), edits, soft deletes, rewinds, in-place
 * compaction, and the reads callers make today — windows around an anchor (search-tool read/scroll),
 * head/tail, segment-crossing windows, and pages (gateway-rpc `session.page`). Only live and
 * compacted messages are ever returned by the readers unless `includeHidden` is asked for.
 */
import type { Message, MessageRole } from '@recall/rpc-contract';

/** A message to append. */
export interface MessageInput {
  role: MessageRole;
  content: string;
  toolName?: string | null;
  toolCalls?: string | null;
  toolCallId?: string | null;
  /** Idempotency key within the session (importers). */
  externalId?: string | null;
  createdAt?: number;
  /** An imported message's visibility (default live); deleted cannot be appended. */
  visibility?: 'live' | 'compacted' | 'rewound';
}

/** What append stored: every message in input order (a repeated externalId gives the stored one), and how many were new. */
export interface AppendOutcome {
  messages: Message[];
  inserted: number;
  skipped: number;
}

/** Visible messages around an anchor (included), in id order, and whether more exist beyond either end. */
export interface WindowSlice {
  messages: Message[];
  anchorId: number;
  moreBefore: boolean;
  moreAfter: boolean;
}

/** One window of MessageStore.windows: up to before/after visible neighbours of a visible anchor in one session. */
export interface WindowRequest {
  sessionId: string;
  anchorId: number;
  before: number;
  after: number;
}

/** The first and last visible messages; `truncated` when some lie between. */
export interface HeadAndTail {
  head: Message[];
  tail: Message[];
  truncated: boolean;
}

/** Where MessageStore.page reads: either end, around a message, or before/after an id. */
export type PagePosition = { at: 'oldest' | 'newest' } | { aroundMessageId: number } | { beforeId: number } | { afterId: number };

/** One page of a session's visible messages. */
export interface MessageSlice {
  messages: Message[];
  hasOlder: boolean;
  hasNewer: boolean;
  /** For aroundMessageId: whether that message is visible in this session. */
  anchorVisible?: boolean;
}

/** Messages of sessions. */
export interface MessageStore {
  /** Appends in one transaction and indexes for keyword search. Throws invalid_input, session_not_found. */
  append(sessionId: string, messages: readonly MessageInput[]): Promise<AppendOutcome>;
  /** The message (any visibility), or undefined. */
  find(messageId: number): Promise<Message | undefined>;
  /** Many messages at once (any visibility), by id (unknown ids and, inside a backend-enforced read scope, out-of-scope ids are absent). */
  findMany(messageIds: readonly number[]): Promise<Map<number, Message>>;
  /** The message (any visibility); throws invalid_input, message_not_found. */
  get(messageId: number): Promise<Message>;
  /** Replaces the text (re-indexed; semantic chunks of the old text become stale). Throws invalid_input (deleted/rewound), message_not_found. */
  edit(messageId: number, content: string): Promise<Message>;
  /** Soft delete (idempotent). Throws message_not_found. */
  delete(messageId: number): Promise<Message>;
  /** Visible messages after `toMessageId` become rewound; returns how many. */
  rewind(sessionId: string, toMessageId: number): Promise<number>;
  /** Live messages up to `upToMessageId` become compacted; returns how many. */
  compact(sessionId: string, upToMessageId: number): Promise<number>;
  /** Visible messages in id order after `afterId` (1..10,000, default 1000). Throws session_not_found. */
  list(sessionId: string, options?: { afterId?: number; limit?: number; includeHidden?: boolean }): Promise<Message[]>;
  /** Up to before/after visible neighbours of a visible anchor in one session. Throws message_not_found. */
  window(sessionId: string, anchorId: number, before: number, after: number): Promise<WindowSlice>;
  /** window() of many anchors at once, in request order; throws message_not_found for the first anchor window() would throw for. */
  windows(requests: readonly WindowRequest[]): Promise<WindowSlice[]>;
  /** A window over ordered compression segments (neighbours may cross segments); the anchor is kept whatever the roles. */
  segmentWindow(segments: readonly string[], anchorId: number, before: number, after: number, options?: { roles?: readonly MessageRole[] }): Promise<WindowSlice>;
  /** Head and tail of the segments read as one sequence; `since`/`until` (epoch ms, until exclusive) keep only messages of that range. */
  segmentsHeadTail(segments: readonly string[], head: number, tail: number, options?: { roles?: readonly MessageRole[]; since?: number; until?: number }): Promise<HeadAndTail>;
  /**
   * Which of `externalIds` the session already holds (any visibility), in input order without
   * repeats — what an append would skip. An unknown session holds none.
   */
  existingExternalIds(sessionId: string, externalIds: readonly string[]): Promise<string[]>;
  /** One page (1..10,000) of a session's visible messages. Throws session_not_found. */
  page(sessionId: string, position: PagePosition, limit: number): Promise<MessageSlice>;
}
