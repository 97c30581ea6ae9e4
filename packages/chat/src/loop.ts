/**
 * One chat turn: the tool-calling loop against an OpenAI-compatible chat-completions endpoint.
 * Each round streams one completion; text deltas are reported as they arrive, tool-call deltas are
 * assembled by index. A round that ends with tool calls is persisted (the assistant message with
 * its `tool_calls`), each call is executed by the gateway with the trusted context and its result
 * persisted as a tool message, and the next round sends the grown history. After `maxToolRounds`
 * tool rounds the model is asked once more with `tool_choice: "none"` so that a bounded turn still
 * ends in an answer. Only complete messages are persisted: a partial streamed answer never is, so a
 * crash or cancel loses at most that partial text. The loop owns no timers or run bookkeeping — the
 * caller (runs.ts) passes the abort signal that carries cancellation and the deadline, and
 * classifies whatever this function throws. Every request goes through the redaction policy
 * (`redactForModel`): message texts on the `chat` surface, tool results on `search_results` — the
 * stored messages and the events keep the original text.
 */
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { randomBytes } from 'node:crypto';
import type { Message } from '@recall/rpc-contract';
import type { MessageInput } from '@recall/storage-ports';
import { ChatError } from './errors.js';
import { serializeToolCalls } from './history.js';
import type { SessionSearchExecutor } from '@recall/search-tool';
import type { RedactionPolicy } from '@recall/redaction';
import { executeToolCall, skippedToolOutcome, type ModelToolCall, type ToolOutcome } from './tools.js';

/** Tool calls executed per round; more in one response are answered with an error result. */
export const MAX_TOOL_CALLS_PER_ROUND = 8;

export interface ChatTurnInput {
  client: OpenAI;
  model: string;
  maxToolRounds: number;
  maxRetries: number;
  tools: ChatCompletionTool[];
  executor: SessionSearchExecutor | null;
  /** The conversation being answered: the only scope the tool ever runs with. */
  trusted: { currentSessionId: string; profile: string };
  /** Live history, ending with the user's (already persisted) message. */
  history: ChatCompletionMessageParam[];
  /** Applied to what is sent (see `redactForModel`); absent = sent as is. */
  redaction?: RedactionPolicy;
  signal: AbortSignal;
  /** Stores one complete message (and announces it); returns the stored row. */
  persist(message: MessageInput): Promise<Message>;
  onDelta(round: number, text: string): void;
  onTool(round: number, call: ModelToolCall, outcome: ToolOutcome, messageId: number): void;
}

export interface ChatTurnResult {
  final: Message;
  /** Model requests made. */
  rounds: number;
  toolRounds: number;
}

interface RoundOutput {
  text: string;
  calls: ModelToolCall[];
}

function newCallId(): string {
  return `call_${randomBytes(12).toString('base64url')}`;
}

/**
 * The messages as the model may see them: the text of user, assistant and system messages through
 * the policy's `chat` surface; tool results (session_search's JSON) parsed and every string in them
 * through the `search_results` surface, then serialised again (a tool result that is not JSON is
 * redacted as text). Tool-call arguments are the model's own words and are sent back unchanged.
 */
export function redactForModel(messages: readonly ChatCompletionMessageParam[], policy: RedactionPolicy): ChatCompletionMessageParam[] {
  const chat = policy.text('chat');
  const results = policy.text('search_results');
  return messages.map((m): ChatCompletionMessageParam => {
    if (m.role === 'tool') {
      if (typeof m.content !== 'string') return { ...m, content: m.content.map((part) => ({ ...part, text: results(part.text) })) };
      let parsed: unknown;
      try {
        parsed = JSON.parse(m.content);
      } catch {
        return { ...m, content: results(m.content) };
      }
      return { ...m, content: JSON.stringify(policy.value('search_results', parsed)) };
    }
    if (typeof m.content === 'string') return { ...m, content: chat(m.content) } as ChatCompletionMessageParam;
    if (Array.isArray(m.content)) {
      const parts = (m.content as Array<{ type: string; text?: string }>).map((part) => (part.type === 'text' && typeof part.text === 'string' ? { ...part, text: chat(part.text) } : part));
      return { ...m, content: parts } as ChatCompletionMessageParam;
    }
    return m;
  });
}

/** One streamed completion, assembled. */
async function streamRound(input: ChatTurnInput, messages: ChatCompletionMessageParam[], round: number, forceAnswer: boolean): Promise<RoundOutput> {
  const withTools = input.tools.length > 0;
  const stream = await input.client.chat.completions.create(
    {
      model: input.model,
      messages: input.redaction ? redactForModel(messages, input.redaction) : messages,
      stream: true,
      ...(withTools ? { tools: input.tools, ...(forceAnswer ? { tool_choice: 'none' as const } : {}) } : {}),
    },
    { signal: input.signal, maxRetries: input.maxRetries },
  );
  let text = '';
  let sawChoice = false;
  const partial = new Map<number, { id: string; name: string; arguments: string }>();
  for await (const chunk of stream) {
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    sawChoice = true;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string' && delta.content !== '') {
      text += delta.content;
      input.onDelta(round, delta.content);
    }
    for (const [position, tc] of (delta.tool_calls ?? []).entries()) {
      const index = typeof tc.index === 'number' ? tc.index : position;
      const entry = partial.get(index) ?? { id: '', name: '', arguments: '' };
      // Ids and names arrive whole (some servers repeat them on every chunk); arguments arrive in pieces.
      if (typeof tc.id === 'string' && tc.id !== '' && entry.id === '') entry.id = tc.id;
      if (typeof tc.function?.name === 'string' && tc.function.name !== '' && entry.name === '') entry.name = tc.function.name;
      if (typeof tc.function?.arguments === 'string') entry.arguments += tc.function.arguments;
      partial.set(index, entry);
    }
  }
  // The SDK ends the iteration quietly when the request is aborted; an aborted round is not an answer.
  input.signal.throwIfAborted();
  if (!sawChoice) throw new ChatError('chat_model_bad_response', 'The model endpoint ended the stream without sending any choice.', { retryable: true });
  const calls = [...partial.entries()]
    .sort(([a], [b]) => a - b)
    // Ids are stored in a 200-character column and must match between call and answer: replace odd ones.
    .map(([, c]) => ({ id: c.id === '' || c.id.length > 200 ? newCallId() : c.id, name: c.name.slice(0, 200), arguments: c.arguments }));
  return { text, calls };
}

export async function runChatTurn(input: ChatTurnInput): Promise<ChatTurnResult> {
  const messages = [...input.history];
  let toolRounds = 0;
  for (let round = 1; ; round++) {
    input.signal.throwIfAborted();
    const forceAnswer = toolRounds >= input.maxToolRounds;
    const { text, calls } = await streamRound(input, messages, round, forceAnswer);

    if (calls.length === 0 || (forceAnswer && text.trim() !== '')) {
      // A final answer (tool calls that ignore tool_choice "none" are dropped when there is text).
      const final = await input.persist({ role: 'assistant', content: text });
      return { final, rounds: round, toolRounds };
    }
    if (forceAnswer) {
      throw new ChatError(
        'chat_tool_rounds_exceeded',
        `The model still asked for tools after ${input.maxToolRounds} tool round(s) and would not answer; the turn was stopped.`,
        { data: { maxToolRounds: input.maxToolRounds } },
      );
    }

    const wire = calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } }));
    await input.persist({ role: 'assistant', content: text, toolCalls: serializeToolCalls(wire) });
    messages.push({ role: 'assistant', content: text === '' ? null : text, tool_calls: wire });

    for (const [i, call] of calls.entries()) {
      // Every call gets a stored answer, even when it is not run: the API rejects unanswered calls,
      // so a cancelled turn must still leave a history the next turn can send.
      const outcome = input.signal.aborted
        ? skippedToolOutcome(call, 'cancelled', 'The turn was stopped before this call ran.')
        : i >= MAX_TOOL_CALLS_PER_ROUND
          ? skippedToolOutcome(call, 'too_many_tool_calls', `At most ${MAX_TOOL_CALLS_PER_ROUND} tool calls run per response; ask again with fewer.`)
          : await executeToolCall(input.executor, call, input.trusted);
      const stored = await input.persist({ role: 'tool', content: outcome.content, toolName: call.name || 'unknown', toolCallId: call.id });
      messages.push({ role: 'tool', tool_call_id: call.id, content: outcome.content });
      input.onTool(round, call, outcome, stored.id);
    }
    toolRounds++;
  }
}
