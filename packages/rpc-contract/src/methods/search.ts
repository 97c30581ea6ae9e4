/**
 * `search.session_search` params: the tool's own argument fields (one source of truth for names,
 * bounds, defaults and descriptions) plus the trusted scope — exactly one of `sessionId` (the
 * current session: its stored project, re-read on every call) or `projectId` (a whole project, the
 * scope `recall mcp --project` uses: the desktop's project-wide search). Strict: a `project_id`
 * tool argument is refused (-32602) rather than silently ignored, since scope is never a tool
 * argument.
 */
import { z } from 'zod';
import { projectIdField, sessionIdField } from '../fields.js';
import { methodGroup } from '../method-spec.js';
import { sessionSearchArgsSchema } from '../session-search.js';

export const SEARCH_METHODS = methodGroup({
  'search.session_search': {
    summary:
      "Project-scoped recall of earlier conversations' original text (the session_search tool); scope = the current session's stored project, or a whole project named by projectId.",
    params: z
      .strictObject({
        sessionId: sessionIdField.optional().describe("The caller's current session: decides the project scope (trusted context, not a tool argument)"),
        projectId: projectIdField
          .optional()
          .describe('Search this whole project instead of as a conversation (trusted context, not a tool argument; give sessionId or projectId, not both)'),
        ...sessionSearchArgsSchema.shape,
      })
      .refine((p) => (p.sessionId === undefined) !== (p.projectId === undefined), {
        message: 'give exactly one of sessionId or projectId',
      }),
  },
});
