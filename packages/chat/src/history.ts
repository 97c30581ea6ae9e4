/**
 * What the model is sent as context, and how tool calls are stored. The context of a turn is the
 * session's LIVE messages only: compacted rows and earlier compression segments have left the
 * context on purpose and come back only through session_search (seed §4.5: recall enters the
 * context through tool results, never by rewriting history). Stored rows map to chat-completions
 * messages one to one — an assistant row's `toolCalls` column holds the OpenAI `tool_calls` array as
 * JSON, a tool row carries `toolCallId` + `toolName` — with one repair: the API rejects an assistant
 * tool call without its answer (or an answer without its call), which imported or crashed histories
 * can contain, so unpaired halves are left out instead of failing every later turn.
 */
import type { Message } from '@recall/rpc-contract';
import type { Storage } from '@recall/storage-ports';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';

/** One stored tool call, in the chat-completions wire shape. */
export interface StoredToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

const PAGE = 5_000;

/** Every live message of the session in id order (paged: the store caps one read at 10 000 rows). */
export async function loadLiveHistory(storage: Storage, sessionId: string): Promise<Message[]> {
  const out: Message[] = [];
  let afterId = 0;
  for (;;) {
    const page = await storage.messages.list(sessionId, { afterId, limit: PAGE });
    for (const m of page) if (m.visibility === 'live') out.push(m);
    if (page.length < PAGE) return out;
    afterId = page[page.length - 1]!.id;
  }
}

export function serializeToolCalls(calls: readonly StoredToolCall[]): string {
  return JSON.stringify(calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.function.name, arguments: c.function.arguments } })));
}

/** Parses a `toolCalls` column written by us or an importer; anything not in the wire shape is ignored. */
export function parseToolCalls(json: string | null): StoredToolCall[] {
  if (json === null || json.trim() === '') return [];
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  const calls: StoredToolCall[] = [];
  for (const item of value as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const { id, function: fn } = item as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
    if (typeof id !== 'string' || id === '' || typeof fn !== 'object' || fn === null || typeof fn.name !== 'string') continue;
    const args = typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {});
    calls.push({ id, type: 'function', function: { name: fn.name, arguments: args } });
  }
  return calls;
}

/** Stored messages → chat-completions messages, with unpaired tool calls/results left out (see header). */
export function toModelMessages(messages: readonly Message[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    switch (m.role) {
      case 'user':
        out.push({ role: 'user', content: m.content });
        break;
      case 'system':
        out.push({ role: 'system', content: m.content });
        break;
      case 'tool':
        // Answers are emitted together with the assistant message that asked for them (below);
        // reaching one here means it answers nothing in reach, which the API would reject.
        break;
      case 'assistant': {
        const calls = parseToolCalls(m.toolCalls);
        if (calls.length === 0) {
          out.push({ role: 'assistant', content: m.content });
          break;
        }
        const followers: Message[] = [];
        for (let j = i + 1; j < messages.length && messages[j]!.role === 'tool'; j++) followers.push(messages[j]!);
        const answered = calls.filter((c) => followers.some((t) => t.toolCallId === c.id));
        if (answered.length === 0) {
          if (m.content !== '') out.push({ role: 'assistant', content: m.content });
          break;
        }
        out.push({ role: 'assistant', content: m.content === '' ? null : m.content, tool_calls: answered });
        const seen = new Set<string>();
        for (const t of followers) {
          const id = t.toolCallId;
          if (id === null || seen.has(id) || !answered.some((c) => c.id === id)) continue;
          seen.add(id);
          out.push({ role: 'tool', tool_call_id: id, content: t.content });
        }
        break;
      }
    }
  }
  return out;
}
