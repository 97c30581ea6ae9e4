/**
 * How the CLI's text looks on a terminal: ANSI colour only when the stream is a TTY and the user has
 * not opted out (`NO_COLOR`, `--no-color`), or everywhere when `FORCE_COLOR` asks for it (a pager
 * such as `less -R`, and the tests; the environment is read by config.ts's colorChoice()). Piped
 * output stays plain text that greps and diffs cleanly. Also: the one rendering of match markers
 * (the tool marks matches «like this»: highlighted in colour, the «» kept without), wrapping by
 * terminal columns (CJK characters take two), and "did you mean" for near-miss names.
 */
import type { ColorChoice } from '../config.js';

export interface Style {
  /** True when this stream gets ANSI escapes. */
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  green(text: string): string;
  cyan(text: string): string;
  /** A matched term: bold yellow in colour, «term» without. */
  match(text: string): string;
}

const sgr = (open: number, close: number) => (text: string) => (text === '' ? text : `\u001b[${open}m${text}\u001b[${close}m`);
const plain = (text: string) => text;

/** The styles for one stream: escapes when `enabled`, the text unchanged otherwise. */
export function createStyle(enabled: boolean): Style {
  if (!enabled) return { enabled, bold: plain, dim: plain, red: plain, yellow: plain, green: plain, cyan: plain, match: (t) => `«${t}»` };
  return {
    enabled,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    red: sgr(31, 39),
    yellow: sgr(33, 39),
    green: sgr(32, 39),
    cyan: sgr(36, 39),
    match: (t) => sgr(1, 22)(sgr(33, 39)(t)),
  };
}

/** Whether a stream gets colour: `always`/`never` as chosen, else only a terminal. */
export function colorEnabled(choice: ColorChoice, isTTY: boolean): boolean {
  return choice === 'always' || (choice === 'auto' && isTTY);
}

/** Text with the tool's «match» markers rendered in `style` (highlighted, or the markers kept). */
export function renderMatches(text: string, style: Style): string {
  return text.replace(/«([^«»]*)»/g, (_m, inner: string) => style.match(inner));
}

/** Marks every case-insensitive occurrence of the query's words in `text` with «», as the tool marks snippets. */
export function markTerms(text: string, query: string | undefined): string {
  const words = (query ?? '')
    .split(/\s+/)
    .map((w) => w.replace(/^["'(]+|["')?!.,]+$/g, ''))
    .filter((w) => w.length > 0);
  if (words.length === 0) return text;
  const pattern = new RegExp(`(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`, 'giu');
  return text.replace(pattern, '«$1»');
}

// eslint-disable-next-line no-control-regex -- ANSI escape sequences are what is being stripped.
const ANSI = /\u001b\[[0-9;]*m/g;

/** Terminal columns of one character: CJK and other wide characters take two. */
function charWidth(ch: string): number {
  const cp = ch.codePointAt(0)!;
  return cp >= 0x1100 && /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u.test(ch) ? 2 : 1;
}

/** Terminal columns of a string (ANSI escapes take none). */
export function columnsOf(text: string): number {
  let width = 0;
  for (const ch of text.replace(ANSI, '')) width += charWidth(ch);
  return width;
}

/**
 * Wraps one paragraph to `width` terminal columns, every line starting with `indent` (the first with
 * `first` when given: a list number, a label); words longer than a line (and CJK text, which has no
 * spaces) are cut by columns. ANSI escapes are kept and take no width.
 */
export function wrapText(text: string, width: number, indent: string, first: string = indent): string[] {
  const lines: string[] = [];
  let room = Math.max(10, width - columnsOf(first));
  let line = '';
  let used = 0;
  const push = () => {
    lines.push((lines.length === 0 ? first : indent) + line.trimEnd());
    line = '';
    used = 0;
    room = Math.max(10, width - columnsOf(indent));
  };
  // Tokens: ANSI escapes, runs of spaces, and single characters (so CJK can break anywhere).
  const words = text.replace(/\s+/g, ' ').trim().split(/(?<= )/);
  for (const word of words) {
    const w = columnsOf(word.trimEnd());
    if (used > 0 && used + w > room) push();
    if (w <= room) {
      line += word;
      used += columnsOf(word);
      continue;
    }
    // A word wider than the line: cut it by columns.
    for (const token of word.split(/(\u001b\[[0-9;]*m)/u).flatMap((part) => (part.startsWith('\u001b[') ? [part] : [...part]))) {
      if (token.startsWith('\u001b[')) {
        line += token;
        continue;
      }
      const cw = charWidth(token);
      if (used + cw > room) push();
      line += token;
      used += cw;
    }
  }
  if (line.trim() !== '' || lines.length === 0) push();
  return lines;
}

/** Edit distance between two short names, case-insensitive; swapping two neighbours counts as one edit (`qurey` → `query`). */
function distance(a: string, b: string): number {
  const s = [...a.toLowerCase()];
  const t = [...b.toLowerCase()];
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) => Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[s.length]![t.length]!;
}

/**
 * The candidates close enough to `typed` to be what was meant (nearest first, at most 3): within
 * an edit distance of a third of the length (at least 1, at most 3) of the whole name or of one of
 * its words, or starting with what was typed.
 */
export function nearMisses(typed: string, candidates: readonly string[]): string[] {
  const limit = Math.min(3, Math.max(1, Math.floor(typed.length / 3)));
  const scored = [...new Set(candidates)]
    .map((c) => {
      // A slug's words count too: `gama` is close to `gamma-web`.
      const words = c.split(/[-_\s]+/).filter((w) => w.length > 0);
      const d = Math.min(distance(typed, c), ...words.map((w) => (w.length >= 3 ? distance(typed, w) : Infinity)));
      return { c, d, prefix: typed.length >= 2 && c.toLowerCase().startsWith(typed.toLowerCase()) };
    })
    .filter((x) => x.c !== typed && (x.d <= limit || x.prefix))
    .sort((a, b) => a.d - b.d || a.c.localeCompare(b.c));
  return scored.slice(0, 3).map((x) => x.c);
}

/** " Did you mean X?" / " Did you mean X or Y?" for the near misses, or "" when there are none. */
export function didYouMean(typed: string, candidates: readonly string[], format: (c: string) => string = (c) => c): string {
  const near = nearMisses(typed, candidates).map(format);
  if (near.length === 0) return '';
  return ` Did you mean ${near.length === 1 ? near[0] : `${near.slice(0, -1).join(', ')} or ${near[near.length - 1]}`}?`;
}
