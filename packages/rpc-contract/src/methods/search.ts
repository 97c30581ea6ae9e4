/**
 * `search.session_search` params: the tool's own argument fields (one source of truth for names,
 * bounds, defaults and descriptions) plus `sessionId`, the trusted current session. Strict: a
 * `project_id` argument is refused (-32602) rather than silently ignored, since scope is never an
 * argument.
 */
import { z } from 'zod';
import { sessionIdField } from '../fields.js';
import { methodGroup } from '../method-spec.js';
import { sessionSearchArgsSchema } from '../session-search.js';

export const SEARCH_METHODS = methodGroup({
  'search.session_search': {
    summary: "Project-scoped recall of earlier conversations' original text (the session_search tool); scope = the current session's stored project.",
    params: z.strictObject({
      sessionId: sessionIdField.describe("The caller's current session: decides the project scope (trusted context, not a tool argument)"),
      ...sessionSearchArgsSchema.shape,
    }),
  },
});
