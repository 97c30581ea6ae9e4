/**
 * Paged reading for clients that show long lists a page at a time (the desktop sidebar and
 * conversation view): `conversations.list` (one project's — or "No project"'s — logical
 * conversations, newest activity first, keyset cursor), `conversations.get` (the conversation that
 * contains a session, for one opened by link that is not on a loaded page) and `session.page` (one
 * page of a session's visible messages at either end, around an anchor, or before/after a cursor).
 * All paging happens in the storage adapter; nothing here returns a whole profile or a whole conversation.
 * The methods' names, summaries and params schemas are the contract's
 * (@recall/rpc-contract, src/methods/pages.ts); this module holds their handlers.
 */
import type { PagePosition } from '@recall/storage-ports';
import { method, snapshot, type GatewayMethod } from './common.js';

export const pageMethods: GatewayMethod[] = [
  method('conversations.list', (p, ctx) => ctx.storage.sessions.listConversations({ projectId: p.projectId, limit: p.limit, cursor: p.cursor ?? null })),

  method('conversations.get', (p, ctx) => ctx.storage.sessions.conversationContaining(p.sessionId)),

  method('session.page', (p, ctx) => {
    const position: PagePosition =
      p.aroundMessageId !== undefined
        ? { aroundMessageId: p.aroundMessageId }
        : p.beforeId !== undefined
          ? { beforeId: p.beforeId }
          : p.afterId !== undefined
            ? { afterId: p.afterId }
            : { at: p.at ?? 'newest' };
    // One snapshot where the storage has one: the session row and its page agree.
    return snapshot(ctx, async () => {
      const [session, page] = await Promise.all([ctx.storage.sessions.get(p.sessionId), ctx.storage.messages.page(p.sessionId, position, p.limit)]);
      return { session, ...page };
    });
  }),
];
