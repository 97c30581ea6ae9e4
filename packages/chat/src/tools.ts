/**
 * The tools the chat loop offers (exactly one: `session_search`) and how a model's tool call is
 * executed. The scope is fixed by the gateway, not the model: every call runs with the chat's own
 * session as the trusted context (`currentSessionId` = the conversation being answered, profile =
 * the gateway's), and the arguments the model wrote are only ever the tool's own arguments, which
 * the tool validates strictly (an extra key such as a session or project id is an
 * `invalid_arguments` result, not a wider search). Tool failures are results the model can read
 * and recover from, never exceptions that end the turn.
 */
import { openAiToolDefinition, SESSION_SEARCH_DESCRIPTION, SESSION_SEARCH_TOOL_NAME, sessionSearchJsonSchema, type SessionSearchExecutor } from '@recall/search-tool';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { MAX_MESSAGE_CHARS } from '@recall/rpc-contract';
import type { ChatToolAnchor } from './events.js';

/** A tool call as accumulated from the stream. */
export interface ModelToolCall {
  id: string;
  name: string;
  /** Raw JSON text as the model produced it. */
  arguments: string;
}

/** What the loop stores as the tool message and reports in the `chat.tool` event. */
export interface ToolOutcome {
  /** The tool message content: the tool's JSON result, or a JSON `{ error }` object. */
  content: string;
  arguments: unknown;
  used_mode: string | null;
  hits: number;
  anchors: ChatToolAnchor[];
  error?: { code: string; message: string };
}

/** Anchors reported per call in `chat.tool` (the full result is in the stored tool message). */
const MAX_EVENT_ANCHORS = 50;

/** The tool definitions for the chat-completions request: session_search when the gateway has it. */
export function chatToolDefinitions(executor: SessionSearchExecutor | null): ChatCompletionTool[] {
  if (executor === null) return [];
  // Prefer the wired tool's own metadata (it may describe a semantic source); fall back to the package's.
  const meta = executor as Partial<{ name: unknown; description: unknown; parameters: unknown }>;
  const definition = openAiToolDefinition({
    name: SESSION_SEARCH_TOOL_NAME,
    description: typeof meta.description === 'string' ? meta.description : SESSION_SEARCH_DESCRIPTION,
    parameters: typeof meta.parameters === 'object' && meta.parameters !== null ? (meta.parameters as Record<string, unknown>) : sessionSearchJsonSchema(),
  });
  return [definition];
}

function errorOutcome(args: unknown, code: string, message: string): ToolOutcome {
  const error = { code, message };
  return { content: JSON.stringify({ error }), arguments: args, used_mode: null, hits: 0, anchors: [], error };
}

/** Synthetic result for a call that was never run (cancelled turn, too many calls in one round). */
export function skippedToolOutcome(call: ModelToolCall, code: string, message: string): ToolOutcome {
  return errorOutcome(parseArguments(call.arguments).value, code, message);
}

function parseArguments(raw: string): { value: unknown; object: Record<string, unknown> | null } {
  if (raw.trim() === '') return { value: {}, object: {} };
  try {
    const value: unknown = JSON.parse(raw);
    return { value, object: typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null };
  } catch {
    return { value: raw, object: null };
  }
}

function anchorsOf(results: unknown): ChatToolAnchor[] {
  if (!Array.isArray(results)) return [];
  const anchors: ChatToolAnchor[] = [];
  for (const r of results as unknown[]) {
    if (anchors.length >= MAX_EVENT_ANCHORS) break;
    const { session_id, message_id, link } = (r ?? {}) as { session_id?: unknown; message_id?: unknown; link?: unknown };
    if (typeof session_id === 'string' && typeof message_id === 'number' && typeof link === 'string') anchors.push({ session_id, message_id, link });
  }
  return anchors;
}

/**
 * Runs one model tool call with the trusted context. Never throws: an unknown tool, unparsable
 * arguments or a failing executor become `{ error }` results.
 */
export async function executeToolCall(
  executor: SessionSearchExecutor | null,
  call: ModelToolCall,
  trusted: { currentSessionId: string; profile: string },
): Promise<ToolOutcome> {
  const parsed = parseArguments(call.arguments);
  if (executor === null || call.name !== SESSION_SEARCH_TOOL_NAME) {
    return errorOutcome(parsed.value, 'unknown_tool', `There is no tool named ${JSON.stringify(call.name.slice(0, 100))}; the only tool is ${SESSION_SEARCH_TOOL_NAME}.`);
  }
  if (parsed.object === null) {
    return errorOutcome(parsed.value, 'invalid_arguments', 'Invalid arguments: expected a JSON object.');
  }
  let result: unknown;
  try {
    // The context object is built here from the gateway's own values; nothing from `parsed` reaches it.
    result = await executor.execute(parsed.object, { currentSessionId: trusted.currentSessionId, profile: trusted.profile });
  } catch (error) {
    return errorOutcome(parsed.value, 'internal_error', `session_search failed: ${(error as Error).message}`);
  }
  const r = (result ?? {}) as { used_mode?: unknown; results?: unknown; error?: { code?: unknown; message?: unknown } };
  const content = JSON.stringify(result ?? null);
  if (content.length > MAX_MESSAGE_CHARS) {
    // It could not be stored as one message (and would swamp the model's context anyway).
    return errorOutcome(parsed.value, 'result_too_large', 'The result was too large to return; use a smaller limit or window.');
  }
  const error =
    r.error && typeof r.error === 'object'
      ? { code: typeof r.error.code === 'string' ? r.error.code : 'error', message: typeof r.error.message === 'string' ? r.error.message : 'session_search failed' }
      : undefined;
  const anchors = anchorsOf(r.results);
  return {
    content,
    arguments: parsed.value,
    used_mode: typeof r.used_mode === 'string' ? r.used_mode : null,
    hits: Array.isArray(r.results) ? r.results.length : 0,
    anchors,
    ...(error ? { error } : {}),
  };
}
