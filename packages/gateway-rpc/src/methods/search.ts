/**
 * `search.session_search`: the agent-facing recall tool over JSON-RPC. The caller names its own
 * current session (`sessionId`, trusted context); the tool re-reads that session's stored project
 * from the database on every call, so the scope is never an argument and a move is effective for
 * the very next search. Calls are not queued behind moves: a search that started before a move
 * completes with the scope it read, the next one sees the new project. The tool's arguments are
 * passed through in its own snake_case spelling and its JSON result is returned verbatim —
 * including a tool-level `error: {code, message}` (e.g. `not_found` for an out-of-scope
 * session_id), which is part of the result contract, not a JSON-RPC error.
 */
import { getSession } from '@recall/store';
import { z } from 'zod';
import { GatewayError } from '../errors.js';
import { sessionSearchArgsSchema } from '@recall/search-tool';
import { definedOnly, method, sessionIdField, type GatewayMethod } from './common.js';

/**
 * The tool's own argument fields (one source of truth for names, bounds, defaults and
 * descriptions) plus `sessionId`, the trusted current session. Strict: a `project_id` argument is
 * refused (-32602) rather than silently ignored, since scope is never an argument.
 */
export const sessionSearchParams = z.strictObject({
  sessionId: sessionIdField.describe("The caller's current session: decides the project scope (trusted context, not a tool argument)"),
  ...sessionSearchArgsSchema.shape,
});

export const searchMethods: GatewayMethod[] = [
  method(
    'search.session_search',
    "Project-scoped recall of earlier conversations' original text (the session_search tool); scope = the current session's stored project.",
    sessionSearchParams,
    async (p, ctx) => {
      const { sessionId, ...args } = p;
      // Unknown current session → session_not_found, whatever the tool would have said.
      getSession(ctx.db, sessionId);
      const tool = ctx.searchTool;
      if (tool === null) {
        throw new GatewayError('search_unavailable', 'The session_search tool is not available in this gateway build.');
      }
      return await tool.execute(definedOnly(args), { profile: ctx.profile, currentSessionId: sessionId });
    },
  ),
];
