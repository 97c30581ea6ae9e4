/**
 * Reader for Claude Code transcripts: `~/.claude/projects/<encoded cwd>/<session uuid>.jsonl`, one
 * JSON record per line (format as written by Claude Code 1.x–2.x; docs/importers.md lists the
 * record kinds we read). Maps, without guessing ownership:
 *
 * - `user` / `assistant` records → messages with the record `uuid` as external id. A user record's
 *   `tool_result` blocks become `tool` messages (`<uuid>#<n>`), an assistant record's `tool_use`
 *   blocks its tool calls (name + input also in the text, so a search for the command finds it);
 *   `thinking` blocks are not imported. `isMeta` user records become `system` messages.
 * - `system` records with `subtype: "compact_boundary"` → the rest of the file continues in a
 *   compression continuation `<session>:c<n>` (n counts boundaries, so re-reads give the same ids);
 *   the compact summary that follows (`isCompactSummary`) is that continuation's first message.
 * - Sidechain records (`isSidechain: true`; subagent transcripts `agent-*.jsonl`, also under
 *   `<session>/subagents/`) → a hidden delegation child `<session>:agent-<agentId>` (or
 *   `<session>:sidechain` when no agent id is recorded).
 * - `summary` records → the session title. `cwd` and `gitBranch` → session metadata (the git root
 *   is looked up on this machine when the folder exists; never a project id).
 * - Everything else (file-history snapshots, queue operations, …) is skipped silently.
 *
 * Per-file parse state (the session, the current segment, what metadata was already emitted) is a
 * small JSON-able object so live sync can resume mid-file from a persisted offset.
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { MessageRole } from '@recall/rpc-contract';
import { gitRootOf } from './git-root.js';
import { readJsonlRecords } from './jsonl-file.js';
import type { ReadLinesOptions } from './line-reader.js';
import { clipContent, isObject, TOOL_ERROR_MARKER, safeSessionId, str, titleFrom, toMs, toolCallsJson, type MessageRecord, type SourceRecord } from './records.js';
import { listFiles } from './walk.js';

export const CLAUDE_CODE_SOURCE = 'claude-code';

export interface ClaudeCodeFileState {
  /** Root session id of this file (known after its first message record). */
  sessionId?: string;
  /** Compaction boundaries seen so far: messages go to `<session>:c<segment>` when > 0. */
  segment: number;
  /** Sessions (and `model:<id>` markers) already emitted from this file. */
  emitted: string[];
  /** A summary record read before the first message. */
  pendingTitle?: string;
}

export function newClaudeCodeState(): ClaudeCodeFileState {
  return { segment: 0, emitted: [] };
}

/** Main transcripts first (by modification time), subagent transcripts after their parents. */
export function claudeCodeFiles(path: string): string[] {
  const files = listFiles(path, (name) => name.endsWith('.jsonl'));
  const isAgent = (f: string) => basename(f).startsWith('agent-') || /[\\/]subagents[\\/]/.test(f);
  const mtime = (f: string) => statSync(f).mtimeMs;
  return [...files.filter((f) => !isAgent(f)).sort((a, b) => mtime(a) - mtime(b) || a.localeCompare(b)), ...files.filter(isAgent).sort()];
}

function textOfBlocks(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block === 'string') parts.push(block);
    else if (isObject(block)) {
      if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
      else if (block.type === 'image') parts.push('[image]');
    }
  }
  return parts.join('\n');
}

interface Ctx {
  file: string;
  state: ClaudeCodeFileState;
}

function sessionOf(ctx: Ctx, rec: Record<string, unknown>): { root: string; target: string; lineage: 'root' | 'compression' | 'delegation'; parent: string | null } {
  const root = ctx.state.sessionId ?? safeSessionId(str(rec.sessionId) ?? basename(ctx.file, '.jsonl'));
  if (rec.isSidechain === true) {
    const agent = str(rec.agentId);
    const id = agent ? `${root}:agent-${agent.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80)}` : `${root}:sidechain`;
    return { root, target: id, lineage: 'delegation', parent: root };
  }
  if (ctx.state.segment === 0) return { root, target: root, lineage: 'root', parent: null };
  const parent = ctx.state.segment === 1 ? root : `${root}:c${ctx.state.segment - 1}`;
  return { root, target: `${root}:c${ctx.state.segment}`, lineage: 'compression', parent };
}

function* ensureSession(ctx: Ctx, rec: Record<string, unknown>, line: number, firstText: string | null): Generator<SourceRecord> {
  const where = sessionOf(ctx, rec);
  ctx.state.sessionId ??= where.root;
  const cwd = str(rec.cwd) ?? null;
  // A subagent's parent comes from its own file (sorted first); the store reports a missing one.
  if (ctx.state.emitted.includes(where.target)) return;
  ctx.state.emitted.push(where.target);
  yield {
    kind: 'session',
    file: ctx.file,
    line,
    id: where.target,
    parentId: where.parent,
    lineage: where.lineage,
    source: CLAUDE_CODE_SOURCE,
    ...(where.lineage === 'root' && ctx.state.pendingTitle ? { title: ctx.state.pendingTitle } : {}),
    defaultTitle: where.lineage === 'delegation' ? `subagent ${where.target.split(':').pop()}` : where.lineage === 'root' && firstText ? titleFrom(firstText) : null,
    cwd,
    gitRepoRoot: cwd ? gitRootOf(cwd) : null,
    gitBranch: str(rec.gitBranch) ?? null,
    ...(toMs(rec.timestamp) !== undefined ? { startedAt: toMs(rec.timestamp)! } : {}),
  };
}

function* mapRecord(ctx: Ctx, rec: Record<string, unknown>, line: number): Generator<SourceRecord> {
  const type = rec.type;
  if (type === 'summary') {
    const title = typeof rec.summary === 'string' ? titleFrom(rec.summary, 200) : null;
    if (title && ctx.state.sessionId !== undefined) yield { kind: 'session-update', file: ctx.file, line, id: ctx.state.sessionId, title };
    else if (title) ctx.state.pendingTitle = title; // a summary before any message titles the session when it is created
    return;
  }
  if (type === 'system' && rec.subtype === 'compact_boundary') {
    if (ctx.state.sessionId === undefined && typeof rec.sessionId === 'string') ctx.state.sessionId = safeSessionId(rec.sessionId);
    if (ctx.state.sessionId === undefined) return;
    ctx.state.segment++;
    yield* ensureSession(ctx, { ...rec, isSidechain: false }, line, null);
    return;
  }
  if (type !== 'user' && type !== 'assistant') return;
  const message = rec.message;
  const uuid = str(rec.uuid);
  if (!isObject(message) || uuid === undefined) {
    yield { kind: 'error', file: ctx.file, line, code: 'invalid_record', message: `A ${type} record needs "uuid" and a "message" object.` };
    return;
  }
  const createdAt = toMs(rec.timestamp);
  const base = { kind: 'message' as const, file: ctx.file, line, ...(createdAt !== undefined ? { createdAt } : {}) };
  const out: MessageRecord[] = [];
  const content = message.content;
  if (type === 'user') {
    const role: MessageRole = rec.isMeta === true || rec.isCompactSummary === true ? 'system' : 'user';
    const text = textOfBlocks(content);
    if (text !== '') out.push({ ...base, sessionId: '', externalId: uuid, role, content: clipContent(text) });
    if (Array.isArray(content)) {
      let n = 0;
      for (const block of content) {
        if (!isObject(block) || block.type !== 'tool_result') continue;
        n++;
        const result = textOfBlocks(block.content);
        out.push({
          ...base,
          sessionId: '',
          externalId: `${uuid}#${n}`,
          role: 'tool',
          content: clipContent(block.is_error === true ? `${TOOL_ERROR_MARKER}${result}` : result),
          toolCallId: str(block.tool_use_id) ?? null,
        });
      }
    }
  } else {
    const texts: string[] = [];
    const calls: unknown[] = [];
    const names: string[] = [];
    if (typeof content === 'string') texts.push(content);
    else if (Array.isArray(content)) {
      for (const block of content) {
        if (!isObject(block)) continue;
        if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
        else if (block.type === 'tool_use') {
          const name = str(block.name) ?? 'tool';
          const input = JSON.stringify(block.input ?? {});
          names.push(name);
          texts.push(`${name} ${input}`);
          calls.push({ id: str(block.id) ?? null, type: 'function', function: { name, arguments: input } });
        }
      }
    }
    if (texts.length > 0) {
      out.push({
        ...base,
        sessionId: '',
        externalId: uuid,
        role: 'assistant',
        content: clipContent(texts.join('\n')),
        toolName: names[0] ?? null,
        toolCalls: toolCallsJson(calls),
      });
    }
  }
  if (out.length === 0) return;
  const firstText = type === 'user' && rec.isMeta !== true ? out[0]!.content : null;
  yield* ensureSession(ctx, rec, line, firstText);
  const target = sessionOf(ctx, rec).target;
  if (type === 'assistant' && typeof message.model === 'string' && !ctx.state.emitted.includes(`model:${target}`)) {
    ctx.state.emitted.push(`model:${target}`);
    yield { kind: 'session-update', file: ctx.file, line, id: target, model: message.model };
  }
  for (const m of out) {
    m.sessionId = target;
    yield m;
  }
}

/**
 * Records of one transcript file from `fromOffset` (a line start). `state` is updated in place, so
 * a caller that persists it with the offset can resume.
 */
export function readClaudeCodeFile(
  file: string,
  state: ClaudeCodeFileState,
  lineOptions: ReadLinesOptions = {},
  onLine?: (endOffset: number, line: number) => void,
): AsyncGenerator<SourceRecord[]> {
  const ctx: Ctx = { file, state };
  return readJsonlRecords(file, (rec, line) => mapRecord(ctx, rec, line), lineOptions, onLine);
}
