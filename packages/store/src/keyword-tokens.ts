/**
 * The keyword index's own tokenisation, in TypeScript, for the SQLite scoped ranking
 * (keyword-scope-stats.ts) and the counts a connection keeps (keyword-kept.ts): a MATCH
 * expression's distinct phrases, and how often each occurs in a message's indexed columns
 * (indexColumns, then FTS5's `porter unicode61 remove_diacritics 2` rules).
 */
import type { Bm25Leaf } from './keyword-bm25.js';
import { CJK_CLASS, hasCjk, indexColumns, indexedText, porterStem, splitRuns, TOKEN_CLASS } from './search-text.js';

/** One distinct phrase of a MATCH expression: its column, its tokens, and how often the expression holds it. */
export interface MatchLeaf extends Bm25Leaf {
  /** The phrase as FTS5 syntax (`body : "…"`), counted on its own for its document frequency. */
  readonly phrase: string;
  readonly tokens: readonly string[];
  readonly count: number;
  /**
   * For a CJK phrase, the characters whose occurrences in the indexed text are exactly the phrase's
   * occurrences in its column (a bigram chain `番茄 茄炒` = `番茄炒`; a `cjk` character = itself):
   * counted without tokenising the message. Null: tokenise.
   */
  readonly needle: string | null;
}

/** The needle of a CJK phrase (see MatchLeaf.needle), or null. */
function needleOf(weight: 'A' | 'B', toks: readonly string[]): string | null {
  if (toks.length === 0 || !toks.every((x) => hasCjk(x) && [...x].every((c) => hasCjk(c)))) return null;
  const chars = toks.map((x) => [...x]);
  if (weight === 'B') return toks.length === 1 && chars[0]!.length === 1 ? toks[0]! : null;
  // body: every token a bigram overlapping the next by one character (one CJK run's bigrams).
  if (!chars.every((c) => c.length === 2)) return null;
  for (let i = 1; i < chars.length; i++) if (chars[i]![0] !== chars[i - 1]![1]) return null;
  return chars[0]![0]! + chars.map((c) => c[1]!).join('');
}

/** Occurrences of `needle` in `text`, overlapping ones included. */
function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) count++;
  return count;
}

const PHRASE_RE = /(body|cjk) : "((?:[^"]|"")*)"/g;
/** FTS5 unicode61's tokens (letters, numbers, private use; marks kept with their letter). */
const TOKEN_RE = new RegExp(`[${TOKEN_CLASS}]+`, 'gu');
const LATIN_MARKS_RE = /(\p{Script=Latin})\p{M}+/gu;
const ASCII_RE = /^[\x00-\x7f]*$/;
const LEXEME_CACHE = new Map<string, string>();

/** A token as FTS5's `porter unicode61 remove_diacritics 2` stores it: CJK unchanged; else lower case, Latin diacritics removed, Porter stem. */
function lexeme(token: string): string {
  let out = LEXEME_CACHE.get(token);
  if (out !== undefined) return out;
  if (hasCjk(token)) out = token;
  else if (ASCII_RE.test(token)) out = porterStem(token.toLowerCase());
  else out = porterStem(token.toLowerCase().normalize('NFD').replace(LATIN_MARKS_RE, '$1').normalize('NFC'));
  if (LEXEME_CACHE.size >= 100_000) LEXEME_CACHE.clear();
  LEXEME_CACHE.set(token, out);
  return out;
}

export function tokens(text: string): string[] {
  return (text.match(TOKEN_RE) ?? []).map(lexeme);
}

/**
 * tokens(text), except that an ASCII token whose lexeme cannot be one of the phrases' is left as
 * '' (never a phrase token) without stemming it: lower-casing and the Porter stem keep an ASCII
 * word's first character, so a token whose first character (lower case) starts no phrase token is
 * not one. Positions are kept, so phrase frequencies are those of tokens(text).
 */
function phraseTokens(text: string, firsts: ReadonlySet<string>): string[] {
  const out = text.match(TOKEN_RE) ?? [];
  for (let i = 0; i < out.length; i++) {
    const t = out[i]!;
    const c = t.charCodeAt(0);
    if (c < 0x80 && ASCII_RE.test(t) && !firsts.has(String.fromCharCode(c >= 65 && c <= 90 ? c + 32 : c))) out[i] = '';
    else out[i] = lexeme(t);
  }
  return out;
}

/** The distinct phrases FTS5 scores in `match` (the scope token's phrase, weight 0, is left out). */
export function matchLeaves(match: string): MatchLeaf[] {
  const byPhrase = new Map<string, { phrase: string; weight: 'A' | 'B'; tokens: string[]; count: number }>();
  for (const m of match.matchAll(PHRASE_RE)) {
    const known = byPhrase.get(m[0]);
    if (known) known.count++;
    else byPhrase.set(m[0], { phrase: m[0], weight: m[1] === 'body' ? 'A' : 'B', tokens: tokens(m[2]!.replace(/""/g, '"')), count: 1 });
  }
  return [...byPhrase.values()].map((l) => ({ ...l, needle: needleOf(l.weight, l.tokens) }));
}

/** How often `phrase` occurs as consecutive tokens of `column`. */
export function phraseFrequency(column: readonly string[], phrase: readonly string[]): number {
  const n = phrase.length;
  if (n === 0) return 0;
  let count = 0;
  for (let i = 0; i + n <= column.length; i++) {
    if (column[i] !== phrase[0]) continue;
    let k = 1;
    while (k < n && column[i + k] === phrase[k]) k++;
    if (k === n) count++;
  }
  return count;
}

const TOKEN_CHAR_RE = new RegExp(`^[${TOKEN_CLASS}]$`, 'u');
const tokenCharCache = new Map<string, boolean>();

/** Whether one character (a code point) is a token character of unicode61 (TOKEN_RE). */
function tokenChar(c: string): boolean {
  let v = tokenCharCache.get(c);
  if (v === undefined) {
    if (tokenCharCache.size >= 100_000) tokenCharCache.clear();
    tokenCharCache.set(c, (v = TOKEN_CHAR_RE.test(c)));
  }
  return v;
}

/** Appends the tokens of one piece of a CJK run (a bigram or a character): itself when every character is a token character (a CJK token's lexeme is itself), else tokens(piece). */
function pushPiece(out: string[], piece: string, a: string, b?: string): void {
  if (tokenChar(a) && (b === undefined || tokenChar(b))) out.push(piece);
  else for (const t of tokens(piece)) out.push(t);
}

/**
 * A message's indexed columns as the index's tokens (every token, in order): exactly
 * tokens(indexColumns(content).body) and tokens(… .cjk).
 */
export function columnTokens(content: string): { body: string[]; cjk: string[] } {
  return columnTokensOfText(indexedText(content));
}

/**
 * columnTokens of a message's indexed text (indexedText), built without joining the CJK runs'
 * bigrams and characters into column strings and splitting them again (about half the time on
 * Chinese text).
 */
export function columnTokensOfText(text: string): { body: string[]; cjk: string[] } {
  if (!hasCjk(text)) return { body: tokens(text), cjk: [] };
  const body: string[] = [];
  const cjk: string[] = [];
  for (const run of splitRuns(text)) {
    if (!run.cjk) {
      for (const t of tokens(run.text)) body.push(t);
      continue;
    }
    const chars = Array.from(run.text);
    if (chars.length < 2) pushPiece(body, run.text, chars[0]!);
    else for (let i = 0; i < chars.length - 1; i++) pushPiece(body, chars[i]! + chars[i + 1]!, chars[i]!, chars[i + 1]!);
    for (const c of chars) pushPiece(cjk, c, c);
  }
  return { body, cjk };
}

/**
 * Two CJK runs with nothing but non-token characters between them (`番茄，茄炒`): their bigrams are
 * adjacent tokens, so a bigram chain can match across the gap where its needle is no substring.
 */
const RUN_GAP_RE = new RegExp(`[${CJK_CLASS}][^${TOKEN_CLASS}${CJK_CLASS}]+[${CJK_CLASS}]`, 'u');

/** Whether two CJK runs of an indexed text meet across non-token characters only (see RUN_GAP_RE): bigram chains are then counted on tokens. */
export function hasRunGap(text: string): boolean {
  return RUN_GAP_RE.test(text);
}

/**
 * How often `leaf` occurs in the column of a message whose indexed text is `text`, counted as
 * occurrences of its needle (MatchLeaf.needle), or null where that count is not exactly the
 * index's: no needle, or a bigram chain in a text where two CJK runs meet across a gap of
 * non-token characters (`gap()`: hasRunGap of the text, asked only for a chain; then the caller
 * counts tokens).
 */
export function needleFrequency(text: string, leaf: MatchLeaf, gap: () => boolean): number | null {
  if (leaf.needle === null) return null;
  if (leaf.tokens.length > 1 && gap()) return null;
  return occurrences(text, leaf.needle);
}

/** How often each leaf occurs in a message's indexed columns, by the index's own tokenisation. */
export function frequencies(leaves: readonly MatchLeaf[]): (content: string) => number[] {
  const tokenise = leaves.some((l) => l.needle === null);
  const firsts = new Set(leaves.flatMap((l) => l.tokens.map((t) => t[0]!)));
  return (content) => {
    if (!tokenise) {
      const text = indexedText(content);
      let gap: boolean | undefined;
      const byNeedle = leaves.map((l) => needleFrequency(text, l, () => (gap ??= hasRunGap(text))));
      if (byNeedle.every((n) => n !== null)) return byNeedle as number[];
    }
    const cols = indexColumns(content);
    const body = phraseTokens(cols.body, firsts);
    const cjk = cols.cjk === '' ? [] : phraseTokens(cols.cjk, firsts);
    return leaves.map((l) => phraseFrequency(l.weight === 'A' ? body : cjk, l.tokens));
  };
}
