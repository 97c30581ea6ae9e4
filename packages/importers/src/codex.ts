/**
 * Reader for Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl` (format
 * of codex-rs 0.2x–0.4x, `{timestamp, type, payload}` lines; the earlier bare layout — a first line
 * with the session `id` and then bare response items — is read too; docs/importers.md). Maps:
 *
 * - `session_meta` → the session (its `id` is the Recall id, `cwd`, git branch; the git root is
 *   looked up on this machine), `turn_context` → the model.
 * - `response_item` messages → user/assistant messages (`developer`/`system` items and the
 *   injected `<environment_context>` / `<user_instructions>` user items → `system`), function /
 *   custom tool / local shell calls → assistant messages with their tool calls, their outputs →
 *   `tool` messages. Reasoning items and `event_msg` echoes are not imported (the same text is in
 *   the response items).
 * - `compacted` → the rest continues in a compression continuation `<session>:c<n>` whose first
 *   message is the compaction summary.
 *
 * Items carry no ids of their own, so the external id is the line number (`L<n>`): rollouts are
 * append-only, so it is stable across re-reads and live sync.
 */
import { basename } from 'node:path';
import type { MessageRole } from '@recall/rpc-contract';
import { gitRootOf } from './git-root.js';
import { readJsonlRecords } from './jsonl-file.js';
import type { ReadLinesOptions } from './line-reader.js';
import { clipContent, isObject, TOOL_ERROR_MARKER, safeSessionId, str, titleFrom, toMs, toolCallsJson, type MessageRecord, type SourceRecord } from './records.js';
import { listFiles } from './walk.js';

export const CODEX_SOURCE = 'codex';

export interface CodexFileState {
  sessionId?: string;
  segment: number;
  emitted: string[];
  cwd?: string | null;
  gitBranch?: string | null;
  startedAt?: number;
}

export function newCodexState(): CodexFileState {
  return { segment: 0, emitted: [] };
}

export function codexFiles(path: string): string[] {
  return listFiles(path, (name) => name.endsWith('.jsonl'));
}

const UUID_IN_NAME = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;
const INJECTED = /^\s*<(environment_context|user_instructions|permissions|turn_aborted)\b/;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content) {
    if (isObject(block) && typeof block.text === 'string') parts.push(block.text);
    else if (isObject(block) && (block.type === 'input_image' || block.type === 'image')) parts.push('[image]');
  }
  return parts.join('\n');
}

function outputText(output: unknown): string {
  if (typeof output === 'string') {
    // Older rollouts store {"output": "...", "metadata": {...}} as a JSON string.
    try {
      const parsed = JSON.parse(output) as unknown;
      if (isObject(parsed) && typeof parsed.output === 'string') {
        // A non-zero exit code is the tool's own failure: marked as Claude Code's is_error results are.
        const exit = isObject(parsed.metadata) ? parsed.metadata.exit_code : undefined;
        return typeof exit === 'number' && exit !== 0 ? `${TOOL_ERROR_MARKER}${parsed.output}` : parsed.output;
      }
    } catch {
      /* plain text */
    }
    return output;
  }
  if (isObject(output)) return typeof output.content === 'string' ? output.content : textOf(output.content) || JSON.stringify(output);
  return output === undefined || output === null ? '' : JSON.stringify(output);
}

interface Ctx {
  file: string;
  state: CodexFileState;
}

function target(ctx: Ctx): { id: string; parent: string | null; lineage: 'root' | 'compression' } {
  const root = ctx.state.sessionId!;
  if (ctx.state.segment === 0) return { id: root, parent: null, lineage: 'root' };
  return { id: `${root}:c${ctx.state.segment}`, parent: ctx.state.segment === 1 ? root : `${root}:c${ctx.state.segment - 1}`, lineage: 'compression' };
}

function* ensureSession(ctx: Ctx, line: number, firstText: string | null): Generator<SourceRecord> {
  ctx.state.sessionId ??= safeSessionId(UUID_IN_NAME.exec(basename(ctx.file))?.[1] ?? basename(ctx.file, '.jsonl'));
  const t = target(ctx);
  if (ctx.state.emitted.includes(t.id)) return;
  ctx.state.emitted.push(t.id);
  const cwd = ctx.state.cwd ?? null;
  yield {
    kind: 'session',
    file: ctx.file,
    line,
    id: t.id,
    parentId: t.parent,
    lineage: t.lineage,
    source: CODEX_SOURCE,
    defaultTitle: t.lineage === 'root' && firstText ? titleFrom(firstText) : null,
    cwd,
    gitRepoRoot: cwd ? gitRootOf(cwd) : null,
    gitBranch: ctx.state.gitBranch ?? null,
    ...(ctx.state.startedAt !== undefined ? { startedAt: ctx.state.startedAt } : {}),
  };
}

function* mapItem(ctx: Ctx, item: Record<string, unknown>, line: number, timestamp: number | undefined): Generator<SourceRecord> {
  const base = { kind: 'message' as const, file: ctx.file, line, externalId: `L${line}`, ...(timestamp !== undefined ? { createdAt: timestamp } : {}) };
  let message: Omit<MessageRecord, 'sessionId'> | null = null;
  switch (item.type) {
    case 'message': {
      const text = textOf(item.content);
      if (text === '') return;
      const raw = str(item.role);
      const role: MessageRole = raw === 'assistant' ? 'assistant' : raw === 'user' ? (INJECTED.test(text) ? 'system' : 'user') : 'system';
      message = { ...base, role, content: clipContent(text) };
      break;
    }
    case 'function_call':
    case 'custom_tool_call':
    case 'local_shell_call': {
      const name = str(item.name) ?? (item.type === 'local_shell_call' ? 'local_shell' : 'tool');
      const args = item.type === 'function_call' ? (str(item.arguments) ?? '') : item.type === 'custom_tool_call' ? (str(item.input) ?? '') : JSON.stringify(item.action ?? {});
      const callId = str(item.call_id) ?? str(item.id) ?? null;
      message = {
        ...base,
        role: 'assistant',
        content: clipContent(`${name} ${args}`),
        toolName: name,
        toolCalls: toolCallsJson([{ id: callId, type: 'function', function: { name, arguments: args } }]),
      };
      break;
    }
    case 'function_call_output':
    case 'custom_tool_call_output':
      message = { ...base, role: 'tool', content: clipContent(outputText(item.output)), toolCallId: str(item.call_id) ?? null };
      break;
    default:
      return; // reasoning, web_search_call, … — not conversation text
  }
  yield* ensureSession(ctx, line, message.role === 'user' ? message.content : null);
  yield { ...message, sessionId: target(ctx).id };
}

function* mapLine(ctx: Ctx, rec: Record<string, unknown>, line: number): Generator<SourceRecord> {
  const timestamp = toMs(rec.timestamp);
  const payload = isObject(rec.payload) ? rec.payload : null;
  switch (rec.type) {
    case 'session_meta': {
      if (!payload) break;
      if (ctx.state.sessionId === undefined && typeof payload.id === 'string') ctx.state.sessionId = safeSessionId(payload.id);
      ctx.state.cwd ??= str(payload.cwd) ?? null;
      ctx.state.gitBranch ??= isObject(payload.git) ? (str(payload.git.branch) ?? null) : null;
      ctx.state.startedAt ??= toMs(payload.timestamp) ?? timestamp;
      yield* ensureSession(ctx, line, null);
      return;
    }
    case 'turn_context': {
      if (!payload || typeof payload.model !== 'string') return;
      yield* ensureSession(ctx, line, null);
      const id = target(ctx).id;
      if (!ctx.state.emitted.includes(`model:${id}`)) {
        ctx.state.emitted.push(`model:${id}`);
        yield { kind: 'session-update', file: ctx.file, line, id, model: payload.model };
      }
      return;
    }
    case 'response_item':
      if (payload) yield* mapItem(ctx, payload, line, timestamp);
      return;
    case 'compacted': {
      yield* ensureSession(ctx, line, null);
      ctx.state.segment++;
      yield* ensureSession(ctx, line, null);
      const summary = payload ? str(payload.message) : undefined;
      if (summary) yield { kind: 'message', file: ctx.file, line, externalId: `L${line}`, role: 'system', content: clipContent(summary), sessionId: target(ctx).id, ...(timestamp !== undefined ? { createdAt: timestamp } : {}) };
      return;
    }
    case 'event_msg':
      return;
    default:
      break;
  }
  // The earlier layout: a bare meta line, then bare response items and {"record_type":"state"} lines.
  if (rec.type === undefined && typeof rec.id === 'string' && line === 1) {
    ctx.state.sessionId = safeSessionId(rec.id);
    ctx.state.startedAt = timestamp;
    ctx.state.gitBranch = isObject(rec.git) ? (str(rec.git.branch) ?? null) : null;
    yield* ensureSession(ctx, line, null);
    return;
  }
  if (typeof rec.type === 'string') yield* mapItem(ctx, rec, line, timestamp);
}

export function readCodexFile(
  file: string,
  state: CodexFileState,
  lineOptions: ReadLinesOptions = {},
  onLine?: (endOffset: number, line: number) => void,
): AsyncGenerator<SourceRecord[]> {
  const ctx: Ctx = { file, state };
  return readJsonlRecords(file, (rec, line) => mapLine(ctx, rec, line), lineOptions, onLine);
}
