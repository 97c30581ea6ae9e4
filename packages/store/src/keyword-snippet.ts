/**
 * Snippets of keyword hits: a window of the original text around the densest cluster of matched
 * terms, matches marked with HIGHLIGHT_OPEN/HIGHLIGHT_CLOSE (keyword-search.ts).
 */
import { findTermSpans, type QueryTerm, type TermSpan } from './fts-query.js';
import { HIGHLIGHT_CLOSE, HIGHLIGHT_OPEN } from './keyword-types.js';
import { MAX_INDEXED_CHARS, normalizeForSearch } from './search-text.js';

interface Normalized {
  text: string;
  /** map[i] = index in the original string of normalised code unit i; map[text.length] = end. */
  map: number[] | null;
}

/** NFKC + lower case with a position map back to the original (null map = positions are equal). */
function normalizeWithMap(original: string): Normalized {
  const whole = normalizeForSearch(original);
  // Most text normalises to the same length (ASCII, CJK): positions then correspond 1:1.
  if (whole.length === original.length) return { text: whole, map: null };
  const parts: string[] = [];
  const map: number[] = [];
  let i = 0;
  for (const ch of original) {
    const n = normalizeForSearch(ch);
    parts.push(n);
    for (let k = 0; k < n.length; k++) map.push(i);
    i += ch.length;
  }
  map.push(original.length);
  return { text: parts.join(''), map };
}

function toOriginal(n: Normalized, pos: number): number {
  return n.map ? (n.map[Math.min(pos, n.map.length - 1)] ?? 0) : pos;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** Avoid cutting a surrogate pair in half. */
function safeCut(text: string, pos: number): number {
  if (pos <= 0 || pos >= text.length) return Math.max(0, Math.min(pos, text.length));
  const c = text.charCodeAt(pos);
  return c >= 0xdc00 && c <= 0xdfff ? pos - 1 : pos;
}

/**
 * Cuts a window of about `size` characters around the densest cluster of matched terms and marks
 * the matches. Exported for the tool's windows and for tests.
 */
export function snippet(content: string, terms: readonly QueryTerm[], size: number): { snippet: string; matched: string[] } {
  const source = content.length > MAX_INDEXED_CHARS ? content.slice(0, MAX_INDEXED_CHARS) : content;
  const norm = normalizeWithMap(source);
  const spans: TermSpan[] = findTermSpans(norm.text, terms);
  const matched = [...new Set(spans.filter((s) => !s.partial).map((s) => s.term))].sort((a, b) => a - b).map((i) => terms[i]!.text);
  if (spans.length === 0) {
    const end = safeCut(content, Math.min(content.length, size));
    return { snippet: collapse(content.slice(0, end)).trim() + (end < content.length ? '…' : ''), matched };
  }
  // Window start candidates: a quarter window before each span; pick the one whose window holds the
  // most distinct terms (ties: earliest). Spans are sorted by start, so the window slides with two
  // pointers and per-term counts (linear, whatever the number of matches).
  let best = { from: 0, distinct: -1 };
  const counts = new Map<number, number>();
  let left = 0;
  let right = 0;
  for (const s of spans) {
    const from = Math.max(0, s.start - Math.floor(size / 4));
    const to = from + size;
    while (right < spans.length && spans[right]!.start < to) {
      const t = spans[right++]!.term;
      counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    while (left < right && spans[left]!.start < from) {
      const t = spans[left++]!.term;
      const c = counts.get(t)! - 1;
      if (c === 0) counts.delete(t);
      else counts.set(t, c);
    }
    if (counts.size > best.distinct) best = { from, distinct: counts.size };
  }
  const fromN = best.from;
  const toN = Math.min(norm.text.length, fromN + size);
  const from = safeCut(source, toOriginal(norm, fromN));
  const to = safeCut(source, toOriginal(norm, toN));
  // Marked spans inside the window, in original coordinates, overlaps merged.
  const marks: { start: number; end: number }[] = [];
  for (const s of spans) {
    if (s.start < fromN || s.end > toN) continue;
    const start = toOriginal(norm, s.start);
    const end = toOriginal(norm, s.end);
    const last = marks[marks.length - 1];
    if (last && start <= last.end) last.end = Math.max(last.end, end);
    else marks.push({ start, end });
  }
  let out = from > 0 ? '…' : '';
  let pos = from;
  for (const m of marks) {
    out += collapse(source.slice(pos, m.start)) + HIGHLIGHT_OPEN + collapse(source.slice(m.start, m.end)) + HIGHLIGHT_CLOSE;
    pos = m.end;
  }
  out += collapse(source.slice(pos, to));
  if (to < content.length) out += '…';
  return { snippet: out.trim(), matched };
}

export function literalSnippet(content: string, needle: string, size: number): { snippet: string; matched: string[] } {
  // LIKE is case-insensitive for ASCII only; mirror that.
  const hay = content.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const at = hay.indexOf(needle.replace(/[A-Z]/g, (c) => c.toLowerCase()));
  if (at < 0) return { snippet: collapse(content.slice(0, safeCut(content, size))).trim(), matched: [] };
  const from = safeCut(content, Math.max(0, at - Math.floor(size / 4)));
  const to = safeCut(content, Math.min(content.length, from + Math.max(size, needle.length)));
  const end = at + needle.length;
  const out =
    (from > 0 ? '…' : '') +
    collapse(content.slice(from, at)) +
    HIGHLIGHT_OPEN +
    content.slice(at, end) +
    HIGHLIGHT_CLOSE +
    collapse(content.slice(end, Math.max(to, end))) +
    (Math.max(to, end) < content.length ? '…' : '');
  return { snippet: out.trim(), matched: [needle] };
}
