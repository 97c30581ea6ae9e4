/**
 * `recall search --session ID --query Q`: runs the session_search tool exactly as a model would,
 * with `--session` as the trusted current session (the project scope is that session's stored
 * project, re-read on every call). `--json` prints exactly the tool's JSON result; otherwise a
 * readable list of anchors (session_id #message_id) and snippets. A result carrying an `error`
 * exits with code 1 (the result is still printed with `--json`).
 */
import { intFlag, enumFlag, requireFlag } from './args.js';
import { defineCommand } from './command.js';
import { oneLine, printJson, type Output } from './context.js';
import { EXIT_ERROR, SearchFailedError } from '../errors.js';
import { loadSearchTool } from './tool.js';
import type { SessionSearchResult } from '@recall/search-tool';
import { MESSAGE_ROLES, SEARCH_MODES, SORTS } from '@recall/rpc-contract';

// The flags' closed vocabularies are the tool's own (the wire contract), not copies.
const MODES = SEARCH_MODES;
const ROLES = MESSAGE_ROLES;

interface SearchFlags {
  session?: string;
  query?: string;
  mode?: string;
  limit?: string;
  sort?: string;
  role?: string[];
  read?: string;
  around?: string;
  window?: string;
  since?: string;
  until?: string;
  json?: boolean;
}

function printResult(out: Output, result: SessionSearchResult): void {
  const scope = result.scope.kind === 'project' ? `project ${result.scope.project_id}` : 'own conversation (no project)';
  out.write(`${result.shape ?? 'search'} · ${scope} · mode ${result.used_mode} (asked ${result.requested_mode}) · semantic ${result.semantic_status}\n`);
  for (const note of result.notes) out.write(`note: ${note}\n`);
  result.results.forEach((r, i) => {
    out.write(`\n${String(i + 1).padStart(2)}. ${r.session_id} #${r.message_id}  ${r.role}  ${r.date}  [${r.match_source}]${r.title ? `  ${oneLine(r.title, 60)}` : ''}\n`);
    out.write(`    ${oneLine(r.snippet, 300)}\n`);
  });
  if (result.results.length === 0) out.write('No results.\n');
  if (result.truncated) out.write('(truncated)\n');
}

export const searchCommand = defineCommand<SearchFlags>({
  name: 'search',
  summary: "Recall earlier conversations of the current session's project (the session_search tool).",
  usage: 'search --session ID [--query Q] [--mode hybrid|keyword|semantic] [--limit N] [--since WHEN] [--until WHEN] [--json]',
  optionsHelp: `  --session ID      the current session: its stored project is the search scope (required)
  --query Q         what to look for (any language); omit to browse recent conversations
  --mode M          hybrid (default), keyword or semantic
  --limit N         maximum results (1-50, default 8)
  --sort S          relevance (default), newest or oldest
  --role R          only messages of this role (repeatable: user, assistant, system, tool)
  --read SESSION    read that conversation (head + tail) instead of searching
  --around MSG_ID   scroll: messages around this message id
  --window N        messages before/after an anchor (0-20)
  --since WHEN      only messages from then on: a date (2026-11-30), a date-time, or 24h, 7d, 2w ago
  --until WHEN      only messages before then (a date includes that whole UTC day)
  --json            print exactly the tool's JSON result`,
  options: {
    session: { type: 'string' },
    query: { type: 'string', short: 'q' },
    mode: { type: 'string' },
    limit: { type: 'string' },
    sort: { type: 'string' },
    role: { type: 'string', multiple: true },
    read: { type: 'string' },
    around: { type: 'string' },
    window: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
    json: { type: 'boolean' },
  },
  positionals: { min: 0, max: 0 },
  async run(ctx, { values }) {
    const sessionId = requireFlag('search', 'session', values.session);
    const args: Record<string, unknown> = {};
    if (values.query !== undefined) args.query = values.query;
    const mode = enumFlag('search', 'mode', values.mode, MODES);
    if (mode !== undefined) args.search_mode = mode;
    const limit = intFlag('search', 'limit', values.limit, 1, 50);
    if (limit !== undefined) args.limit = limit;
    const sort = enumFlag('search', 'sort', values.sort, SORTS);
    if (sort !== undefined) args.sort = sort;
    if (values.role !== undefined) args.role_filter = values.role.map((r) => enumFlag('search', 'role', r, ROLES));
    if (values.read !== undefined) args.session_id = values.read;
    const around = intFlag('search', 'around', values.around, 1, Number.MAX_SAFE_INTEGER);
    if (around !== undefined) args.around_message_id = around;
    const window = intFlag('search', 'window', values.window, 0, 20);
    if (window !== undefined) args.window = window;
    if (values.since !== undefined) args.since = values.since;
    if (values.until !== undefined) args.until = values.until;

    const tool = await loadSearchTool(ctx.db(), ctx.config);
    let result;
    try {
      result = await tool.execute(args, { currentSessionId: sessionId, profile: ctx.config.profile });
    } finally {
      await tool.close();
    }
    if (values.json) printJson(ctx.out, result);
    else printResult(ctx.out, result);
    if (result.error) {
      // The tool speaks to a model in its argument names; a person at the shell typed flags.
      const message = result.error.message
        .replace(/search_mode "(\w+)"(?: or "(\w+)")?/g, (_m, a: string, b?: string) => `--mode ${a}${b ? ` or --mode ${b}` : ''}`)
        .replace(/^Invalid arguments: (since|until):/, (_m, flag: string) => `Invalid --${flag}:`);
      const error = new SearchFailedError(result.error.code, message);
      ctx.err.write(`recall search: ${error.message} [${error.code}]\n`);
      return EXIT_ERROR;
    }
  },
});
