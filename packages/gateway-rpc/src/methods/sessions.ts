/**
 * `session.*` methods: creating, resuming and listing conversations, their messages, lineage
 * (compress / branch / reset) and the two different kinds of "move". The seed's business contract
 * is enforced by which store function each method may call: `session.project.set` is the ONLY method
 * that changes a conversation's project (the whole logical conversation, one transaction, returning
 * what was written); `session.cwd.set` and `session.workspace.move` change directory and git
 * metadata only and never touch project_id; resume reads the stored project and never recomputes
 * it. Mutations emit events after their store transaction has committed.
 */
import {
  appendMessage,
  compactMessages,
  createBranch,
  createContinuation,
  createReset,
  createSession,
  deleteMessage,
  editMessage,
  getMessages,
  getSession,
  listSessions,
  readTransaction,
  rewindSession,
  setSessionCwd,
  setSessionProject,
  setSessionTitle,
  type Session,
} from '@recall/store';
import { z } from 'zod';
import type { CallContext } from '../context.js';
import {
  contentField,
  definedOnly,
  limitField,
  messageIdField,
  method,
  offsetField,
  pathField,
  projectIdField,
  roleField,
  sessionIdField,
  timestampField,
  titleField,
  type GatewayMethod,
} from './common.js';

const shortText = (max: number, what: string) => z.string().max(max).describe(`${what} (at most ${max} characters)`);

const newMessageFields = {
  role: roleField,
  content: contentField,
  toolName: shortText(200, 'Tool name for tool calls/results').optional(),
  toolCalls: z.string().max(1_048_576).optional().describe('Tool calls as JSON text'),
  toolCallId: shortText(200, 'Id of the tool call this message answers').optional(),
  externalId: z.string().min(1).max(500).optional().describe('Caller id; appending the same externalId to a session again is a no-op'),
  createdAt: timestampField.optional().describe('Creation time in ms since the epoch (default now)'),
};
const newMessageSchema = z.strictObject(newMessageFields).describe('A message to store');

const directoryParams = z.strictObject({
  sessionId: sessionIdField,
  cwd: pathField.describe('New working directory'),
  gitRepoRoot: pathField.nullable().optional().describe('Git repository root of cwd (null or omitted = none)'),
  gitBranch: shortText(500, 'Git branch').nullable().optional(),
});

function sessionChanged(ctx: CallContext, sessions: readonly Session[]): void {
  ctx.events.emit({
    type: 'sessions.changed',
    sessionIds: sessions.map((s) => s.id),
    projectIds: sessions.map((s) => s.projectId),
  });
}

function messagesChanged(ctx: CallContext, sessionId: string, messageIds: readonly number[]): void {
  const session = getSession(ctx.db, sessionId);
  ctx.events.emit({ type: 'messages.changed', sessionIds: [sessionId], messageIds, projectIds: [session.projectId] });
}

export const sessionMethods: GatewayMethod[] = [
  method(
    'session.create',
    'Create a conversation in a project (projectId) or in none (omitted or null), optionally with its first messages in the same transaction.',
    z.strictObject({
      sessionId: z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/)
        .optional()
        .describe('Caller-chosen id (1-128 letters, digits, . _ : -); default a new "s_…" id'),
      projectId: projectIdField.nullable().optional().describe('Owning project; omitted or null = no project'),
      title: titleField.optional(),
      cwd: pathField.optional().describe('Working directory'),
      gitRepoRoot: pathField.optional().describe('Git repository root'),
      gitBranch: shortText(500, 'Git branch').optional(),
      source: z.string().min(1).max(64).optional().describe('Where the conversation comes from (default "desktop")'),
      model: shortText(200, 'Model name').optional(),
      messages: z.array(newMessageSchema).max(1000).optional().describe('First messages (at most 1000), stored atomically with the session'),
    }),
    (p, ctx) => {
      const { sessionId, messages, ...fields } = p;
      const session = createSession(ctx.db, {
        ...definedOnly(fields),
        ...(sessionId === undefined ? {} : { id: sessionId }),
        ...(messages === undefined ? {} : { messages: messages.map((m) => definedOnly(m)) }),
      });
      sessionChanged(ctx, [session]);
      return session;
    },
  ),

  method(
    'session.resume',
    'A conversation and its visible messages; the project is read from the database, never recomputed from cwd.',
    z.strictObject({ sessionId: sessionIdField, limit: limitField(10_000, 1000).describe('Maximum messages, oldest first (1-10000, default 1000)') }),
    (p, ctx) =>
      // One read transaction: the session row and its messages come from the same snapshot.
      readTransaction(ctx.db, () => ({ session: getSession(ctx.db, p.sessionId), messages: getMessages(ctx.db, p.sessionId, { limit: p.limit }) })),
  ),

  method('session.get', 'One conversation.', z.strictObject({ sessionId: sessionIdField }), (p, ctx) => getSession(ctx.db, p.sessionId)),

  method(
    'session.list',
    'Conversations, most recently active first. projectId omitted = all, null = only those without a project.',
    z.strictObject({
      projectId: projectIdField.nullable().optional().describe('Filter: a project id, null for "No project", omitted for all'),
      includeArchived: z.boolean().default(false).describe('Include archived conversations (default false)'),
      includeHidden: z.boolean().default(false).describe('Include hidden ones such as delegation children (default false)'),
      limit: limitField(1000, 200),
      offset: offsetField,
    }),
    (p, ctx) => ({
      sessions: listSessions(ctx.db, {
        ...(p.projectId === undefined ? {} : { projectId: p.projectId }),
        includeArchived: p.includeArchived,
        includeHidden: p.includeHidden,
        limit: p.limit,
        offset: p.offset,
      }),
    }),
  ),

  method(
    'session.messages',
    'Messages of a conversation in id order, after an optional cursor.',
    z.strictObject({
      sessionId: sessionIdField,
      afterId: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0).describe('Return messages with id > afterId (default 0)'),
      limit: limitField(10_000, 1000),
      includeHidden: z.boolean().default(false).describe('Include rewound and deleted messages (default false)'),
    }),
    (p, ctx) => ({ messages: getMessages(ctx.db, p.sessionId, { afterId: p.afterId, limit: p.limit, includeHidden: p.includeHidden }) }),
  ),

  method(
    'session.append',
    'Append one message; idempotent per session by externalId.',
    z.strictObject({ sessionId: sessionIdField, ...newMessageFields }),
    (p, ctx) => {
      const { sessionId, ...message } = p;
      const stored = appendMessage(ctx.db, sessionId, definedOnly(message));
      messagesChanged(ctx, sessionId, [stored.id]);
      return stored;
    },
  ),

  method(
    'session.edit',
    'Replace the text of a live or compacted message (re-indexed in the same transaction).',
    z.strictObject({ messageId: messageIdField, content: contentField }),
    (p, ctx) => {
      const message = editMessage(ctx.db, p.messageId, p.content);
      messagesChanged(ctx, message.sessionId, [message.id]);
      return message;
    },
  ),

  method(
    'session.delete',
    'Soft-delete one message: it stays stored but leaves every recall path (visibility "deleted").',
    z.strictObject({ messageId: messageIdField }),
    (p, ctx) => {
      const message = deleteMessage(ctx.db, p.messageId);
      messagesChanged(ctx, message.sessionId, [message.id]);
      return message;
    },
  ),

  method(
    'session.rewind',
    'Messages after toMessageId become "rewound" (no longer history, never recalled).',
    z.strictObject({ sessionId: sessionIdField, toMessageId: messageIdField.describe('Last message to keep') }),
    (p, ctx) => {
      const rewound = rewindSession(ctx.db, p.sessionId, p.toMessageId);
      messagesChanged(ctx, p.sessionId, []);
      return { rewound };
    },
  ),

  method(
    'session.compact',
    'In-place compaction: live messages up to upToMessageId leave the live context but stay recallable ("compacted").',
    z.strictObject({ sessionId: sessionIdField, upToMessageId: messageIdField.describe('Last message to compact (inclusive)') }),
    (p, ctx) => {
      const compacted = compactMessages(ctx.db, p.sessionId, p.upToMessageId);
      messagesChanged(ctx, p.sessionId, []);
      return { compacted };
    },
  ),

  method(
    'session.compress',
    'End the conversation segment and continue in a new session of the same logical conversation (same project, read inside the write transaction).',
    z.strictObject({
      sessionId: sessionIdField,
      note: z.string().min(1).max(100_000).optional().describe("The continuation's first (system) message, e.g. a hand-off note (at most 100000 characters)"),
      title: titleField.optional().describe('Title of the continuation (default: the source title)'),
    }),
    (p, ctx) => {
      const result = createContinuation(ctx.db, p.sessionId, definedOnly({ note: p.note, title: p.title }));
      sessionChanged(ctx, [result.previous, result.session]);
      return result;
    },
  ),

  method(
    'session.branch',
    'A new conversation with a copy of the visible history (up to fromMessageId); inherits the project once, then moves independently.',
    z.strictObject({
      sessionId: sessionIdField,
      fromMessageId: messageIdField.optional().describe('Last message to copy (default: all visible messages)'),
      title: titleField.optional(),
    }),
    (p, ctx) => {
      const session = createBranch(ctx.db, p.sessionId, definedOnly({ fromMessageId: p.fromMessageId, title: p.title }));
      sessionChanged(ctx, [session]);
      return session;
    },
  ),

  method(
    'session.reset',
    'A fresh conversation (/new, /reset) that starts in the same project and does not follow later moves of the old one.',
    z.strictObject({ sessionId: sessionIdField, title: titleField.optional() }),
    (p, ctx) => {
      const session = createReset(ctx.db, p.sessionId, definedOnly({ title: p.title }));
      sessionChanged(ctx, [session]);
      return session;
    },
  ),

  method(
    'session.title',
    'Set (or clear with null) the title of one session.',
    z.strictObject({ sessionId: sessionIdField, title: titleField.nullable().describe('New title; null clears it') }),
    (p, ctx) => {
      const session = setSessionTitle(ctx.db, p.sessionId, p.title);
      sessionChanged(ctx, [session]);
      return session;
    },
  ),

  method(
    'session.project.set',
    'THE method that changes ownership: moves the whole logical conversation to projectId (null = no project); never touches messages or cwd. Returns what was written.',
    z.strictObject({
      sessionId: sessionIdField,
      // Required and explicit: "remove from project" must be said (null), never implied by omission.
      projectId: projectIdField.nullable().describe('Target project id, or null to remove the conversation from its project'),
    }),
    (p, ctx) => {
      const result = setSessionProject(ctx.db, p.sessionId, p.projectId);
      const touched = [result.previousProjectId, result.projectId];
      ctx.events.emit({ type: 'sessions.changed', sessionIds: result.sessionIds, projectIds: touched });
      ctx.events.emit({ type: 'projects.changed', projectIds: touched });
      return result;
    },
  ),

  method(
    'session.cwd.set',
    'Change the working directory (and git metadata) of a session. Never changes its project.',
    directoryParams,
    (p, ctx) => {
      const session = setSessionCwd(ctx.db, p.sessionId, definedOnly({ cwd: p.cwd, gitRepoRoot: p.gitRepoRoot, gitBranch: p.gitBranch }));
      sessionChanged(ctx, [session]);
      return session;
    },
  ),

  method(
    'session.workspace.move',
    "Move a session's workspace to another directory (e.g. another worktree): directory and git metadata only, never its project.",
    directoryParams,
    (p, ctx) => {
      const session = setSessionCwd(ctx.db, p.sessionId, definedOnly({ cwd: p.cwd, gitRepoRoot: p.gitRepoRoot, gitBranch: p.gitBranch }));
      sessionChanged(ctx, [session]);
      return session;
    },
  ),
];
