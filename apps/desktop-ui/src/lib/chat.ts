/**
 * Pure logic of the chat panel (docs/rpc.md, "Chat"): the state of each conversation's answer in
 * progress, folded from `chat.*` events and from what `chat.send` / `chat.status` answered — in
 * whatever order they arrive (events may overtake the HTTP answer of `chat.send`) — and the
 * readers the view needs: the streamed text still to show, the tool cards of stored messages
 * (arguments from the assistant message's `toolCalls`, used_mode / hits / anchors from the stored
 * `session_search` result) and of `chat.tool` events not stored yet. No React, no I/O.
 */
import type { ChatEvent, ChatStatus, ChatToolEvent, Message } from '@recall/rpc-contract';

export type ChatRunStatus = 'sending' | 'running' | 'done' | 'error';

export interface ChatRunError {
  code: string;
  message: string;
  retryable: boolean;
  status: 'cancelled' | 'failed';
}

export interface ChatRun {
  sessionId: string;
  /** null while `chat.send` is in flight and no event of the run has arrived yet. */
  runId: string | null;
  userMessageId: number | null;
  status: ChatRunStatus;
  /** Text streamed per round (1-based model request). */
  rounds: Record<number, string>;
  /** Rounds that ended in tool calls: their text was stored with the call, not shown live. */
  toolRounds: number[];
  /** `chat.tool` events of the run, in arrival order. */
  tools: ChatToolEvent[];
  /** The stored final answer (`chat.done`). */
  finalMessageId: number | null;
  error: ChatRunError | null;
  /** What the user sent from this page (for "Send again"); null for a run started elsewhere. */
  content: string | null;
  /** Learned from `chat.status` (started before this page loaded, or in another window). */
  joined: boolean;
  cancelling: boolean;
  /** Client clock when this page learned of the run. */
  seenAt: number;
}

export interface ChatRunsState {
  /** The latest run of each conversation (session id). */
  bySession: Record<string, ChatRun>;
  /** `chat.tool` events seen by this page, by stored tool message id. */
  toolsByMessage: Record<number, ChatToolEvent>;
}

export const initialChatRuns: ChatRunsState = { bySession: {}, toolsByMessage: {} };

export type ChatRunsAction =
  | { kind: 'event'; event: ChatEvent; now?: number }
  | { kind: 'sending'; sessionId: string; content: string; now?: number }
  | { kind: 'sent'; sessionId: string; runId: string; userMessageId: number }
  /** `chat.send` answered an error: nothing was stored and no run exists (the composer shows why). */
  | { kind: 'refused'; sessionId: string }
  | { kind: 'cancelling'; sessionId: string; on: boolean }
  | { kind: 'status'; activeRuns: ChatStatus['activeRuns']; requestedAt: number; now?: number }
  | { kind: 'dismiss'; sessionId: string };

function newRun(sessionId: string, fields: Partial<ChatRun>, now: number): ChatRun {
  return {
    sessionId,
    runId: null,
    userMessageId: null,
    status: 'running',
    rounds: {},
    toolRounds: [],
    tools: [],
    finalMessageId: null,
    error: null,
    content: null,
    joined: false,
    cancelling: false,
    seenAt: now,
    ...fields,
  };
}

export function isActive(run: ChatRun | null | undefined): boolean {
  return !!run && (run.status === 'sending' || run.status === 'running');
}

/** The run an event belongs to: ours (by id, or the one still waiting for its id), else a new one. */
function runForEvent(state: ChatRunsState, e: ChatEvent, now: number): ChatRun | null {
  const cur = state.bySession[e.sessionId];
  if (cur && cur.runId === e.runId) return cur;
  if (cur && cur.runId === null && cur.status === 'sending') return { ...cur, runId: e.runId, status: 'running' };
  // A terminal event of a run this page never saw start: nothing to show (the stored messages reload).
  if (e.type === 'chat.done' || e.type === 'chat.error') return null;
  // One run per session at a time: a different id means a new run (another window, or we missed the end).
  return newRun(e.sessionId, { runId: e.runId, ...(e.type === 'chat.started' ? { userMessageId: e.userMessageId } : {}) }, now);
}

function withRun(state: ChatRunsState, run: ChatRun): ChatRunsState {
  return { ...state, bySession: { ...state.bySession, [run.sessionId]: run } };
}

export function chatRunsReducer(state: ChatRunsState, action: ChatRunsAction): ChatRunsState {
  const now = ('now' in action && action.now) || Date.now();
  switch (action.kind) {
    case 'sending':
      return withRun(state, newRun(action.sessionId, { status: 'sending', content: action.content }, now));
    case 'sent': {
      const cur = state.bySession[action.sessionId];
      if (!cur) return state;
      if (cur.runId === null && cur.status === 'sending') return withRun(state, { ...cur, runId: action.runId, userMessageId: action.userMessageId, status: 'running' });
      if (cur.runId === action.runId && cur.userMessageId === null) return withRun(state, { ...cur, userMessageId: action.userMessageId });
      return state;
    }
    case 'refused': {
      const cur = state.bySession[action.sessionId];
      if (!cur || cur.status !== 'sending' || cur.runId !== null) return state;
      const bySession = { ...state.bySession };
      delete bySession[action.sessionId];
      return { ...state, bySession };
    }
    case 'cancelling': {
      const cur = state.bySession[action.sessionId];
      return cur ? withRun(state, { ...cur, cancelling: action.on }) : state;
    }
    case 'dismiss': {
      const cur = state.bySession[action.sessionId];
      if (!cur || isActive(cur)) return state;
      const bySession = { ...state.bySession };
      delete bySession[action.sessionId];
      return { ...state, bySession };
    }
    case 'status': {
      let next = state;
      const active = new Set(action.activeRuns.map((r) => r.runId));
      for (const r of action.activeRuns) {
        const cur = next.bySession[r.sessionId];
        if (cur && cur.runId === r.runId) continue;
        if (cur && cur.runId === null && cur.status === 'sending') continue; // ours, id not known yet
        next = withRun(next, newRun(r.sessionId, { runId: r.runId, userMessageId: r.userMessageId, joined: true }, now));
      }
      // Runs we think are going on but the gateway no longer has (their end was missed while the
      // socket was down): stop showing them as running. Only runs known before the status request.
      for (const run of Object.values(next.bySession)) {
        if (run.status === 'running' && run.runId !== null && !active.has(run.runId) && run.seenAt < action.requestedAt) {
          next = withRun(next, { ...run, status: 'done', cancelling: false });
        }
      }
      return next;
    }
    case 'event': {
      const e = action.event;
      const run = runForEvent(state, e, now);
      if (!run) return state;
      switch (e.type) {
        case 'chat.started':
          return withRun(state, { ...run, userMessageId: e.userMessageId, status: run.status === 'sending' ? 'running' : run.status });
        case 'chat.delta':
          return withRun(state, { ...run, rounds: { ...run.rounds, [e.round]: (run.rounds[e.round] ?? '') + e.text } });
        case 'chat.tool': {
          const tools = run.tools.some((t) => t.toolCallId === e.toolCallId && t.messageId === e.messageId) ? run.tools : [...run.tools, e];
          const toolRounds = run.toolRounds.includes(e.round) ? run.toolRounds : [...run.toolRounds, e.round];
          return { ...withRun(state, { ...run, tools, toolRounds }), toolsByMessage: { ...state.toolsByMessage, [e.messageId]: e } };
        }
        case 'chat.done':
          return withRun(state, { ...run, status: 'done', finalMessageId: e.messageId, cancelling: false });
        case 'chat.error':
          return withRun(state, {
            ...run,
            status: 'error',
            cancelling: false,
            error: { code: e.code, message: e.message, retryable: e.retryable, status: e.status },
          });
      }
    }
  }
  return state;
}

/** The latest round's streamed text, unless that round ended in tool calls (then it is stored). */
export function liveText(run: ChatRun | null | undefined): string {
  if (!run || run.status === 'error') return '';
  const rounds = Object.keys(run.rounds).map(Number);
  if (rounds.length === 0) return '';
  const last = Math.max(...rounds);
  if (run.toolRounds.includes(last)) return '';
  return run.rounds[last] ?? '';
}

/** The round the run is in (1 before anything streamed). */
export function currentRound(run: ChatRun): number {
  const rounds = [...Object.keys(run.rounds).map(Number), ...run.toolRounds];
  return rounds.length ? Math.max(...rounds) : 1;
}

/** What the run is doing, for the status line. */
export function runPhase(run: ChatRun): string {
  if (run.status === 'sending') return 'Sending…';
  if (run.status === 'done') return 'Answered';
  if (run.status === 'error') return run.error?.status === 'cancelled' ? 'Stopped' : 'Failed';
  if (run.cancelling) return 'Stopping…';
  if (liveText(run)) return 'Answering…';
  const last = currentRound(run);
  if (run.toolRounds.includes(last)) return 'Read the search results; thinking…';
  return run.joined ? 'Still answering (started earlier)…' : 'Thinking…';
}

// ---------------------------------------------------------------------------------------------
// Tool calls and results as stored

export interface ToolCallInfo {
  id: string;
  name: string;
  /** Parsed arguments, or the raw text when they were not JSON. */
  arguments: unknown;
  /** The arguments as stored (a JSON text), or null when they were not a string. */
  rawArguments: string | null;
}

function parseMaybeJson(text: unknown): unknown {
  if (typeof text !== 'string') return text;
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The calls of an assistant message's `toolCalls` (OpenAI `tool_calls` JSON text). */
export function parseToolCalls(json: string | null | undefined): ToolCallInfo[] {
  if (!json) return [];
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  const out: ToolCallInfo[] = [];
  for (const c of value as unknown[]) {
    if (!c || typeof c !== 'object') continue;
    const call = c as { id?: unknown; function?: { name?: unknown; arguments?: unknown }; name?: unknown; arguments?: unknown };
    const fn = call.function ?? call;
    out.push({
      id: typeof call.id === 'string' ? call.id : '',
      name: typeof fn.name === 'string' ? fn.name : 'tool',
      arguments: parseMaybeJson(fn.arguments),
      rawArguments: typeof fn.arguments === 'string' ? fn.arguments : null,
    });
  }
  return out;
}

/** Every tool call of the conversation's assistant messages, by call id. */
export function callsById(messages: readonly Message[]): Map<string, ToolCallInfo> {
  const map = new Map<string, ToolCallInfo>();
  for (const m of messages) {
    if (m.role !== 'assistant' || !m.toolCalls) continue;
    for (const c of parseToolCalls(m.toolCalls)) if (c.id) map.set(c.id, c);
  }
  return map;
}

export interface ToolAnchor {
  session_id: string;
  message_id: number;
  link?: string;
  title?: string | null;
  snippet?: string;
  role?: string;
  date?: string | number | null;
}

/** What a tool card shows. */
export interface ToolView {
  name: string;
  /** undefined when the call is not known (e.g. its assistant message is not loaded). */
  args: unknown;
  usedMode: string | null;
  hits: number;
  anchors: ToolAnchor[];
  error: { code: string; message: string } | null;
  notes: string[];
  /** 'project' | 'own_conversation' as the tool resolved it, when known. */
  scope: string | null;
  /** The parsed stored result (or its raw text), for "Raw result". */
  raw: unknown;
}

function anchorsOfResults(results: unknown): ToolAnchor[] {
  if (!Array.isArray(results)) return [];
  const out: ToolAnchor[] = [];
  for (const r of results as unknown[]) {
    if (!r || typeof r !== 'object') continue;
    const x = r as Record<string, unknown>;
    if (typeof x.session_id !== 'string' || typeof x.message_id !== 'number') continue;
    out.push({
      session_id: x.session_id,
      message_id: x.message_id,
      ...(typeof x.link === 'string' ? { link: x.link } : {}),
      ...(typeof x.title === 'string' || x.title === null ? { title: x.title as string | null } : {}),
      ...(typeof x.snippet === 'string' ? { snippet: x.snippet } : {}),
      ...(typeof x.role === 'string' ? { role: x.role } : {}),
      ...(typeof x.date === 'string' || typeof x.date === 'number' ? { date: x.date } : {}),
    });
  }
  return out;
}

/** A stored tool message (its content is the session_search result JSON, or `{ error }`). */
export function toolViewFromMessage(message: Pick<Message, 'content' | 'toolName'>, call?: ToolCallInfo): ToolView {
  const name = message.toolName ?? call?.name ?? 'tool';
  let parsed: unknown;
  try {
    parsed = JSON.parse(message.content);
  } catch {
    return {
      name,
      args: call?.arguments,
      usedMode: null,
      hits: 0,
      anchors: [],
      error: { code: 'unreadable_result', message: 'The stored result is not JSON.' },
      notes: [],
      scope: null,
      raw: message.content,
    };
  }
  const r = (parsed && typeof parsed === 'object' ? parsed : {}) as Record<string, unknown>;
  const err = r.error && typeof r.error === 'object' ? (r.error as { code?: unknown; message?: unknown }) : null;
  const scope = r.scope && typeof r.scope === 'object' ? (r.scope as { kind?: unknown }).kind : null;
  return {
    name,
    args: call?.arguments,
    usedMode: typeof r.used_mode === 'string' ? r.used_mode : null,
    hits: Array.isArray(r.results) ? r.results.length : 0,
    anchors: anchorsOfResults(r.results),
    error: err ? { code: typeof err.code === 'string' ? err.code : 'error', message: typeof err.message === 'string' ? err.message : 'The tool failed.' } : null,
    notes: Array.isArray(r.notes) ? r.notes.filter((n): n is string => typeof n === 'string') : [],
    scope: typeof scope === 'string' ? scope : null,
    raw: parsed,
  };
}

/** A `chat.tool` event (before its stored message is loaded). */
export function toolViewFromEvent(e: ChatToolEvent): ToolView {
  return {
    name: e.name,
    args: e.arguments,
    usedMode: e.used_mode,
    hits: e.hits,
    anchors: e.anchors.map((a) => ({ session_id: a.session_id, message_id: a.message_id, link: a.link })),
    error: e.error ?? null,
    notes: [],
    scope: null,
    raw: null,
  };
}

function clipText(s: string, max: number): string {
  const chars = Array.from(s);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : s;
}

/** One line for a call's arguments: `“query” · search_mode keyword · limit 5`. */
export function formatArgs(args: unknown, max = 140): string {
  if (args === undefined || args === null) return '';
  if (typeof args === 'string') return clipText(args, max);
  if (typeof args !== 'object' || Array.isArray(args)) return clipText(JSON.stringify(args), max);
  const parts: string[] = [];
  const entries = Object.entries(args as Record<string, unknown>);
  const query = entries.find(([k]) => k === 'query');
  if (query && typeof query[1] === 'string') parts.push(`“${query[1]}”`);
  for (const [k, v] of entries) {
    if (k === 'query' && typeof v === 'string') continue;
    parts.push(`${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  }
  return clipText(parts.join(' · '), max);
}

/** The query a call searched for (to highlight it in result snippets). */
export function queryOf(args: unknown): string {
  if (args && typeof args === 'object' && !Array.isArray(args)) {
    const q = (args as { query?: unknown }).query;
    if (typeof q === 'string') return q;
  }
  return '';
}

/** `/compress` typed into the composer is a command, never a message. */
export function isCompressCommand(text: string): boolean {
  return /^\/compress\s*$/i.test(text.trim());
}

export function hitsLabel(n: number): string {
  return n === 1 ? '1 hit' : `${n} hits`;
}
