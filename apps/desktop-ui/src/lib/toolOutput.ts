/**
 * Tool calls and outputs of imported histories (Claude Code, Codex, Hermes) as people read them.
 * The importers keep a call's name and JSON input in the assistant text too (so a keyword search
 * for the command finds it, docs/importers.md) and store a tool's output as its plain text —
 * Claude Code marks a reported error with a leading `[error] `, Codex with a non-zero exit code,
 * Hermes tools often answer a JSON object (`output`, `exit_code`, `error`). Only Recall's own
 * `session_search` results are the search result JSON the search card reads. No React, no I/O.
 */
import type { ToolCallInfo } from './chat';

/** The marker packages/importers puts before a tool result the tool itself reported as an error. */
export const ERROR_MARKER = '[error] ';

/** The exact text line an importer wrote for a call: `<name> <raw arguments>`. */
function callLine(c: ToolCallInfo): string | null {
  if (c.rawArguments === null) return null;
  return `${c.name} ${c.rawArguments}`;
}

/**
 * The assistant text without the lines that only repeat its tool calls (they are shown below the
 * text, formatted). Other text is kept as written.
 */
export function textWithoutCallLines(text: string, calls: readonly ToolCallInfo[]): string {
  if (calls.length === 0 || text === '') return text;
  const lines = new Set(calls.map(callLine).filter((l): l is string => l !== null));
  if (lines.size === 0) return text;
  const kept = text.split('\n').filter((line) => !lines.has(line));
  return kept.join('\n').trim();
}

/** Is this stored tool message a Recall `session_search` result (rendered as the search card)? */
export function isSearchResult(name: string, content: string): boolean {
  if (name !== 'session_search') return false;
  try {
    const v = JSON.parse(content) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
    const r = v as Record<string, unknown>;
    return Array.isArray(r.results) || typeof r.used_mode === 'string' || (!!r.error && typeof r.error === 'object');
  } catch {
    return false;
  }
}

export interface ToolOutputView {
  /** The output text to show (monospace). */
  text: string;
  /** The tool itself reported a failure (error marker, non-zero exit code, an error field). */
  failed: boolean;
  /** Exit code when the tool reported one. */
  exitCode: number | null;
}

function exitCodeOf(r: Record<string, unknown>): number | null {
  for (const k of ['exit_code', 'exitCode', 'returncode']) if (typeof r[k] === 'number') return r[k];
  const meta = r.metadata;
  if (meta && typeof meta === 'object' && typeof (meta as Record<string, unknown>).exit_code === 'number') return (meta as { exit_code: number }).exit_code;
  return null;
}

/** What a plain (non-search) tool output shows: its text (without the final newline), and whether the tool reported an error. */
export function toolOutputView(content: string): ToolOutputView {
  const v = rawOutputView(content);
  return { ...v, text: v.text.replace(/\r?\n$/, '') };
}

function rawOutputView(content: string): ToolOutputView {
  if (content.startsWith(ERROR_MARKER)) return { text: content.slice(ERROR_MARKER.length), failed: true, exitCode: null };
  const trimmed = content.trimStart();
  if (trimmed.startsWith('{')) {
    try {
      const v = JSON.parse(content) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        const r = v as Record<string, unknown>;
        const exitCode = exitCodeOf(r);
        const errorText = typeof r.error === 'string' && r.error !== '' ? r.error : null;
        const failed = r.is_error === true || r.success === false || errorText !== null || (exitCode !== null && exitCode !== 0);
        const body = typeof r.output === 'string' ? r.output : typeof r.content === 'string' ? r.content : typeof r.stdout === 'string' ? r.stdout : null;
        const text = body !== null ? [body, errorText && errorText !== body ? errorText : null].filter(Boolean).join('\n') : JSON.stringify(v, null, 2);
        return { text, failed, exitCode };
      }
    } catch {
      /* plain text that starts with a brace */
    }
  }
  return { text: content, failed: false, exitCode: null };
}

/** Outputs longer than this many lines (or characters) start folded to their first lines. */
export const FOLD_LINES = 12;
export const FOLD_CHARS = 1500;

/** The folded preview of a long output (null when it is short enough to show whole). */
export function foldedPreview(text: string): { preview: string; lines: number } | null {
  const lines = text.split('\n');
  if (lines.length <= FOLD_LINES && text.length <= FOLD_CHARS) return null;
  let preview = lines.slice(0, FOLD_LINES).join('\n');
  if (preview.length > FOLD_CHARS) preview = preview.slice(0, FOLD_CHARS);
  return { preview, lines: lines.length };
}

/** One line for a plain tool call: its command when it has one, else its formatted arguments. */
export function commandOf(args: unknown): string | null {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return null;
  const a = args as Record<string, unknown>;
  const cmd = a.command ?? a.cmd;
  if (typeof cmd === 'string') return cmd;
  if (Array.isArray(cmd) && cmd.every((x) => typeof x === 'string')) {
    // Codex runs ["bash", "-lc", "<script>"]: show the script.
    if (cmd.length === 3 && /(^|\/)(ba)?sh$/.test(cmd[0]!) && cmd[1] === '-lc') return cmd[2]!;
    return cmd.join(' ');
  }
  return null;
}
