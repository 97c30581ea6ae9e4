/**
 * `recall search QUERY --project SLUG | --cwd DIR | --session ID`: runs the session_search tool
 * exactly as a model would, with the scope the command line fixes (scope.ts, the same rules as
 * `recall mcp`): a whole project, the project of a folder, or as a current session (its stored
 * project, re-read on every call). QUERY is the positional words or `--query`; without either it
 * browses recent conversations. `--json` prints exactly the tool's JSON result; otherwise a list
 * for people: titles, anchors (session_id #message_id), snippets with the matches highlighted on a
 * terminal (« » when piped) and wrapped to its width. A result carrying an `error` prints nothing
 * on stdout (except with `--json`), the error on stderr, and exits 1.
 */
import { findProject } from '@recall/store';
import { intFlag, enumFlag } from './args.js';
import { defineCommand } from './command.js';
import { oneLine, printJson, type CliContext, type Output } from './context.js';
import { EXIT_ERROR, SearchFailedError, stableCode, UsageError } from '../errors.js';
import { loadSearchTool, storageSearchTool, type CliSearchTool } from './tool.js';
import { openCommandStorage } from './command-storage.js';
import { redactionPolicy } from '../config.js';
import type { SessionSearchResult } from '@recall/search-tool';
import { MESSAGE_ROLES, SEARCH_MODES, SORTS, type Project } from '@recall/rpc-contract';
import { checkScopeFlags, resolveScope, resolveScopeOnStorage, type ToolScope } from './scope.js';
import type { Storage } from '@recall/storage-ports';
import { markTerms, renderMatches, wrapText, type Style } from './style.js';

// The flags' closed vocabularies are the tool's own (the wire contract), not copies.
const MODES = SEARCH_MODES;
const ROLES = MESSAGE_ROLES;

interface SearchFlags {
  session?: string;
  project?: string;
  cwd?: string;
  query?: string;
  mode?: string;
  limit?: string;
  sort?: string;
  role?: string[];
  read?: string;
  around?: string;
  window?: string;
  conversation?: boolean;
  since?: string;
  until?: string;
  json?: boolean;
}

/** Longest snippet printed on one line when the output is not a terminal (it is not wrapped there). */
const PIPED_SNIPPET_CHARS = 300;

function shortDate(iso: string): string {
  return iso.replace('T', ' ').replace(/:\d{2}(\.\d+)?Z$/, '');
}

function modeText(result: SessionSearchResult): string {
  if (result.used_mode === 'direct') return result.shape === 'browse' ? 'recent conversations' : 'reading';
  if (result.used_mode === 'none') return 'nothing ran';
  return `${result.used_mode} search`;
}

/** Lines of text: wrapped to the terminal, or one line (cut) on a pipe. */
function body(out: Output, text: string, indent: string, full: boolean): string[] {
  const rendered = renderMatches(out.isTTY ? text : oneLine(text, full ? Number.MAX_SAFE_INTEGER : PIPED_SNIPPET_CHARS), out.style);
  if (!out.isTTY) return [`${indent}${rendered}`];
  return text.split(/\n+/).flatMap((paragraph) => wrapText(renderMatches(paragraph, out.style), out.columns, indent));
}

/** The tool speaks to a model in its argument names; a person at the shell types flags. */
function forPeople(text: string): string {
  return text
    .replace(/search_mode "(\w+)"(?: or "(\w+)")?/g, (_m, a: string, b?: string) => `--mode ${a}${b ? ` or --mode ${b}` : ''}`)
    .replace(/Pass conversation: true/g, 'Add --conversation')
    .replace(/\bconversation: true\b/g, '--conversation')
    .replace(/^Invalid arguments: (since|until):/, (_m, flag: string) => `Invalid --${flag}:`);
}

/** A title in bold with its «matches» highlighted (each part styled on its own, so a match does not end the bold). */
function boldTitle(text: string, style: Style): string {
  return text
    .split(/(«[^«»]*»)/)
    .map((part) => (part.startsWith('«') && part.endsWith('»') ? style.match(part.slice(1, -1)) : style.bold(part)))
    .join('');
}

/** One logical line: wrapped to the terminal (continuations under `indent`), as is on a pipe. */
function line(out: Output, text: string, indent = '', first = ''): void {
  if (!out.isTTY) out.write(`${first}${text}\n`);
  else for (const l of wrapText(text, out.columns, indent, first)) out.write(`${l}\n`);
}

function printResult(ctx: CliContext, result: SessionSearchResult, scopeName: string): void {
  const out = ctx.out;
  const { style } = out;
  const count = result.results.length;
  const reading = result.shape === 'read' || result.shape === 'scroll';
  const unit = reading ? 'message' : 'result';
  line(out, `${style.bold(scopeName)} · ${modeText(result)} · ${count === 0 ? `no ${unit}s` : `${count} ${unit}${count === 1 ? '' : 's'}`}${result.truncated ? ' (more exist: raise --limit)' : ''}`, '  ');
  for (const note of result.notes) line(out, style.dim(forPeople(note)), '      ', style.dim('note: '));
  if (reading && result.results[0]?.title) {
    out.write('\n');
    line(out, style.bold(oneLine(result.results[0].title, 200)));
  }
  result.results.forEach((r, i) => {
    const source = r.match_source === 'direct' ? '' : ` · ${r.match_source}${r.match_field === 'title' ? ' (title)' : ''}`;
    const anchor = `${style.cyan(`${r.session_id} #${r.message_id}`)}${style.dim(` · ${r.role} · ${shortDate(r.date)}${source}`)}`;
    out.write('\n');
    if (reading) {
      line(out, `${anchor}${r.is_anchor ? style.bold('  ← anchor') : ''}`, '  ');
    } else {
      const title = r.title ? boldTitle(r.match_field === 'title' ? markTerms(oneLine(r.title, 200), result.query ?? undefined) : oneLine(r.title, 200), style) : style.dim('(untitled)');
      line(out, title, '    ', `${String(i + 1).padStart(2)}. `);
      line(out, anchor, '      ', '    ');
    }
    for (const line of body(out, r.snippet, reading ? '  ' : '    ', reading)) out.write(`${line}\n`);
    if (r.next_offset !== undefined) out.write(`${style.dim(`    … the message goes on (${r.total_chars ?? '?'} characters)`)}\n`);
  });
}

/**
 * The scope as `recall mcp` resolves it, except that an unknown `--session` is left to the tool:
 * its error result (caller_session_not_found) is what `--json` callers match on.
 */
function resolveSearchScope(ctx: CliContext, values: SearchFlags): ReturnType<typeof resolveScope> {
  try {
    return resolveScope(ctx, values);
  } catch (error) {
    if (values.session !== undefined && stableCode(error) === 'session_not_found') return { scope: { currentSessionId: values.session }, project: null, note: null };
    throw error;
  }
}

/** resolveSearchScope on the storage ports (a team database): an unknown `--session` is left to the tool as well. */
async function resolveSearchScopeOnStorage(ctx: CliContext, storage: Storage, values: SearchFlags): ReturnType<typeof resolveScopeOnStorage> {
  try {
    return await resolveScopeOnStorage(storage, values, ctx.config.profile);
  } catch (error) {
    if (values.session !== undefined && stableCode(error) === 'session_not_found') return { scope: { currentSessionId: values.session }, project: null, note: null };
    throw error;
  }
}

export const searchCommand = defineCommand<SearchFlags>({
  name: 'search',
  summary: 'Search earlier conversations of one project (the session_search tool, as an agent calls it).',
  usage: 'search [QUERY] --project ID|SLUG|NAME | --cwd DIR | --session ID [--mode hybrid|keyword|semantic] [--limit N] [--since WHEN] [--until WHEN] [--json]',
  optionsHelp: `  QUERY             what to look for, in any language (or --query Q); without it, the recent conversations
  --project ID|SLUG|NAME
                    search this whole project
  --cwd DIR         search the project whose folder covers DIR (as "recall mcp --cwd")
  --session ID      search as that conversation: its stored project is the scope
                    (exactly one of --project, --cwd and --session)
  -q, --query Q     the query, as a flag
  --mode M          hybrid (default), keyword or semantic
  --limit N         maximum results (1-50, default 8)
  --sort S          relevance (default), newest or oldest
  --role R          only messages of this role (repeatable: user, assistant, system, tool)
  --read SESSION    read that conversation (head + tail) instead of searching
  --conversation    with --read: the whole conversation (every compression segment, oldest first)
  --around MSG_ID   scroll: messages around this message id
  --window N        messages before/after an anchor (0-20)
  --since WHEN      only messages from then on: a date (2026-11-30), a date-time, or 24h, 7d, 2w ago
  --until WHEN      only messages before then (a date includes that whole UTC day)
  --json            print exactly the tool's JSON result`,
  examples: ['recall search "linker error" --project alpha', 'recall search 番茄炒蛋 --cwd .', 'recall search --project alpha --read SESSION_ID'],
  options: {
    session: { type: 'string' },
    project: { type: 'string' },
    cwd: { type: 'string' },
    query: { type: 'string', short: 'q' },
    mode: { type: 'string' },
    limit: { type: 'string' },
    sort: { type: 'string' },
    role: { type: 'string', multiple: true },
    read: { type: 'string' },
    around: { type: 'string' },
    window: { type: 'string' },
    conversation: { type: 'boolean' },
    since: { type: 'string' },
    until: { type: 'string' },
    json: { type: 'boolean' },
  },
  positionals: { min: 0, max: Number.MAX_SAFE_INTEGER },
  check({ values, positionals }) {
    if (positionals.length > 0 && values.query !== undefined) throw new UsageError('Give the query once: as words after the command or as --query, not both.', 'search');
    checkScopeFlags('search', values);
  },
  servesPostgres: true,
  async run(ctx, { values, positionals }) {
    const args: Record<string, unknown> = {};
    const query = positionals.length > 0 ? positionals.join(' ') : values.query;
    if (query !== undefined) args.query = query;
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
    if (values.conversation) args.conversation = true;
    if (values.since !== undefined) args.since = values.since;
    if (values.until !== undefined) args.until = values.until;

    if (ctx.config.storage.kind === 'postgres') {
      // A team database: the same tool over the storage ports (hybrid when semantic is configured).
      const opened = await openCommandStorage(ctx, 'search');
      try {
        const { scope, note } = await resolveSearchScopeOnStorage(ctx, opened.storage, values);
        if (note !== null) ctx.err.write(`${ctx.err.style.dim(`recall search: ${note}`)}\n`);
        const tool = await storageSearchTool(opened.storage, ctx.config, redactionPolicy(ctx.config), true);
        try {
          return await runTool(ctx, values, args, scope, tool, (id) => opened.storage.projects.find(id));
        } finally {
          await tool.close();
        }
      } finally {
        await opened.close();
      }
    }
    const { scope, note } = resolveSearchScope(ctx, values);
    if (note !== null) ctx.err.write(`${ctx.err.style.dim(`recall search: ${note}`)}\n`);
    const db = ctx.db();
    return runTool(ctx, values, args, scope, await loadSearchTool(db, ctx.config, redactionPolicy(ctx.config)), async (id) => findProject(db, id));
  },
});

/** Runs the tool once and prints its result (JSON, or the list for people); the exit code on an error result. */
async function runTool(
  ctx: CliContext,
  values: SearchFlags,
  args: Record<string, unknown>,
  scope: ToolScope,
  tool: CliSearchTool,
  projectById: (id: string) => Promise<Project | undefined>,
): Promise<number | undefined> {
  let result;
  try {
    result = await tool.execute(args, { ...scope, profile: ctx.config.profile });
  } finally {
    await tool.close();
  }
  if (values.json) printJson(ctx.out, result);
  if (result.error) {
    const error = new SearchFailedError(result.error.code, forPeople(result.error.message));
    ctx.err.write(`${ctx.err.style.red('recall search:')} ${error.message} ${ctx.err.style.dim(`[${error.code}]`)}\n`);
    return EXIT_ERROR;
  }
  if (values.json) return undefined;
  const project = result.scope.project_id === null ? null : await projectById(result.scope.project_id);
  const scopeName = result.scope.kind === 'own_conversation' ? 'Only this conversation (it has no project)' : `Project ${project ? project.slug : result.scope.project_id}`;
  printResult(ctx, result, scopeName);
  return undefined;
}
