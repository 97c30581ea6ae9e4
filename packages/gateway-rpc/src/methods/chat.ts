/**
 * `chat.*` methods: the JSON-RPC face of the chat loop (@recall/chat). `chat.send` stores the user's
 * message and starts an answer in the background (or, with `wait: true`, answers with the final
 * message — for simple clients and scripts); progress arrives as `chat.*` WebSocket events.
 * `chat.cancel` stops a run, `chat.status` says whether a model is configured (never the key) and
 * how to configure one, and `chat.compress` is the chat's `/compress`: it ends the conversation
 * segment and continues in a new session of the same logical conversation that starts with a short
 * system note — a pointer to the recall tool, never a summary (the seed rules summaries out).
 * The methods' names, summaries and params schemas are the contract's
 * (@recall/rpc-contract, src/methods/chat.ts); this module holds their handlers.
 */
import type { CallContext } from '../context.js';
import { ChatError, type ChatRuns } from '@recall/chat';
import { definedOnly, method, type GatewayMethod } from './common.js';

/** The gateway's chat runs; every read and write of theirs goes through the storage ports (SQLite or PostgreSQL). */
function runsOf(ctx: CallContext): ChatRuns {
  // Contexts built outside startGateway (one-shot CLI dispatch) have no chat runs at all.
  if (ctx.chat === undefined) throw new ChatError('chat_not_configured', 'Chat is not available in this context; use the gateway (recall serve).');
  return ctx.chat;
}

/** The continuation's first message when the caller gives none: where the earlier part went, not what it said. */
export function defaultCompressionNote(previousSessionId: string, at: Date): string {
  return [
    `This conversation continues session ${previousSessionId}, compressed on ${at.toISOString()}.`,
    'The earlier messages are no longer in this context; they remain findable with the session_search tool.',
  ].join(' ');
}

export const chatMethods: GatewayMethod[] = [
  method('chat.status', (_p, ctx) => {
    if (ctx.chat === undefined) {
      return {
        configured: false,
        apiKeySet: false,
        missing: ['model'],
        howToConfigure: 'Chat runs only in the gateway (recall serve).',
        searchAvailable: ctx.searchTool !== null,
        activeRuns: [],
      };
    }
    return ctx.chat.status();
  }),

  method('chat.send', async (p, ctx) => {
    const handle = await runsOf(ctx).start(p.sessionId, p.content);
    if (!p.wait) return { runId: handle.runId, sessionId: handle.sessionId, userMessageId: handle.userMessageId };
    const outcome = await handle.done;
    if (outcome.status === 'completed' || outcome.error === null) return outcome;
    // The user's message is stored either way; the error says so through userMessageId.
    throw new ChatError(outcome.error.code, outcome.error.message, {
      retryable: outcome.error.retryable,
      data: { runId: outcome.runId, sessionId: outcome.sessionId, userMessageId: outcome.userMessageId, status: outcome.status, retryable: outcome.error.retryable },
    });
  }),

  method('chat.cancel', (p, ctx) => runsOf(ctx).cancel(p.runId)),

  method('chat.compress', async (p, ctx) => {
    // Held like a run: no answer can start in the session between the checks and the continuation.
    const result = await runsOf(ctx).exclusive(p.sessionId, (session) =>
      ctx.storage.sessions.continueCompressed(session.id, definedOnly({ note: p.note ?? defaultCompressionNote(session.id, new Date()), title: p.title })),
    );
    ctx.events.emit({ type: 'sessions.changed', sessionIds: [result.previous.id, result.session.id], projectIds: [result.previous.projectId, result.session.projectId] });
    ctx.events.emit({ type: 'messages.changed', sessionIds: [result.session.id], projectIds: [result.session.projectId] });
    return result;
  }),
];
