/**
 * Inline Markdown of snippets and message previews: `code`, **strong** / __strong__ and *emphasis*
 * / _emphasis_ are recognised and their delimiters dropped, keeping the match highlighting of the
 * snippet's segments (splitSnippet) character by character. The result is plain-text parts with
 * flags, rendered by React as text inside <code>/<strong>/<em>/<mark>: nothing is ever interpreted
 * as HTML. Deliberately small: no links, no nesting inside code, an unmatched delimiter (e.g. a
 * snippet clipped between two backticks) stays as the character it is, and `_` inside a word
 * (snake_case identifiers) is never emphasis.
 */
import type { Segment } from './snippet';

/** One run of text with the same highlighting and inline style. */
export interface InlinePart {
  text: string;
  match: boolean;
  code: boolean;
  strong: boolean;
  em: boolean;
}

interface Style {
  code: boolean;
  strong: boolean;
  em: boolean;
}

const WORD = /[\p{L}\p{N}]/u;
const isSpace = (c: string | undefined) => c === undefined || /\s/u.test(c);
const isWord = (c: string | undefined) => c !== undefined && WORD.test(c);

/** Length of the run of `ch` starting at `i`. */
function runLength(s: string, i: number, ch: string): number {
  let n = 0;
  while (s[i + n] === ch) n++;
  return n;
}

/** Closing position of a code span opened by `n` backticks at `i`, or -1. */
function codeClose(s: string, i: number, n: number): number {
  let j = i + n;
  while (j < s.length) {
    const k = s.indexOf('`', j);
    if (k < 0) return -1;
    const m = runLength(s, k, '`');
    if (m === n) return k;
    j = k + m;
  }
  return -1;
}

/**
 * Closing position of emphasis/strong `delim` (`*`, `**`, `_`, `__`) opened at `i` inside s[.., end),
 * or -1: the opener is followed by a non-space, the closer preceded by one and not followed by the
 * same character (the last delimiter of a run closes); `_` needs word boundaries outside.
 */
function emphasisClose(s: string, i: number, delim: string, end: number): number {
  const open = i + delim.length;
  if (open >= end || isSpace(s[open])) return -1;
  const ch = delim[0]!;
  const underscore = ch === '_';
  if (underscore && isWord(s[i - 1])) return -1;
  for (let k = s.indexOf(delim, open + 1); k >= 0 && k + delim.length <= end; k = s.indexOf(delim, k + 1)) {
    if (isSpace(s[k - 1])) continue;
    const next = k + delim.length < end ? s[k + delim.length] : undefined;
    if (next === ch) continue;
    if (underscore && isWord(s[k + delim.length])) continue;
    return k;
  }
  return -1;
}

type Range = { start: number; end: number; style: Style };

/** Ranges of visible characters of s[from, to) with their style (delimiters left out). */
function parse(s: string, from: number, to: number, style: Style, out: Range[]): void {
  let text = from;
  const flush = (until: number) => {
    if (until > text) out.push({ start: text, end: until, style });
  };
  let i = from;
  while (i < to) {
    const c = s[i]!;
    if (c === '`' && !style.code) {
      const n = runLength(s, i, '`');
      const close = codeClose(s, i, n);
      if (close >= 0 && close + n <= to && close > i + n) {
        flush(i);
        let a = i + n;
        let b = close;
        // CommonMark: one space on both sides is padding (lets a span start or end with a backtick).
        if (b - a >= 2 && s[a] === ' ' && s[b - 1] === ' ' && s.slice(a, b).trim() !== '') {
          a++;
          b--;
        }
        out.push({ start: a, end: b, style: { code: true, strong: false, em: false } });
        i = close + n;
        text = i;
        continue;
      }
      i += n;
      continue;
    }
    if (c === '*' || c === '_') {
      const n = runLength(s, i, c);
      // A run of two or more opens strong (emphasis inside it is parsed in the recursion); one opens emphasis.
      const delim = n >= 2 ? c + c : c;
      const close = (delim.length === 2 ? style.strong : style.em) ? -1 : emphasisClose(s, i, delim, to);
      if (close < 0) {
        i += n;
        continue;
      }
      flush(i);
      parse(s, i + delim.length, close, delim.length === 2 ? { ...style, strong: true } : { ...style, em: true }, out);
      i = close + delim.length;
      text = i;
      continue;
    }
    i++;
  }
  flush(to);
}

/**
 * Inline parts of a snippet's segments (or of one plain text): delimiters dropped, every other
 * character keeps its segment's `match` flag, adjacent characters of equal flags merged.
 */
export function inlineParts(segments: readonly Segment[] | string): InlinePart[] {
  const segs = typeof segments === 'string' ? [{ text: segments, match: false }] : segments;
  const text = segs.map((s) => s.text).join('');
  const match = new Array<boolean>(text.length);
  let p = 0;
  for (const s of segs) for (let k = 0; k < s.text.length; k++) match[p++] = s.match;
  const ranges: Range[] = [];
  parse(text, 0, text.length, { code: false, strong: false, em: false }, ranges);
  const out: InlinePart[] = [];
  for (const r of ranges) {
    for (let k = r.start; k < r.end; k++) {
      const m = match[k] ?? false;
      const prev = out[out.length - 1];
      // Characters are appended one by one so a part never spans two ranges or two match states.
      if (prev && k > r.start && prev.match === m) prev.text += text[k];
      else out.push({ text: text[k]!, match: m, ...r.style });
    }
  }
  // Merge neighbours with identical flags (two ranges of the same style next to each other).
  const merged: InlinePart[] = [];
  for (const part of out) {
    const prev = merged[merged.length - 1];
    if (prev && prev.match === part.match && prev.code === part.code && prev.strong === part.strong && prev.em === part.em) prev.text += part.text;
    else merged.push({ ...part });
  }
  return merged;
}
