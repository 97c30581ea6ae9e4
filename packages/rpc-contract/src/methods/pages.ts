/**
 * Paged reading params for clients that show long lists a page at a time (the desktop sidebar and
 * conversation view): `conversations.list` (one project's — or "No project"'s — logical
 * conversations, keyset cursor), `conversations.get` and `session.page` (one page of a session's
 * visible messages at either end, around an anchor, or before/after a message id).
 */
import { z } from 'zod';
import { limitField, messageIdField, projectIdField, sessionIdField } from '../fields.js';
import { methodGroup } from '../method-spec.js';

export const PAGE_METHODS = methodGroup({
  'conversations.list': {
    summary: 'One page of the logical conversations of a project (or of "No project"), most recently active first; compression continuations are folded into their conversation.',
    params: z.strictObject({
      // Required: a global list cut at N made older projects look empty; every group pages on its own.
      projectId: projectIdField.nullable().describe('The project whose conversations to list; null = conversations without a project'),
      limit: limitField(200, 50),
      cursor: z.string().min(1).max(400).optional().describe('nextCursor from the previous page (opaque)'),
    }),
  },
  'conversations.get': {
    summary: 'The listed conversation that contains a session (its root, activity and members).',
    params: z.strictObject({ sessionId: sessionIdField }),
  },
  'session.page': {
    summary: 'A session and one page of its visible messages: the newest (default) or oldest, around a message, or before/after a message id.',
    params: z
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
  },
});
