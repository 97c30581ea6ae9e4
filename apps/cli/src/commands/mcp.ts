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
import { resolve } from 'node:path';
import { projectCoveringFolder } from '@recall/store';
import { resolveProjectRef } from './project-ref.js';
import { hostSession } from '@recall/importers';
import { runMcpStdio, type McpScope } from '../mcp.js';
import { defineCommand } from './command.js';
import { FolderNotInProjectError, UsageError } from '../errors.js';
import { waitForStop } from './signals.js';
import { loadSearchTool } from './tool.js';
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
  async run(ctx, { values }) {
    const given = (['session', 'project', 'cwd'] as const).filter((flag) => values[flag] !== undefined);
    if (given.length !== 1) throw new UsageError(given.length === 0 ? 'One of --session, --project or --cwd is required.' : `Use only one of --${given.join(', --')}.`, 'mcp');
    const db = ctx.db();
    let scope: McpScope;
    if (values.session !== undefined) {
      const session = hostSession(db, values.session);
      if (session.id !== values.session) ctx.err.write(`recall mcp: ${values.session} continues as ${session.id} (its latest compression continuation)\n`);
      scope = { currentSessionId: session.id };
    } else if (values.project !== undefined) {
      const project = resolveProjectRef(db, values.project);
      scope = { projectId: project.id };
    } else {
      const dir = resolve(values.cwd!);
      const project = projectCoveringFolder(db, dir);
      if (!project) throw new FolderNotInProjectError(dir, ctx.config.profile);
      ctx.err.write(`recall mcp: ${dir} → project ${project.id} (${project.name})\n`);
      scope = { projectId: project.id };
    }
    const redaction = redactionPolicy(ctx.config);
    const tool = await loadSearchTool(db, ctx.config, redaction);
    try {
      await runMcpStdio({ tool, scope, profile: ctx.config.profile, redaction }, waitForStop());
    } finally {
      await tool.close();
    }
  },
});
