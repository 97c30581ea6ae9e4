/**
 * `session.*` params: creating, resuming and listing conversations, their messages, lineage
 * (compress / branch / reset) and the two different kinds of "move" — `session.project.set` (the
 * only method that changes ownership; `projectId` is required so removal is always said, never
 * implied by omission) and `session.cwd.set` / `session.workspace.move` (directory only).
 */
import { z } from 'zod';
import { contentField, limitField, messageIdField, offsetField, pathField, projectIdField, roleField, sessionIdField, shortText, timestampField, titleField } from '../fields.js';
import { methodGroup } from '../method-spec.js';

/** The fields of a message to store (`session.append`, `session.create`'s `messages[]`). */
export const newMessageFields = {
  role: roleField,
  content: contentField,
  toolName: shortText(200, 'Tool name for tool calls/results').optional(),
  toolCalls: z.string().max(1_048_576).optional().describe('Tool calls as JSON text'),
  toolCallId: shortText(200, 'Id of the tool call this message answers').optional(),
  externalId: z.string().min(1).max(500).optional().describe('Caller id; appending the same externalId to a session again is a no-op'),
  createdAt: timestampField.optional().describe('Creation time in ms since the epoch (default now)'),
};
export const newMessageSchema = z.strictObject(newMessageFields).describe('A message to store');

const directoryParams = z.strictObject({
  sessionId: sessionIdField,
  cwd: pathField.describe('New working directory'),
  gitRepoRoot: pathField.nullable().optional().describe('Git repository root of cwd (null or omitted = none)'),
  gitBranch: shortText(500, 'Git branch').nullable().optional(),
});

export const SESSION_METHODS = methodGroup({
  'session.create': {
    summary: 'Create a conversation in a project (projectId) or in none (omitted or null), optionally with its first messages in the same transaction.',
    params: z.strictObject({
      sessionId: z
        .string()
        .max(128)
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
  },
  'session.resume': {
    summary: 'A conversation and its visible messages; the project is read from the database, never recomputed from cwd.',
    params: z.strictObject({ sessionId: sessionIdField, limit: limitField(10_000, 1000).describe('Maximum messages, oldest first (1-10000, default 1000)') }),
  },
  'session.get': { summary: 'One conversation.', params: z.strictObject({ sessionId: sessionIdField }) },
  'session.list': {
    summary: 'Conversations, most recently active first. projectId omitted = all, null = only those without a project.',
    params: z.strictObject({
      projectId: projectIdField.nullable().optional().describe('Filter: a project id, null for "No project", omitted for all'),
      includeArchived: z.boolean().default(false).describe('Include archived conversations (default false)'),
      includeHidden: z.boolean().default(false).describe('Include hidden ones such as delegation children (default false)'),
      limit: limitField(1000, 200),
      offset: offsetField,
    }),
  },
  'session.messages': {
    summary: 'Messages of a conversation in id order, after an optional cursor.',
    params: z.strictObject({
      sessionId: sessionIdField,
      afterId: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0).describe('Return messages with id > afterId (default 0)'),
      limit: limitField(10_000, 1000),
      includeHidden: z.boolean().default(false).describe('Include rewound and deleted messages (default false)'),
    }),
  },
  'session.append': {
    summary: 'Append one message; idempotent per session by externalId.',
    params: z.strictObject({ sessionId: sessionIdField, ...newMessageFields }),
  },
  'session.edit': {
    summary: 'Replace the text of a live or compacted message (re-indexed in the same transaction).',
    params: z.strictObject({ messageId: messageIdField, content: contentField }),
  },
  'session.delete': {
    summary: 'Soft-delete one message: it stays stored but leaves every recall path (visibility "deleted").',
    params: z.strictObject({ messageId: messageIdField }),
  },
  'session.rewind': {
    summary: 'Messages after toMessageId become "rewound" (no longer history, never recalled).',
    params: z.strictObject({ sessionId: sessionIdField, toMessageId: messageIdField.describe('Last message to keep') }),
  },
  'session.compact': {
    summary: 'In-place compaction: live messages up to upToMessageId leave the live context but stay recallable ("compacted").',
    params: z.strictObject({ sessionId: sessionIdField, upToMessageId: messageIdField.describe('Last message to compact (inclusive)') }),
  },
  'session.compress': {
    summary: 'End the conversation segment and continue in a new session of the same logical conversation (same project, read inside the write transaction).',
    params: z.strictObject({
      sessionId: sessionIdField,
      note: z.string().min(1).max(100_000).optional().describe("The continuation's first (system) message, e.g. a hand-off note (at most 100000 characters)"),
      title: titleField.optional().describe('Title of the continuation (default: the source title)'),
    }),
  },
  'session.branch': {
    summary: 'A new conversation with a copy of the visible history (up to fromMessageId); inherits the project once, then moves independently.',
    params: z.strictObject({
      sessionId: sessionIdField,
      fromMessageId: messageIdField.optional().describe('Last message to copy (default: all visible messages)'),
      title: titleField.optional(),
    }),
  },
  'session.reset': {
    summary: 'A fresh conversation (/new, /reset) that starts in the same project and does not follow later moves of the old one.',
    params: z.strictObject({ sessionId: sessionIdField, title: titleField.optional() }),
  },
  'session.title': {
    summary: 'Set (or clear with null) the title of one session.',
    params: z.strictObject({ sessionId: sessionIdField, title: titleField.nullable().describe('New title; null clears it') }),
  },
  'session.project.set': {
    summary: 'THE method that changes ownership: moves the whole logical conversation to projectId (null = no project); never touches messages or cwd. Returns what was written.',
    params: z.strictObject({
      sessionId: sessionIdField,
      // Required and explicit: "remove from project" must be said (null), never implied by omission.
      projectId: projectIdField.nullable().describe('Target project id, or null to remove the conversation from its project'),
    }),
  },
  'session.cwd.set': {
    summary: 'Change the working directory (and git metadata) of a session. Never changes its project.',
    params: directoryParams,
  },
  'session.workspace.move': {
    summary: "Move a session's workspace to another directory (e.g. another worktree): directory and git metadata only, never its project.",
    params: directoryParams,
  },
});
