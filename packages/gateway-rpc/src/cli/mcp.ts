/**
 * `recall mcp --session ID`: starts the stdio MCP server (src/mcp.ts) for one current session. The
 * session must exist in the profile (checked once at start, so a mistyped id fails loudly instead
 * of every call answering an error); its project is still re-read by the tool on every call.
 */
import { getSession } from '@recall/store';
import { runMcpStdio } from '../mcp.js';
import { requireFlag } from './args.js';
import { defineCommand } from './command.js';
import { waitForStop } from './signals.js';
import { loadSearchTool } from './tool.js';

export const mcpCommand = defineCommand<{ session?: string }>({
  name: 'mcp',
  summary: 'Serve the session_search tool over MCP (stdio) for one current session, fixed by the host.',
  usage: 'mcp --session ID',
  optionsHelp: `  --session ID      the conversation the agent runs in: its stored project is the search scope (required)`,
  options: { session: { type: 'string' } },
  positionals: { min: 0, max: 0 },
  async run(ctx, { values }) {
    const sessionId = requireFlag('mcp', 'session', values.session);
    const db = ctx.db();
    getSession(db, sessionId);
    const tool = loadSearchTool(db);
    await runMcpStdio({ tool, currentSessionId: sessionId, profile: ctx.config.profile }, waitForStop());
  },
});
