/**
 * Paged reading for clients that show long lists a page at a time (the desktop sidebar and
 * conversation view): `conversations.list` (one project's — or "No project"'s — logical
 * conversations, newest activity first, keyset cursor), `conversations.get` (the conversation that
 * contains a session, for one opened by link that is not on a loaded page) and `session.page` (one
 * page of a session's visible messages at either end, around an anchor, or before/after a cursor).
 * All paging happens in SQL; nothing here returns a whole profile or a whole conversation.
 */
import { conversationContaining, getSession, listConversations, messagePage, readTransaction, type MessagePagePosition } from '@recall/store';
import { z } from 'zod';
import { limitField, messageIdField, method, projectIdField, sessionIdField, type GatewayMethod } from './common.js';

export const pageMethods: GatewayMethod[] = [
  method(
    'conversations.list',
    'One page of the logical conversations of a project (or of "No project"), most recently active first; compression continuations are folded into their conversation.',
    z.strictObject({
      // Required: a global list cut at N made older projects look empty; every group pages on its own.
      projectId: projectIdField.nullable().describe('The project whose conversations to list; null = conversations without a project'),
      limit: limitField(200, 50),
      cursor: z.string().min(1).max(400).optional().describe('nextCursor from the previous page (opaque)'),
    }),
    (p, ctx) => listConversations(ctx.db, { projectId: p.projectId, limit: p.limit, cursor: p.cursor ?? null }),
  ),

  method(
    'conversations.get',
    'The listed conversation that contains a session (its root, activity and members).',
    z.strictObject({ sessionId: sessionIdField }),
    (p, ctx) => conversationContaining(ctx.db, p.sessionId),
  ),

  method(
    'session.page',
    'A session and one page of its visible messages: the newest (default) or oldest, around a message, or before/after a message id.',
    z
      .strictObject({
        sessionId: sessionIdField,
        at: z.enum(['oldest', 'newest']).optional().describe('Which end to read when no cursor is given (default "newest")'),
        aroundMessageId: messageIdField.optional().describe('Centre the page on this message (an anchor from a search result)'),
        beforeId: messageIdField.optional().describe('Messages with id < beforeId (the page just above)'),
        afterId: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe('Messages with id > afterId (the page just below)'),
        limit: limitField(1000, 200),
      })
      .refine((p) => [p.at, p.aroundMessageId, p.beforeId, p.afterId].filter((v) => v !== undefined).length <= 1, {
        message: 'give at most one of at, aroundMessageId, beforeId, afterId',
      }),
    (p, ctx) => {
      const position: MessagePagePosition =
        p.aroundMessageId !== undefined
          ? { aroundMessageId: p.aroundMessageId }
          : p.beforeId !== undefined
            ? { beforeId: p.beforeId }
            : p.afterId !== undefined
              ? { afterId: p.afterId }
              : { at: p.at ?? 'newest' };
      // One snapshot: the session row and its page agree.
      return readTransaction(ctx.db, () => ({ session: getSession(ctx.db, p.sessionId), ...messagePage(ctx.db, p.sessionId, position, p.limit) }));
    },
  ),
];
