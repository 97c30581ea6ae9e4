/**
 * `session.*` methods: creating, resuming and listing conversations, their messages, lineage
 * (compress / branch / reset) and the two different kinds of "move". The seed's business contract
 * is enforced by which store function each method may call: `session.project.set` is the ONLY method
 * that changes a conversation's project (the whole logical conversation, one transaction, returning
 * what was written); `session.cwd.set` and `session.workspace.move` change directory and git
 * metadata only and never touch project_id; resume reads the stored project and never recomputes
 * it. Mutations emit events after their store transaction has committed. Every handler runs on
 * the storage ports (ctx.storage), so the same code serves a SQLite profile and a PostgreSQL team database.
 * The methods' names, summaries and params schemas are the contract's
 * (@recall/rpc-contract, src/methods/sessions.ts); this module holds their handlers.
 */
import type { Session } from '@recall/rpc-contract';
import type { CallContext } from '../context.js';
import { definedOnly, method, snapshot, type GatewayMethod } from './common.js';

function sessionChanged(ctx: CallContext, sessions: readonly Session[]): void {
  ctx.events.emit({
    type: 'sessions.changed',
    sessionIds: sessions.map((s) => s.id),
    projectIds: sessions.map((s) => s.projectId),
  });
}

async function messagesChanged(ctx: CallContext, sessionId: string, messageIds: readonly number[]): Promise<void> {
  const projectId = await ctx.storage.sessions.projectId(sessionId);
  ctx.events.emit({ type: 'messages.changed', sessionIds: [sessionId], messageIds, projectIds: [projectId] });
}

export const sessionMethods: GatewayMethod[] = [
  method('session.create', async (p, ctx) => {
    const { sessionId, messages, ...fields } = p;
    const session = await ctx.storage.sessions.create({
      ...definedOnly(fields),
      ...(sessionId === undefined ? {} : { id: sessionId }),
      ...(messages === undefined ? {} : { messages: messages.map((m) => definedOnly(m)) }),
    });
    sessionChanged(ctx, [session]);
    return session;
  }),

  method('session.resume', (p, ctx) =>
    // One snapshot where the storage has one: the session row and its messages agree.
    snapshot(ctx, async () => {
      const [session, messages] = await Promise.all([ctx.storage.sessions.get(p.sessionId), ctx.storage.messages.list(p.sessionId, { limit: p.limit })]);
      return { session, messages };
    }),
  ),

  method('session.get', (p, ctx) => ctx.storage.sessions.get(p.sessionId)),

  method('session.list', async (p, ctx) => ({
    sessions: await ctx.storage.sessions.list({
      ...(p.projectId === undefined ? {} : { projectId: p.projectId }),
      includeArchived: p.includeArchived,
      includeHidden: p.includeHidden,
      limit: p.limit,
      offset: p.offset,
    }),
  })),

  method('session.messages', async (p, ctx) => ({
    messages: await ctx.storage.messages.list(p.sessionId, definedOnly({ afterId: p.afterId, limit: p.limit, includeHidden: p.includeHidden })),
  })),

  method('session.append', async (p, ctx) => {
    const { sessionId, ...message } = p;
    const { messages } = await ctx.storage.messages.append(sessionId, [definedOnly(message)]);
    const stored = messages[0]!;
    await messagesChanged(ctx, sessionId, [stored.id]);
    return stored;
  }),

  method('session.edit', async (p, ctx) => {
    const message = await ctx.storage.messages.edit(p.messageId, p.content);
    await messagesChanged(ctx, message.sessionId, [message.id]);
    return message;
  }),

  method('session.delete', async (p, ctx) => {
    const message = await ctx.storage.messages.delete(p.messageId);
    await messagesChanged(ctx, message.sessionId, [message.id]);
    return message;
  }),

  method('session.rewind', async (p, ctx) => {
    const rewound = await ctx.storage.messages.rewind(p.sessionId, p.toMessageId);
    await messagesChanged(ctx, p.sessionId, []);
    return { rewound };
  }),

  method('session.compact', async (p, ctx) => {
    const compacted = await ctx.storage.messages.compact(p.sessionId, p.upToMessageId);
    await messagesChanged(ctx, p.sessionId, []);
    return { compacted };
  }),

  method('session.compress', async (p, ctx) => {
    const result = await ctx.storage.sessions.continueCompressed(p.sessionId, definedOnly({ note: p.note, title: p.title }));
    sessionChanged(ctx, [result.previous, result.session]);
    return result;
  }),

  method('session.branch', async (p, ctx) => {
    const session = await ctx.storage.sessions.branch(p.sessionId, definedOnly({ fromMessageId: p.fromMessageId, title: p.title }));
    sessionChanged(ctx, [session]);
    return session;
  }),

  method('session.reset', async (p, ctx) => {
    const session = await ctx.storage.sessions.reset(p.sessionId, definedOnly({ title: p.title }));
    sessionChanged(ctx, [session]);
    return session;
  }),

  method('session.title', async (p, ctx) => {
    const session = await ctx.storage.sessions.setTitle(p.sessionId, p.title);
    sessionChanged(ctx, [session]);
    return session;
  }),

  method('session.project.set', async (p, ctx) => {
    const result = await ctx.storage.sessions.move(p.sessionId, p.projectId);
    const touched = [result.previousProjectId, result.projectId];
    ctx.events.emit({ type: 'sessions.changed', sessionIds: result.sessionIds, projectIds: touched });
    ctx.events.emit({ type: 'projects.changed', projectIds: touched });
    return result;
  }),

  method('session.cwd.set', async (p, ctx) => {
    const session = await ctx.storage.sessions.setCwd(p.sessionId, definedOnly({ cwd: p.cwd, gitRepoRoot: p.gitRepoRoot, gitBranch: p.gitBranch }));
    sessionChanged(ctx, [session]);
    return session;
  }),

  method('session.workspace.move', async (p, ctx) => {
    const session = await ctx.storage.sessions.setCwd(p.sessionId, definedOnly({ cwd: p.cwd, gitRepoRoot: p.gitRepoRoot, gitBranch: p.gitBranch }));
    sessionChanged(ctx, [session]);
    return session;
  }),
];
