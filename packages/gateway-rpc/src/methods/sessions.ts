/**
 * `session.*` methods: creating, resuming and listing conversations, their messages, lineage
 * (compress / branch / reset) and the two different kinds of "move". The seed's business contract
 * is enforced by which store function each method may call: `session.project.set` is the ONLY method
 * that changes a conversation's project (the whole logical conversation, one transaction, returning
 * what was written); `session.cwd.set` and `session.workspace.move` change directory and git
 * metadata only and never touch project_id; resume reads the stored project and never recomputes
 * it. Mutations emit events after their store transaction has committed.
 * The methods' names, summaries and params schemas are the contract's
 * (@recall/rpc-contract, src/methods/sessions.ts); this module holds their handlers.
 */
import type { Session } from '@recall/rpc-contract';
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
  getSessionHeader,
  listSessions,
  readTransaction,
  rewindSession,
  setSessionCwd,
  setSessionProject,
  setSessionTitle,
} from '@recall/store';
import type { CallContext } from '../context.js';
import { definedOnly, method, type GatewayMethod } from './common.js';

function sessionChanged(ctx: CallContext, sessions: readonly Session[]): void {
  ctx.events.emit({
    type: 'sessions.changed',
    sessionIds: sessions.map((s) => s.id),
    projectIds: sessions.map((s) => s.projectId),
  });
}

function messagesChanged(ctx: CallContext, sessionId: string, messageIds: readonly number[]): void {
  const session = getSessionHeader(ctx.db, sessionId);
  ctx.events.emit({ type: 'messages.changed', sessionIds: [sessionId], messageIds, projectIds: [session.projectId] });
}

export const sessionMethods: GatewayMethod[] = [
  method('session.create', (p, ctx) => {
    const { sessionId, messages, ...fields } = p;
    const session = createSession(ctx.db, {
      ...definedOnly(fields),
      ...(sessionId === undefined ? {} : { id: sessionId }),
      ...(messages === undefined ? {} : { messages: messages.map((m) => definedOnly(m)) }),
    });
    sessionChanged(ctx, [session]);
    return session;
  }),

  method('session.resume', (p, ctx) =>
    // One read transaction: the session row and its messages come from the same snapshot.
    readTransaction(ctx.db, () => ({ session: getSession(ctx.db, p.sessionId), messages: getMessages(ctx.db, p.sessionId, { limit: p.limit }) })),
  ),

  method('session.get', (p, ctx) => getSession(ctx.db, p.sessionId)),

  method('session.list', (p, ctx) => ({
    sessions: listSessions(ctx.db, {
      ...(p.projectId === undefined ? {} : { projectId: p.projectId }),
      includeArchived: p.includeArchived,
      includeHidden: p.includeHidden,
      limit: p.limit,
      offset: p.offset,
    }),
  })),

  method('session.messages', (p, ctx) => ({ messages: getMessages(ctx.db, p.sessionId, { afterId: p.afterId, limit: p.limit, includeHidden: p.includeHidden }) })),

  method('session.append', (p, ctx) => {
    const { sessionId, ...message } = p;
    const stored = appendMessage(ctx.db, sessionId, definedOnly(message));
    messagesChanged(ctx, sessionId, [stored.id]);
    return stored;
  }),

  method('session.edit', (p, ctx) => {
    const message = editMessage(ctx.db, p.messageId, p.content);
    messagesChanged(ctx, message.sessionId, [message.id]);
    return message;
  }),

  method('session.delete', (p, ctx) => {
    const message = deleteMessage(ctx.db, p.messageId);
    messagesChanged(ctx, message.sessionId, [message.id]);
    return message;
  }),

  method('session.rewind', (p, ctx) => {
    const rewound = rewindSession(ctx.db, p.sessionId, p.toMessageId);
    messagesChanged(ctx, p.sessionId, []);
    return { rewound };
  }),

  method('session.compact', (p, ctx) => {
    const compacted = compactMessages(ctx.db, p.sessionId, p.upToMessageId);
    messagesChanged(ctx, p.sessionId, []);
    return { compacted };
  }),

  method('session.compress', (p, ctx) => {
    const result = createContinuation(ctx.db, p.sessionId, definedOnly({ note: p.note, title: p.title }));
    sessionChanged(ctx, [result.previous, result.session]);
    return result;
  }),

  method('session.branch', (p, ctx) => {
    const session = createBranch(ctx.db, p.sessionId, definedOnly({ fromMessageId: p.fromMessageId, title: p.title }));
    sessionChanged(ctx, [session]);
    return session;
  }),

  method('session.reset', (p, ctx) => {
    const session = createReset(ctx.db, p.sessionId, definedOnly({ title: p.title }));
    sessionChanged(ctx, [session]);
    return session;
  }),

  method('session.title', (p, ctx) => {
    const session = setSessionTitle(ctx.db, p.sessionId, p.title);
    sessionChanged(ctx, [session]);
    return session;
  }),

  method('session.project.set', (p, ctx) => {
    const result = setSessionProject(ctx.db, p.sessionId, p.projectId);
    const touched = [result.previousProjectId, result.projectId];
    ctx.events.emit({ type: 'sessions.changed', sessionIds: result.sessionIds, projectIds: touched });
    ctx.events.emit({ type: 'projects.changed', projectIds: touched });
    return result;
  }),

  method('session.cwd.set', (p, ctx) => {
    const session = setSessionCwd(ctx.db, p.sessionId, definedOnly({ cwd: p.cwd, gitRepoRoot: p.gitRepoRoot, gitBranch: p.gitBranch }));
    sessionChanged(ctx, [session]);
    return session;
  }),

  method('session.workspace.move', (p, ctx) => {
    const session = setSessionCwd(ctx.db, p.sessionId, definedOnly({ cwd: p.cwd, gitRepoRoot: p.gitRepoRoot, gitBranch: p.gitBranch }));
    sessionChanged(ctx, [session]);
    return session;
  }),
];
