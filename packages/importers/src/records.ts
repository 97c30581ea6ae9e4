/**
 * The normalised records every source format is translated into before anything is written: a
 * session (created once by id, its metadata kept current), a message (appended once per
 * session + external id) and a line error. Readers (claude-code.ts, codex.ts, hermes.ts) only parse
 * and map; apply.ts alone writes. Also the one conversion of a message into the store's NewMessage
 * (used by apply.ts and by the recall-jsonl importer alike) and the small helpers readers share:
 * clipping a source text to what a message may hold, timestamps, safe session ids.
 */
import { type LineageKind, MAX_MESSAGE_CHARS, type MessageRole } from '@recall/rpc-contract';
import type { NewMessage } from '@recall/store';

export const IMPORT_FORMATS = ['claude-code', 'codex', 'hermes', 'recall-jsonl'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
/** `sessions.source` of imported conversations (recall-jsonl keeps the file's own). */
export const IMPORTED_SOURCES = ['claude-code', 'codex', 'hermes'] as const;

export interface SessionRecord {
  kind: 'session';
  /** Where it came from, for error reports. */
  file: string;
  line: number;
  id: string;
  parentId: string | null;
  lineage: LineageKind;
  source: string;
  /** Set or updated on every import. */
  title?: string | null;
  /** Used only when the session is created (e.g. the first user message): never overwrites. */
  defaultTitle?: string | null;
  cwd?: string | null;
  gitRepoRoot?: string | null;
  gitBranch?: string | null;
  model?: string | null;
  startedAt?: number;
  endedAt?: number | null;
  endReason?: string | null;
  archived?: boolean;
  hidden?: boolean;
}

/** Metadata learnt after a session started (a model, a title, an end): only the given fields change. */
export interface SessionUpdateRecord {
  kind: 'session-update';
  file: string;
  line: number;
  id: string;
  title?: string | null;
  model?: string | null;
  endedAt?: number | null;
  endReason?: string | null;
}

export interface MessageRecord {
  kind: 'message';
  file: string;
  line: number;
  sessionId: string;
  externalId: string;
  role: MessageRole;
  content: string;
  createdAt?: number;
  toolName?: string | null;
  toolCalls?: string | null;
  toolCallId?: string | null;
  visibility?: 'live' | 'compacted' | 'rewound';
}

export interface ErrorRecord {
  kind: 'error';
  file: string;
  line: number;
  code: string;
  message: string;
}

export type SourceRecord = SessionRecord | SessionUpdateRecord | MessageRecord | ErrorRecord;

/**
 * The fields of a message as an importer has them, whatever its source: a normalised
 * MessageRecord, or a recall-jsonl line's fields renamed. Tool calls may still be a JSON value
 * (recall-jsonl accepts one); absent and null optional fields mean the same.
 */
export interface MessageFields {
  role: MessageRole;
  content: string;
  externalId: string;
  createdAt?: number | undefined;
  toolName?: string | null | undefined;
  toolCalls?: string | readonly unknown[] | Record<string, unknown> | null | undefined;
  toolCallId?: string | null | undefined;
  visibility?: 'live' | 'compacted' | 'rewound' | undefined;
}

/**
 * The one conversion of an imported message into the store's NewMessage: a missing timestamp
 * lets the store pick it, absent tool fields are null, tool calls given as a JSON value are stored
 * as their JSON text, and only a non-live visibility is passed (live is the store's default).
 */
export function toNewMessage(m: MessageFields): NewMessage {
  return {
    role: m.role,
    content: m.content,
    externalId: m.externalId,
    ...(m.createdAt !== undefined ? { createdAt: m.createdAt } : {}),
    toolName: m.toolName ?? null,
    toolCalls: m.toolCalls === undefined || m.toolCalls === null ? null : typeof m.toolCalls === 'string' ? m.toolCalls : JSON.stringify(m.toolCalls),
    toolCallId: m.toolCallId ?? null,
    ...(m.visibility !== undefined && m.visibility !== 'live' ? { visibility: m.visibility } : {}),
  };
}

/** Text longer than a message may hold is cut, saying how much was left out (a 6 MB tool output). */
/**
 * Put before a tool result the tool itself reported as failed (Claude Code's `is_error`, a Codex
 * command's non-zero exit code), so readers can show it as an error; the text stays searchable.
 */
export const TOOL_ERROR_MARKER = '[error] ';

export function clipContent(text: string, max = MAX_MESSAGE_CHARS): string {
  if (text.length <= max) return text;
  const note = `\n[… ${text.length - max + 200} characters not imported]`;
  return text.slice(0, max - 200) + note;
}

/** JSON of tool calls, or null when it would not fit (the calls' text is in the content anyway). */
export function toolCallsJson(calls: readonly unknown[]): string | null {
  if (calls.length === 0) return null;
  const json = JSON.stringify(calls);
  return json.length <= MAX_MESSAGE_CHARS ? json : null;
}

/** ISO string, epoch seconds or epoch milliseconds → ms, or undefined. */
export function toMs(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.round(value < 1e11 ? value * 1000 : value);
  if (typeof value === 'string') {
    const ms = Date.parse(value);
    return Number.isNaN(ms) || ms < 0 ? undefined : ms;
  }
  return undefined;
}

const SESSION_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** The source's own session id when it is a valid Recall id (so a host can pass it as --session), else a safe derivative. */
export function safeSessionId(raw: string): string {
  if (SESSION_ID_RE.test(raw)) return raw;
  const cleaned = raw.replace(/[^A-Za-z0-9._:-]/g, '_').replace(/^[^A-Za-z0-9]+/, '');
  return (cleaned === '' ? 'x' : cleaned).slice(0, 128);
}

/** One line of at most `max` characters, control characters folded to spaces (titles refuse them). */
export function titleFrom(text: string, max = 80): string | null {
  // eslint-disable-next-line no-control-regex -- folding control characters is the point
  const line = text.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
  if (line === '') return null;
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
