/**
 * Messages: append (idempotent by external_id within a session), edit, delete, rewind and compact.
 * Every write keeps the FTS keyword index in step inside the same transaction, so a reader never
 * sees a message without its index row or an index row for an edited text. Visibility decides
 * recall: live and compacted rows are findable; rewound and deleted rows never are.
 */
import { MAX_MESSAGE_CHARS } from '@recall/rpc-contract';
import type { RecallDatabase } from '@recall/schema';
import { z } from 'zod';
import { nowMs } from './clock.js';
import { MessageNotFoundError, SessionNotFoundError, ValidationError } from './errors.js';
import { indexMessages, unindexMessages } from './fts-index.js';
import { toMessage, type Message, type MessageRow } from './rows.js';
import { prepared, readTransaction, writeTransaction } from './transaction.js';
import { newMessageSchema, parseInput, text, type NewMessage } from './validation.js';

/**
 * What `appendMessages` stored: every message in input order (a repeated `externalId` gives the stored
 * one) and how many were new.
 */
export interface AppendResult {
  /** Messages in input order: newly inserted or, for a repeated external_id, the stored one. */
  messages: Message[];
  inserted: number;
  skipped: number;
}

const INSERT_SQL = `insert into messages (session_id, role, content, tool_name, tool_calls, tool_call_id, external_id, created_at, visibility)
  values (?, ?, ?, ?, ?, ?, ?, ?, ?)`;

function assertSession(db: RecallDatabase, sessionId: string): void {
  if (!prepared(db, 'select 1 from sessions where id = ?').get(sessionId)) throw new SessionNotFoundError(sessionId);
}

/**
 * Inserts already-validated messages; the caller holds the write transaction. Returns rows in
 * input order. Kept separate so createSession/upsertSession can store first messages atomically.
 */
export function insertMessages(db: RecallDatabase, sessionId: string, inputs: readonly z.output<typeof newMessageSchema>[]): AppendResult {
  const insert = prepared(db, INSERT_SQL);
  const byExternal = prepared(db, 'select * from messages where session_id = ? and external_id = ?');
  const out: Message[] = [];
  const fresh: { id: number; content: string }[] = [];
  let skipped = 0;
  let last = 0;
  const now = nowMs();
  for (const m of inputs) {
    if (m.externalId) {
      const existing = byExternal.get(sessionId, m.externalId) as MessageRow | undefined;
      if (existing) {
        // An importer re-reading a source whose visibility flags changed since (a later compaction or
        // rewind) brings the stored row in line; a row deleted here stays deleted.
        if (m.visibility !== undefined && m.visibility !== existing.visibility && existing.visibility !== 'deleted') {
          prepared(db, 'update messages set visibility = ? where id = ?').run(m.visibility, existing.id);
          existing.visibility = m.visibility;
        }
        out.push(toMessage(existing));
        skipped++;
        continue;
      }
    }
    const createdAt = m.createdAt ?? now;
    const info = insert.run(sessionId, m.role, m.content, m.toolName ?? null, m.toolCalls ?? null, m.toolCallId ?? null, m.externalId ?? null, createdAt, m.visibility ?? 'live');
    const id = Number(info.lastInsertRowid);
    fresh.push({ id, content: m.content });
    last = Math.max(last, createdAt);
    out.push({
      id,
      sessionId,
      role: m.role,
      content: m.content,
      toolName: m.toolName ?? null,
      toolCalls: m.toolCalls ?? null,
      toolCallId: m.toolCallId ?? null,
      externalId: m.externalId ?? null,
      createdAt,
      visibility: m.visibility ?? 'live',
      editedAt: null,
    });
  }
  if (fresh.length > 0) {
    indexMessages(db.raw, fresh);
    prepared(db, 'update sessions set updated_at = max(updated_at, ?) where id = ?').run(Math.max(last, now), sessionId);
  }
  return { messages: out, inserted: fresh.length, skipped };
}

const appendManySchema = z.array(newMessageSchema).max(100_000);

/**
 * Appends messages to a session in one transaction and indexes them for keyword search. A message whose
 * `externalId` the session already has is not stored again (the stored one is returned). Throws
 * ValidationError (content over MAX_MESSAGE_CHARS, bad role, …) and SessionNotFoundError; nothing is
 * stored then.
 */
export function appendMessages(db: RecallDatabase, sessionId: string, inputs: readonly NewMessage[]): AppendResult {
  const data = parseInput(appendManySchema, inputs, 'messages');
  return writeTransaction(db, () => {
    assertSession(db, sessionId);
    return insertMessages(db, sessionId, data);
  });
}

/**
 * Appends one message (see appendMessages) and returns it as stored. Throws ValidationError and
 * SessionNotFoundError.
 */
export function appendMessage(db: RecallDatabase, sessionId: string, input: NewMessage): Message {
  const result = appendMessages(db, sessionId, [input]);
  const message = result.messages[0];
  if (!message) throw new ValidationError('No message was appended.');
  return message;
}

/**
 * Which of `externalIds` the session already holds (any visibility), in input order without repeats:
 * what appendMessages would skip (an importer's dry run). An unknown session holds none.
 */
export function existingExternalIds(db: RecallDatabase, sessionId: string, externalIds: readonly string[]): string[] {
  const has = prepared(db, 'select 1 from messages where session_id = ? and external_id = ?');
  const out: string[] = [];
  const seen = new Set<string>();
  for (const id of externalIds) {
    if (seen.has(id)) continue;
    seen.add(id);
    if (has.get(sessionId, id) !== undefined) out.push(id);
  }
  return out;
}

/** The message with this id (any visibility), or undefined. */
export function findMessage(db: RecallDatabase, messageId: number): Message | undefined {
  const row = prepared(db, 'select * from messages where id = ?').get(messageId) as MessageRow | undefined;
  return row ? toMessage(row) : undefined;
}

/**
 * The message with this id (any visibility). Throws ValidationError for a non-positive id and
 * MessageNotFoundError.
 */
export function getMessage(db: RecallDatabase, messageId: number): Message {
  if (!Number.isSafeInteger(messageId) || messageId <= 0) throw new ValidationError('message id must be a positive integer', { messageId });
  const message = findMessage(db, messageId);
  if (!message) throw new MessageNotFoundError(messageId);
  return message;
}

const editSchema = text(MAX_MESSAGE_CHARS, `content must be at most ${MAX_MESSAGE_CHARS} characters`);

/**
 * Replaces a message's text (≤ MAX_MESSAGE_CHARS), sets `editedAt` and re-indexes it; returns the
 * message. Throws ValidationError (too long, or the message is deleted or rewound) and
 * MessageNotFoundError.
 */
export function editMessage(db: RecallDatabase, messageId: number, content: string): Message {
  const text = parseInput(editSchema, content, 'message content');
  return writeTransaction(db, () => {
    const current = getMessage(db, messageId);
    if (current.visibility === 'deleted' || current.visibility === 'rewound') {
      throw new ValidationError(`Message ${messageId} is ${current.visibility} and cannot be edited.`, { messageId });
    }
    const now = nowMs();
    // The index row is removed with the text it was built from, so before that text is replaced.
    unindexMessages(db.raw, [messageId]);
    prepared(db, 'update messages set content = ?, edited_at = ? where id = ?').run(text, now, messageId);
    indexMessages(db.raw, [{ id: messageId, content: text }]);
    prepared(db, 'update sessions set updated_at = ? where id = ?').run(now, current.sessionId);
    return getMessage(db, messageId);
  });
}

/**
 * Soft delete: the message becomes `deleted` and leaves the keyword index and every reader, but the row
 * stays. Deleting twice is a no-op. Returns the message; throws MessageNotFoundError.
 */
export function deleteMessage(db: RecallDatabase, messageId: number): Message {
  return writeTransaction(db, () => {
    const current = getMessage(db, messageId);
    if (current.visibility !== 'deleted') {
      prepared(db, "update messages set visibility = 'deleted', edited_at = ? where id = ?").run(nowMs(), messageId);
      unindexMessages(db.raw, [messageId]);
    }
    return getMessage(db, messageId);
  });
}

/**
 * Rewinds a session to `toMessageId`: its visible messages after that one become `rewound` (no longer
 * part of the history). Returns how many changed. Throws SessionNotFoundError, MessageNotFoundError, and
 * ValidationError when the message is in another session.
 */
export function rewindSession(db: RecallDatabase, sessionId: string, toMessageId: number): number {
  return writeTransaction(db, () => {
    assertSession(db, sessionId);
    const anchor = getMessage(db, toMessageId);
    if (anchor.sessionId !== sessionId) throw new ValidationError(`Message ${toMessageId} is not in session ${sessionId}.`, { sessionId, toMessageId });
    const info = prepared(db, "update messages set visibility = 'rewound' where session_id = ? and id > ? and visibility in ('live','compacted')").run(sessionId, toMessageId);
    return info.changes;
  });
}

/**
 * In-place compaction: live messages up to `upToMessageId` become `compacted` — out of the model's live
 * context but still readable and searchable. Returns how many changed; throws SessionNotFoundError.
 */
export function compactMessages(db: RecallDatabase, sessionId: string, upToMessageId: number): number {
  return writeTransaction(db, () => {
    assertSession(db, sessionId);
    const info = prepared(db, "update messages set visibility = 'compacted' where session_id = ? and id <= ? and visibility = 'live'").run(sessionId, upToMessageId);
    return info.changes;
  });
}

/**
 * Options of `getMessages`: messages after `afterId` (default 0), at most `limit` (1-10,000, default
 * 1000).
 */
export interface GetMessagesOptions {
  afterId?: number;
  limit?: number;
  /** Include rewound and deleted rows (for audit views); recall never does. */
  includeHidden?: boolean;
}

/**
 * A session's visible messages in id order (rewound and deleted ones too with `includeHidden`). Throws
 * SessionNotFoundError.
 */
export function getMessages(db: RecallDatabase, sessionId: string, options: GetMessagesOptions = {}): Message[] {
  const limit = Math.min(Math.max(Math.floor(options.limit ?? 1000), 1), 10_000);
  return readTransaction(db, () => {
    assertSession(db, sessionId);
    const visibility = options.includeHidden ? '' : " and visibility in ('live','compacted')";
    const rows = db.raw
      .prepare(`select * from messages where session_id = ? and id > ?${visibility} order by id limit ?`)
      .all(sessionId, options.afterId ?? 0, limit) as MessageRow[];
    return rows.map(toMessage);
  });
}
