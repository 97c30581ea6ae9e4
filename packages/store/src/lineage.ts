/**
 * Creating related sessions: compression continuations (same logical conversation, project read
 * inside the BEGIN IMMEDIATE transaction that creates them), branches (inherit the project at
 * creation, copy the visible history up to a message, then move independently), resets (a new
 * conversation that inherits the project once and does not follow later moves) and delegation
 * children (hidden, part of the parent's conversation).
 */
import type { ContinuationResult } from '@recall/rpc-contract';
import type { RecallDatabase } from '@recall/schema';
import { nowMs } from './clock.js';
import { ValidationError } from './errors.js';
import { getMessages, insertMessages } from './messages.js';
import type { Session } from './rows.js';
import { assertNotCompressed, createSession, getSession } from './sessions.js';
import { prepared, writeTransaction } from './transaction.js';

/**
 * Ends `sourceId` with end reason `compression` and continues in a new session of the same logical
 * conversation (same project, read inside the transaction). `note` becomes the continuation's first
 * (system) message, e.g. a summary; the compressed history stays recallable. A session compresses once.
 * Throws SessionNotFoundError and SessionAlreadyCompressedError (compress its continuation instead).
 */
export function createContinuation(db: RecallDatabase, sourceId: string, options: { title?: string | null; note?: string; id?: string } = {}): ContinuationResult {
  return writeTransaction(db, () => {
    const source = getSession(db, sourceId);
    // Checked before the source is ended (createSession checks again for every other writer).
    assertNotCompressed(db, sourceId);
    prepared(db, "update sessions set ended_at = coalesce(ended_at, ?), end_reason = 'compression', updated_at = ? where id = ?").run(nowMs(), nowMs(), sourceId);
    const session = createSession(db, {
      ...(options.id ? { id: options.id } : {}),
      parentSessionId: sourceId,
      lineage: 'compression',
      source: source.source,
      title: options.title ?? source.title,
      cwd: source.cwd,
      gitRepoRoot: source.gitRepoRoot,
      gitBranch: source.gitBranch,
      model: source.model,
      messages: options.note ? [{ role: 'system', content: options.note }] : [],
    });
    return { previous: getSession(db, sourceId), session };
  });
}

/**
 * A branch: a new conversation with a copy of `sourceId`'s visible history (up to and including
 * `fromMessageId`, default all), in the source's project at creation; afterwards it moves on its own.
 * Throws SessionNotFoundError, ValidationError (message not visible in the source) and
 * ProjectArchivedError.
 */
export function createBranch(db: RecallDatabase, sourceId: string, options: { fromMessageId?: number; title?: string | null; id?: string } = {}): Session {
  return writeTransaction(db, () => {
    const source = getSession(db, sourceId);
    const history = getMessages(db, sourceId, { limit: 10_000 });
    let upTo = history.length;
    if (options.fromMessageId !== undefined) {
      upTo = history.findIndex((m) => m.id === options.fromMessageId) + 1;
      if (upTo === 0) throw new ValidationError(`Message ${options.fromMessageId} is not a visible message of session ${sourceId}.`, { sourceId });
    }
    const session = createSession(db, {
      ...(options.id ? { id: options.id } : {}),
      parentSessionId: sourceId,
      lineage: 'branch',
      source: source.source,
      title: options.title ?? (source.title ? `${source.title} (branch)` : null),
      cwd: source.cwd,
      gitRepoRoot: source.gitRepoRoot,
      gitBranch: source.gitBranch,
      model: source.model,
    });
    const copied = history.slice(0, upTo);
    const { messages: copies } = insertMessages(
      db,
      session.id,
      copied.map((m) => ({ role: m.role, content: m.content, toolName: m.toolName, toolCalls: m.toolCalls, toolCallId: m.toolCallId, createdAt: m.createdAt })),
    );
    // Each copy remembers its source message: the semantic index reuses the source's vectors when
    // the content hash matches, so a branch costs no embedding calls.
    const setOrigin = prepared(db, 'update messages set origin_message_id = ? where id = ?');
    copies.forEach((copy, i) => setOrigin.run(copied[i]!.id, copy.id));
    return getSession(db, session.id);
  });
}

/**
 * A reset (/new): a fresh, empty conversation that starts in the source's project and then lives on its
 * own. Throws SessionNotFoundError and ProjectArchivedError (an archived project takes no new
 * conversations).
 */
export function createReset(db: RecallDatabase, sourceId: string, options: { title?: string | null; id?: string } = {}): Session {
  return writeTransaction(db, () => {
    const source = getSession(db, sourceId);
    return createSession(db, {
      ...(options.id ? { id: options.id } : {}),
      parentSessionId: sourceId,
      lineage: 'reset',
      source: source.source,
      title: options.title ?? null,
      cwd: source.cwd,
      gitRepoRoot: source.gitRepoRoot,
      gitBranch: source.gitBranch,
      model: source.model,
    });
  });
}

/**
 * A sub-agent's session: hidden from lists and recall, part of the parent's logical conversation (so it
 * moves with it). Throws SessionNotFoundError.
 */
export function createDelegation(db: RecallDatabase, parentId: string, options: { title?: string | null; id?: string; source?: string } = {}): Session {
  return writeTransaction(db, () => {
    const parent = getSession(db, parentId);
    return createSession(db, {
      ...(options.id ? { id: options.id } : {}),
      parentSessionId: parentId,
      lineage: 'delegation',
      source: options.source ?? 'delegation',
      title: options.title ?? null,
      cwd: parent.cwd,
      gitRepoRoot: parent.gitRepoRoot,
      gitBranch: parent.gitBranch,
    });
  });
}
