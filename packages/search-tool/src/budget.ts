/**
 * The per-call size budget of a session_search result, in estimated tokens. A model pays for every
 * character a tool returns, so one call never returns more than RESULT_TOKEN_BUDGET (by the estimate
 * below), whatever limit/window ask for. Trimming keeps results before context: window texts are
 * shortened, then window messages furthest from their anchor are dropped, and only then the
 * lowest-ranked results; read/scroll texts are shortened (their next_offset says where to go on).
 * Whatever was trimmed is said in `notes`.
 *
 * Token estimate (documented in docs/agents.md): ASCII characters / 4 + every other character
 * (CJK, accented, emoji) counts 1. That matches BPE tokenizers on English prose (~4 chars/token)
 * and is conservative for Chinese (about 0.7–1.0 tokens per character), so a budget in estimated
 * tokens is never far below the real count.
 */
import { WINDOW_TEXT_CHARS, type SearchResultItem, type Shape } from './result.js';

/** Default budget per call, in estimated tokens (about 24 000 ASCII characters). */
export const RESULT_TOKEN_BUDGET = 6_000;
/** Window texts are shortened to these lengths, in turn, before anything is dropped. */
const WINDOW_STEPS = [WINDOW_TEXT_CHARS / 2, WINDOW_TEXT_CHARS / 4] as const;
/** read/scroll message texts are shortened to these lengths, in turn. */
const READ_STEPS = [1_000, 500, 250] as const;

/** Estimated tokens of a text: ASCII characters / 4 (rounded up) + 1 per other character (a surrogate pair counts once). */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) ascii++;
    else if (c < 0xdc00 || c > 0xdfff) other++; // a surrogate pair counts once
  }
  return Math.ceil(ascii / 4) + other;
}

export function resultTokens(results: readonly SearchResultItem[]): number {
  return estimateTokens(JSON.stringify(results));
}

function clipWindow(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export interface BudgetOutcome {
  results: SearchResultItem[];
  /** Anything was trimmed. */
  trimmed: boolean;
  /** Whole results were dropped (not only shortened). */
  dropped: number;
  notes: string[];
}

export function applyBudget(shape: Shape, input: readonly SearchResultItem[], budget: number): BudgetOutcome {
  let results = input.map((r) => ({ ...r, window: r.window.map((w) => ({ ...w })) }));
  if (resultTokens(results) <= budget) return { results, trimmed: false, dropped: 0, notes: [] };
  const notes: string[] = [];
  let trimmed = false;
  const fits = () => resultTokens(results) <= budget;

  if (shape === 'read' || shape === 'scroll') {
    for (const cap of READ_STEPS) {
      for (const r of results) {
        if (r.snippet.length <= cap) continue;
        const start = r.text_offset ?? 0;
        const total = r.total_chars ?? start + r.snippet.length;
        r.snippet = r.snippet.slice(0, cap);
        r.next_offset = start + cap;
        r.total_chars = total;
        trimmed = true;
      }
      if (fits()) break;
    }
    if (trimmed) notes.push('Long messages were shortened to fit the result budget; next_offset on a result says where to continue (around_message_id + offset).');
  } else {
    for (const cap of WINDOW_STEPS) {
      for (const r of results) for (const w of r.window) if (w.text !== undefined && w.text.length > cap) (w.text = clipWindow(w.text, cap)), (trimmed = true);
      if (fits()) break;
    }
    // Drop window messages furthest from their anchor, lowest-ranked results first.
    while (!fits() && results.some((r) => r.window.length > 0)) {
      for (let i = results.length - 1; i >= 0 && !fits(); i--) {
        const r = results[i]!;
        if (r.window.length === 0) continue;
        const anchorAt = Math.max(0, r.window.findIndex((w) => w.is_anchor));
        const dropFirst = anchorAt >= r.window.length - 1 - anchorAt;
        if (r.window.length === 1) r.window = [];
        else r.window = dropFirst ? r.window.slice(1) : r.window.slice(0, -1);
        trimmed = true;
      }
    }
    if (trimmed) notes.push('Context windows were shortened to fit the result budget; scroll with around_message_id for the full text around a result.');
  }
  let dropped = 0;
  while (!fits() && results.length > 1) {
    results = results.slice(0, -1);
    dropped++;
  }
  if (dropped > 0) {
    trimmed = true;
    notes.push(`${dropped} lower-ranked result(s) were left out to fit the result budget (~${budget} tokens); narrow the query or lower limit/window to see them.`);
  }
  return { results, trimmed, dropped, notes };
}
