/**
 * `createSessionSearchTool()`: the one tool a model calls to recall earlier conversations of its
 * own project. It validates arguments, resolves the caller's scope from the trusted context (the
 * current session id, re-read from the storage on every call, or a project id for a host that has
 * no Recall session), picks the shape from the arguments (scroll > read > discover > browse), runs it under one deadline and always returns a
 * result object — errors included — instead of throwing at the model. Every read goes through the
 * storage ports (@recall/storage-ports), so the tool runs on SQLite and PostgreSQL alike; a shape's
 * reads run inside the storage's read scope of the caller (`withReadScope`: on PostgreSQL one
 * row-level-security transaction), so even a wrong query here could not return another project's rows.
 */
import type { RecallDatabase } from '@recall/schema';
import { withReadScope, type Storage } from '@recall/storage-ports';
import { sqliteStorage } from '@recall/store';
import { sessionSearchArgsSchema, sessionSearchJsonSchema, type SessionSearchArgs } from './arguments.js';
import { applyBudget, RESULT_TOKEN_BUDGET } from './budget.js';
import { browse } from './browse.js';
import { describeRange, isDated, resolveDateRange, type DateRange } from './date-range.js';
import { discover, semanticHits, type SemanticResult } from './discover.js';
import { ToolError } from './errors.js';
import { readSession, scrollAround } from './read.js';
import type { SessionSearchResult, Shape } from './result.js';
import { readScopeOf, resolveProjectScope, resolveScope, type ToolScope } from './scope.js';
import type { SemanticSource, SemanticStatus } from './semantic-source.js';
import type { Reranker } from './reranker.js';

/** The tool's name as a model sees it in tool definitions and tool calls: `session_search`. */
export const SESSION_SEARCH_TOOL_NAME = 'session_search';

/** The tool description offered to models (what the tool recalls, when to call it, the four shapes). */
export const SESSION_SEARCH_DESCRIPTION = [
  'Recall the original text of earlier conversations in the current project (never other projects).',
  'Use it when the user refers to something discussed before ("last time", "上次", "as we decided"), or when earlier decisions, code, errors or facts would help.',
  'Shapes, chosen by the arguments: query → find matching messages (keyword + meaning); no arguments → list recent conversations;',
  'session_id → read that conversation (head and tail; conversation: true reads all its compression segments in order); around_message_id → the messages around an anchor (offset pages through a long message).',
  'since/until ("7d", "24h", or a date like 2026-11-30) keep only messages from that time range.',
  'Every result has session_id + message_id anchors, a link and its conversation_id/segment; quote results as the original text, they are not summaries.',
  'Read notes: they say when results were truncated and how to get the rest.',
].join(' ');

/**
 * The trusted call context, set by the host and never by the model: either the conversation the
 * model is running in (its stored project is the scope, re-read on every call), or — for an
 * external agent whose transcript Recall does not hold — a project id, whose whole history is the
 * scope.
 */
export type SessionSearchContext =
  | {
      /** The conversation the model is running in: the trusted source of the project scope. */
      currentSessionId: string;
      projectId?: undefined;
      /** Profile name the host believes it is serving; checked against the database's profile. */
      profile?: string;
    }
  | {
      currentSessionId?: undefined;
      /** A project-wide caller: search this project; no session of its is the caller's own. */
      projectId: string;
      profile?: string;
    };

/**
 * What `createSessionSearchTool()` needs: the storage to read (`storage`, any adapter of
 * @recall/storage-ports — or, as a convenience, an open SQLite profile database as `db`) and, for
 * stage B, a semantic source.
 */
export type SessionSearchToolOptions = SessionSearchToolSettings &
  (
    | {
        /** The storage ports to read (SQLite or PostgreSQL); the tool never writes. */
        storage: Storage;
        db?: undefined;
      }
    | {
        /** An open SQLite profile database (read-only connections work), wrapped once with @recall/store's sqliteStorage. */
        db: RecallDatabase;
        storage?: undefined;
      }
  );

/** The settings of `createSessionSearchTool()` besides where it reads (see SessionSearchToolOptions). */
export interface SessionSearchToolSettings {
  /** Stage B: omitted (or null) means keyword-only, reported as semantic_status "disabled". */
  semantic?: SemanticSource | null;
  /**
   * Optional reranking of the fused top conversations (hybrid and semantic mode) by a cross-encoder,
   * blended with the retrieval order (reranker.ts), under the same deadline; used only for scopes
   * it `allows()`. Omitted (or null) = no reranking.
   */
  reranker?: Reranker | null;
  /** One deadline for the whole call (semantic search and reranking included). Default 8 s. */
  deadlineMs?: number;
  /** Size budget of one call's results in estimated tokens (see budget.ts). Default RESULT_TOKEN_BUDGET. */
  resultTokenBudget?: number;
}

/**
 * The `session_search` tool: its metadata for tool definitions and `execute()`. It fits
 * {@link SessionSearchExecutor}, so chat and the gateway can run it directly.
 */
export interface SessionSearchTool {
  /** Always `session_search`. */
  readonly name: typeof SESSION_SEARCH_TOOL_NAME;
  /** {@link SESSION_SEARCH_DESCRIPTION}. */
  readonly description: string;
  /** JSON Schema of the arguments. */
  readonly parameters: Record<string, unknown>;
  /** The zod schema the arguments are validated with (`sessionSearchArgsSchema` of @recall/rpc-contract). */
  readonly argsSchema: typeof sessionSearchArgsSchema;
  /**
   * Runs one call under the tool's deadline. Never rejects: invalid arguments, an unknown or
   * out-of-scope target, a profile mismatch, semantic search being unavailable in `semantic` mode
   * and internal failures all resolve to a result with `error: { code, message }`.
   */
  execute(args: unknown, context: SessionSearchContext): Promise<SessionSearchResult>;
}

function shapeOf(args: SessionSearchArgs): Shape {
  if (args.around_message_id !== undefined) return 'scroll';
  if (args.session_id !== undefined) return 'read';
  if (args.query !== undefined && args.query.trim() !== '') return 'discover';
  return 'browse';
}

function scopeJson(scope: ToolScope | null): SessionSearchResult['scope'] {
  if (!scope) return { kind: 'project', project_id: null };
  return scope.kind === 'project' ? { kind: 'project', project_id: scope.projectId } : { kind: 'own_conversation', project_id: null };
}

/** Why semantic search is off for this caller, in words a model or a person can act on. */
function disabledReasonText(reason: string | undefined): string {
  switch (reason) {
    case 'turned_off':
      return 'semantic indexing is turned off in the configuration';
    case 'project_not_enabled':
      return 'semantic search is not switched on for this project';
    case 'consent_for_other_endpoint':
      return 'this project was switched on for another embedding endpoint; switch it on again for the configured one';
    case 'no_project':
      return 'a conversation without a project has no semantic index';
    default:
      return 'no semantic index is configured';
  }
}

/**
 * Creates the `session_search` tool over one storage (`{ storage }`) or one SQLite profile database
 * (`{ db }`). Keyword search always works; pass `semantic` (e.g. `createConfiguredSemanticSource()`
 * or `storageSemanticSource()` of @recall/semantic) for hybrid search.
 * Does not throw; the JSON Schema of the arguments is computed once here.
 */
export function createSessionSearchTool(options: SessionSearchToolOptions): SessionSearchTool {
  // The database convenience is wrapped once; its change feed is never subscribed (the tool only reads).
  const storage: Storage = options.storage ?? sqliteStorage(options.db!);
  const profile = storage.profile ?? null;
  const semanticSource = options.semantic ?? null;
  const rerankerOption = options.reranker ?? null;
  const deadlineMs = options.deadlineMs ?? 8_000;
  const tokenBudget = options.resultTokenBudget ?? RESULT_TOKEN_BUDGET;
  const parameters = sessionSearchJsonSchema();

  async function execute(rawArgs: unknown, context: SessionSearchContext): Promise<SessionSearchResult> {
    const requested = (rawArgs as { search_mode?: unknown } | null)?.search_mode;
    const base: SessionSearchResult = {
      shape: null,
      requested_mode: requested === 'keyword' || requested === 'semantic' ? requested : 'hybrid',
      used_mode: 'none',
      semantic_status: semanticSource ? 'unavailable' : 'disabled',
      semantic_coverage: null,
      scope: scopeJson(null),
      query: null,
      notes: [],
      results: [],
      truncated: false,
    };
    const parsed = sessionSearchArgsSchema.safeParse(rawArgs ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length ? `${issue.path.join('.')}: ` : '';
      return { ...base, error: { code: 'invalid_arguments', message: `Invalid arguments: ${where}${issue?.message ?? 'invalid'}` } };
    }
    const args = parsed.data;
    const result: SessionSearchResult = { ...base, requested_mode: args.search_mode, query: args.query ?? null, shape: shapeOf(args) };
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), deadlineMs);
    try {
      if (context.profile !== undefined && profile !== null && context.profile !== profile) {
        throw new ToolError('profile_mismatch', `This tool serves profile ${JSON.stringify(profile)}, not ${JSON.stringify(context.profile)}.`);
      }
      // since/until become one time range now, before any shape runs (read/scroll ignore it).
      const dates: DateRange = resolveDateRange(args, Date.now());
      let scope: ToolScope;
      if (context.currentSessionId === undefined && typeof context.projectId === 'string' && context.projectId !== '') {
        scope = await resolveProjectScope(storage, context.projectId);
      } else {
        if (typeof context.currentSessionId !== 'string' || context.currentSessionId === '') {
          throw new ToolError('caller_session_not_found', 'No current session in the call context.');
        }
        scope = await resolveScope(storage, context.currentSessionId);
      }
      result.scope = scopeJson(scope);
      let semantic: SemanticSource | null = null;
      let semanticStatus: SemanticStatus = 'disabled';
      let disabledReason: string | undefined;
      if (semanticSource) {
        const status = await semanticSource.status(scope);
        semanticStatus = status.status;
        // Coverage of an index that this call cannot use (switched off, other endpoint) would read as
        // "14 of 14 indexed" next to "disabled": only a usable or failing index reports coverage.
        result.semantic_coverage = status.status === 'disabled' ? null : status.coverage;
        disabledReason = status.status === 'disabled' ? status.reason : undefined;
        if (status.status === 'ready' || status.status === 'partial') semantic = semanticSource;
        if (status.status === 'partial') result.notes.push('The semantic index covers only part of this project yet; keyword search covers all of it.');
        if (status.status === 'unavailable' && status.reason) result.notes.push(`Semantic search is unavailable: ${status.reason}.`);
      }
      result.semantic_status = semanticStatus;

      // Semantic candidates first, outside the read scope: the query embedding is a provider call and
      // must not hold a scoped transaction (a pooled connection) open. The tool gates every hit again inside.
      const useSemantic = result.shape === 'discover' && args.search_mode !== 'keyword' && semantic !== null;
      const semanticResult: SemanticResult | undefined = useSemantic
        ? await semanticHits({ semantic, scope, args: { ...args, query: args.query! }, deadline: controller.signal, dates })
        : undefined;
      // Reranking sends text to the reranker: only in hybrid/semantic mode and only for a scope switched
      // on for it. Asked here, outside the read scope (on the ports the consent read is its own statement).
      const reranker =
        result.shape === 'discover' && rerankerOption && args.search_mode !== 'keyword' && (await rerankerOption.allows(scope)).allowed ? rerankerOption : null;
      // Every read of the shape runs inside the caller's read scope (one RLS transaction on PostgreSQL).
      const runShape = async (storage: Storage): Promise<void> => {
        switch (result.shape) {
          case 'scroll': {
            const out = await scrollAround(storage, scope, { ...args, around_message_id: args.around_message_id! });
            Object.assign(result, { results: out.results, truncated: out.truncated, used_mode: 'direct' });
            result.notes.push(...out.notes);
            break;
          }
          case 'read': {
            const out = await readSession(storage, scope, { ...args, session_id: args.session_id! });
            Object.assign(result, { results: out.results, truncated: out.truncated, used_mode: 'direct' });
            result.notes.push(...out.notes);
            break;
          }
          case 'browse': {
            const out = await browse(storage, scope, args, dates);
            Object.assign(result, { results: out.results, truncated: out.truncated, used_mode: 'direct' });
            result.notes.push(...out.notes);
            if (args.query !== undefined) result.notes.push('The query was empty, so recent conversations are listed instead.');
            break;
          }
          case 'discover': {
            if (args.search_mode === 'semantic' && !semantic) {
              // The same reason the hybrid note gives: "no provider" was wrong for a project that is only not switched on.
              const why = semanticStatus === 'disabled' ? disabledReasonText(disabledReason) : 'the semantic index is not available right now';
              throw new ToolError('semantic_unavailable', `Semantic search is unavailable (${why}). Retry with search_mode "keyword" or "hybrid".`);
            }
            const out = await discover({
              storage,
              scope,
              args: { ...args, query: args.query! },
              semantic: args.search_mode === 'keyword' ? null : semantic,
              ...(semanticResult ? { semanticResult } : {}),
              deadline: controller.signal,
              dates,
              reranker,
            });
            result.results = out.results;
            result.used_mode = out.usedMode;
            result.truncated = out.truncated;
            result.notes.push(...out.notes);
            // A source that reported ready/partial but could not answer (provider down, deadline) is
            // reported as unavailable for this call: the status says what actually happened.
            if (semantic && args.search_mode !== 'keyword' && out.usedMode !== 'hybrid' && out.usedMode !== 'semantic') result.semantic_status = 'unavailable';
            if (args.search_mode === 'hybrid' && out.usedMode === 'keyword') {
              result.notes.push(
                semanticStatus === 'disabled'
                  ? `Hybrid search ran as keyword-only: ${disabledReasonText(disabledReason)}.`
                  : 'Hybrid search fell back to keyword-only: semantic search was unavailable.',
              );
            }
            if (out.results.length === 0 && !out.noSemanticMatch) {
              const when = isDated(dates) ? ` ${describeRange(dates)}` : '';
              result.notes.push(scope.kind === 'project' ? `No matches in this project${when}.` : `No matches in this conversation's own history (it belongs to no project)${when}.`);
            }
            break;
          }
        }
      };
      await withReadScope(storage, readScopeOf(scope), runShape);
      const budgeted = applyBudget(result.shape!, result.results, tokenBudget);
      if (budgeted.trimmed) {
        result.results = budgeted.results;
        result.notes.push(...budgeted.notes);
        result.truncated = true;
      }
      return result;
    } catch (error) {
      if (error instanceof ToolError) return { ...result, results: [], error: { code: error.code, message: error.message } };
      return { ...result, results: [], error: { code: 'internal_error', message: `session_search failed: ${(error as Error).message}` } };
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    name: SESSION_SEARCH_TOOL_NAME,
    description: SESSION_SEARCH_DESCRIPTION,
    parameters,
    argsSchema: sessionSearchArgsSchema,
    execute,
  };
}

/** The tool in OpenAI chat-completions `tools` format: `{ type: 'function', function: { name, description, parameters } }`. */
export function openAiToolDefinition(tool: Pick<SessionSearchTool, 'name' | 'description' | 'parameters'>): {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
} {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}
