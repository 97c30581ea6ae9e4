/**
 * `search.session_search`: the agent-facing recall tool over JSON-RPC. The caller names its own
 * current session (`sessionId`, trusted context); the tool re-reads that session's stored project
 * from the database on every call, so the scope is never an argument and a move is effective for
 * the very next search. Calls are not queued behind moves: a search that started before a move
 * completes with the scope it read, the next one sees the new project. The tool's arguments are
 * passed through in its own snake_case spelling and its JSON result is returned verbatim.
 */
import { getSession } from '@recall/store';
import { z } from 'zod';
import { GatewayError } from '../errors.js';
import { definedOnly, method, roleField, sessionIdField, type GatewayMethod } from './common.js';

/** Mirrors the tool's argument contract (DESIGN §5); the tool validates again with its own schema. */
export const sessionSearchParams = z.strictObject({
  sessionId: sessionIdField.describe("The caller's current session: decides the project scope (trusted context, not a tool argument)"),
  query: z.string().max(20_000).optional().describe('Keywords or a question (any text; at most 20000 characters). Omit to browse recent sessions'),
  search_mode: z.enum(['hybrid', 'keyword', 'semantic']).optional().describe('Algorithm (default hybrid; degrades to keyword when semantic is unavailable)'),
  limit: z.number().int().min(1).max(50).optional().describe('Maximum results (1-50)'),
  sort: z.enum(['relevance', 'newest', 'oldest']).optional().describe('Result order (default relevance)'),
  role_filter: z.array(roleField).min(1).max(4).optional().describe('Only messages with these roles'),
  session_id: sessionIdField.optional().describe('Read this session (head + tail) or scroll in it; must be in scope'),
  around_message_id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional().describe('Scroll: window around this message id (with session_id)'),
  window: z.number().int().min(0).max(50).optional().describe('Messages before/after the anchor (0-50)'),
});

export const searchMethods: GatewayMethod[] = [
  method(
    'search.session_search',
    "Project-scoped recall of earlier conversations' original text (the session_search tool); scope = the current session's stored project.",
    sessionSearchParams,
    async (p, ctx) => {
      const tool = ctx.searchTool;
      if (tool === null) {
        throw new GatewayError('search_unavailable', 'The session_search tool is not available in this gateway build.');
      }
      const { sessionId, ...args } = p;
      // Unknown current session → session_not_found, whatever the tool would have said.
      getSession(ctx.db, sessionId);
      return await tool.execute(definedOnly(args), { profile: ctx.profile, currentSessionId: sessionId });
    },
  ),
];
