/**
 * `recall mcp --session ID | --project ID|SLUG|NAME | --cwd DIR`: starts the stdio MCP server
 * (src/mcp.ts) with a scope the host fixes on its command line. `--session` names the conversation
 * the agent runs in (its project is re-read by the tool on every call and its own live messages are
 * left out); an imported transcript's own id works too (@recall/importers' hostSession). `--project` and `--cwd`
 * are for an agent whose transcript Recall does not hold: the scope is that whole project, with
 * `--cwd` resolved once at start through the folder mapping (the deepest project folder covering
 * DIR). Everything is checked once at start, so a mistyped id or an unmapped folder fails loudly
 * with the fix instead of every call answering an error.
 */
import { runMcpStdio } from '../mcp.js';
import { defineCommand } from './command.js';
import { checkScopeFlags, resolveScope, resolveScopeOnStorage } from './scope.js';
import { waitForStop } from './signals.js';
import { openTeamStorage } from './team-storage.js';
import { loadSearchTool, storageSearchTool } from './tool.js';
import { redactionPolicy } from '../config.js';

export const mcpCommand = defineCommand<{ session?: string; project?: string; cwd?: string }>({
  name: 'mcp',
  summary: 'Serve the session_search tool over MCP (stdio), scoped by the host to a session, a project or a folder.',
  usage: 'mcp --session ID | --project ID|SLUG|NAME | --cwd DIR',
  optionsHelp: `  --session ID      the conversation the agent runs in (a Recall id or an imported transcript's own id):
                    its stored project is the scope, re-read on every call; its own live messages are left out
  --project ID|SLUG|NAME the whole project is the scope (for an agent without a Recall session)
  --cwd DIR         the project whose folder covers DIR is the scope (error when no project folder covers it)
  Exactly one of them is required; the model can never change the scope.`,
  options: { session: { type: 'string' }, project: { type: 'string' }, cwd: { type: 'string' } },
  positionals: { min: 0, max: 0 },
  check: ({ values }) => checkScopeFlags('mcp', values),
  // A team database (--database, RECALL_DATABASE_URL, config.json "storage"): the same tool over the storage ports (hybrid when configured).
  servesPostgres: true,
  async run(ctx, { values }) {
    const redaction = redactionPolicy(ctx.config);
    if (ctx.config.storage.kind === 'postgres') {
      const storage = await openTeamStorage(ctx, 'mcp', { maxConnections: 2 });
      try {
        const { scope, note } = await resolveScopeOnStorage(storage, values, ctx.config.profile);
        if (note !== null) ctx.err.write(`recall mcp: ${note}\n`);
        const tool = await storageSearchTool(storage, ctx.config, redaction);
        try {
          await runMcpStdio({ tool, scope, profile: ctx.config.profile, redaction }, waitForStop());
        } finally {
          await tool.close();
        }
      } finally {
        await storage.close();
      }
      return;
    }
    const { scope, note } = resolveScope(ctx, values);
    if (note !== null) ctx.err.write(`recall mcp: ${note}\n`);
    const tool = await loadSearchTool(ctx.db(), ctx.config, redaction);
    try {
      await runMcpStdio({ tool, scope, profile: ctx.config.profile, redaction }, waitForStop());
    } finally {
      await tool.close();
    }
  },
});
