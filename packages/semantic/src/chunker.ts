/**
 * The chunker: cuts one message's content into the pieces that are embedded. Units: every range is
 * in UTF-16 code units of `messages.content` (JavaScript string indexes), [start, end); a range never
 * splits a surrogate pair. Size comes from the provider's input limit in tokens: no tokenizer of a
 * remote model is known here, so tokens are ESTIMATED conservatively — every CJK character (Han,
 * kana, Hangul) counts as one token, every other code unit as 1/charsPerToken token (default 3) —
 * and a chunk is cut at ≤ maxInputTokens − 8 estimated tokens (room for BOS/EOS/CLS tokens).
 * Consecutive chunks overlap by a bounded amount (min(48 tokens, 1/8 of a chunk)) so a sentence cut
 * at a boundary is still whole in one of them. Cuts prefer a paragraph break, then a sentence end,
 * then whitespace, within the last third of the window. Payloads are never embedded: a run of ≥ 200
 * base64/hex-like characters without whitespace (data URIs, inline images, keys) is skipped, and a
 * message that looks binary (control characters or U+FFFD in > 10 % of it) yields no chunks.
 * `<private>…</private>` spans are blanked (same length) before cutting, so their text is never in a
 * chunk; content without such a span is cut exactly as before (CHUNKER_VERSION unchanged).
 * Output is deterministic for (content, options) — the chunk identity in the database is
 * (fingerprint, message, content hash, chunk index) — and CHUNKER_VERSION is part of the
 * fingerprint: change it whenever the output of this module changes.
 */
import { createHash } from 'node:crypto';
import { blankPrivate, hasPrivate } from '@recall/redaction';

export const CHUNKER_VERSION = 1;
/** A message is cut into at most this many chunks (≈ 0.5 M estimated tokens at 1024-token chunks). */
export const MAX_CHUNKS_PER_MESSAGE = 512;
/** Runs of this many base64/hex-like characters without whitespace are treated as payloads. */
export const PAYLOAD_MIN_RUN = 200;
const RESERVED_TOKENS = 8;
const MAX_OVERLAP_TOKENS = 48;

/** The provider's input limits the chunker cuts to. */
export interface ChunkerOptions {
  /** The provider's input limit in tokens. */
  maxInputTokens: number;
  /** Assumed non-CJK characters per token (≥ 1). */
  charsPerToken: number;
}

/** One chunk of a message: its index, UTF-16 range [start, end) and text. */
export interface Chunk {
  index: number;
  /** UTF-16 code units, [start, end). */
  start: number;
  end: number;
  text: string;
}

/** sha256 hex of a message's content: the content identity stored with every chunk. */
export function contentHash(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

function isCjk(code: number): boolean {
  return (
    (code >= 0x3040 && code <= 0x30ff) || // hiragana, katakana
    (code >= 0x3400 && code <= 0x4dbf) || // CJK ext A
    (code >= 0x4e00 && code <= 0x9fff) || // CJK unified
    (code >= 0xac00 && code <= 0xd7af) || // Hangul syllables
    (code >= 0xf900 && code <= 0xfaff) || // compatibility ideographs
    (code >= 0xff00 && code <= 0xffef) || // full-width forms
    (code >= 0x3000 && code <= 0x303f) || // CJK punctuation
    (code >= 0xd800 && code <= 0xdbff) // high surrogate: astral CJK (ext B+) and emoji count as one token
  );
}

/** Estimated tokens of content[start, end) (see the header for the rule). */
export function estimateTokens(content: string, charsPerToken: number, start = 0, end = content.length): number {
  let cjk = 0;
  let other = 0;
  for (let i = start; i < end; i++) {
    const c = content.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) continue; // low surrogate: counted with its high half
    if (isCjk(c)) cjk++;
    else other++;
  }
  return cjk + other / charsPerToken;
}

const BINARY_RE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffd]/g;

/** True when the content looks like binary data decoded as text. */
export function looksBinary(content: string): boolean {
  if (content.length === 0) return false;
  const matches = content.match(BINARY_RE);
  return matches !== null && matches.length > content.length * 0.1;
}

const PAYLOAD_RE = new RegExp(`(?:data:[\\w.+/-]+;base64,)?[A-Za-z0-9+/_=-]{${PAYLOAD_MIN_RUN},}`, 'g');

/** [start, end) ranges of embedded payloads (base64/hex runs, data URIs). */
export function payloadRanges(content: string): [number, number][] {
  const out: [number, number][] = [];
  for (const m of content.matchAll(PAYLOAD_RE)) out.push([m.index!, m.index! + m[0].length]);
  return out;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d || code === 0x3000 || code === 0xa0;
}

const SENTENCE_END = new Set(['.', '!', '?', '。', '！', '？', '；', ';', '…']);

/** Best cut point in (lo, hi]: paragraph break > sentence end > whitespace > hi. Never inside a surrogate pair. */
function cutPoint(content: string, lo: number, hi: number): number {
  const floor = Math.max(lo + 1, hi - Math.floor((hi - lo) / 3));
  let sentence = -1;
  let space = -1;
  for (let i = hi; i > floor; i--) {
    const prev = content[i - 1]!;
    if (prev === '\n' && content[i - 2] === '\n') return i;
    if (sentence < 0 && SENTENCE_END.has(prev) && (i === content.length || isSpace(content.charCodeAt(i)) || isCjk(prev.charCodeAt(0)))) sentence = i;
    if (space < 0 && isSpace(content.charCodeAt(i - 1))) space = i;
  }
  let cut = sentence > 0 ? sentence : space > 0 ? space : hi;
  const c = content.charCodeAt(cut - 1);
  if (c >= 0xd800 && c <= 0xdbff && cut < content.length) cut = cut - 1 > lo ? cut - 1 : cut + 1;
  return cut;
}

/** Largest end such that content[start, end) stays within `budget` estimated tokens. */
function advance(content: string, start: number, limit: number, budget: number, charsPerToken: number): number {
  let tokens = 0;
  let i = start;
  while (i < limit) {
    const c = content.charCodeAt(i);
    const width = c >= 0xd800 && c <= 0xdbff && i + 1 < limit ? 2 : 1;
    const cost = isCjk(c) ? 1 : 1 / charsPerToken;
    if (tokens + cost > budget) break;
    tokens += cost;
    i += width;
  }
  return Math.max(i, Math.min(limit, start + 1));
}

/** Moves back from `end` by about `tokens` estimated tokens (the overlap), never before `floor`. */
function backBy(content: string, end: number, floor: number, tokens: number, charsPerToken: number): number {
  let spent = 0;
  let i = end;
  while (i > floor) {
    const c = content.charCodeAt(i - 1);
    const cost = isCjk(c) ? 1 : c >= 0xdc00 && c <= 0xdfff ? 0 : 1 / charsPerToken;
    if (spent + cost > tokens) break;
    spent += cost;
    i--;
  }
  // Start the overlap at a word boundary when one is near, and never on a low surrogate.
  for (let j = i; j < Math.min(end, i + 32); j++) {
    if (isSpace(content.charCodeAt(j))) {
      i = j + 1;
      break;
    }
  }
  const c = content.charCodeAt(i);
  if (c >= 0xdc00 && c <= 0xdfff) i++;
  return i;
}

/** Trims whitespace off [start, end); returns null when nothing is left. */
function trimRange(content: string, start: number, end: number): [number, number] | null {
  while (start < end && isSpace(content.charCodeAt(start))) start++;
  while (end > start && isSpace(content.charCodeAt(end - 1))) end--;
  return start < end ? [start, end] : null;
}

/** Text segments of `content` between payloads. */
function segments(content: string): [number, number][] {
  const out: [number, number][] = [];
  let at = 0;
  for (const [s, e] of payloadRanges(content)) {
    if (s > at) out.push([at, s]);
    at = e;
  }
  if (at < content.length) out.push([at, content.length]);
  return out;
}

/** The content the chunker cuts and the worker sends: `<private>` spans blanked with spaces (offsets unchanged). */
export function chunkableContent(content: string): string {
  return hasPrivate(content) ? blankPrivate(content) : content;
}

/** Cuts one message's content into chunks (empty for empty, whitespace-only or binary content). */
export function chunkText(original: string, options: ChunkerOptions): Chunk[] {
  if (looksBinary(original)) return [];
  const content = chunkableContent(original);
  const charsPerToken = Math.max(1, options.charsPerToken);
  const budget = Math.max(8, options.maxInputTokens - RESERVED_TOKENS);
  const overlap = Math.min(MAX_OVERLAP_TOKENS, Math.floor(budget / 8));
  const chunks: Chunk[] = [];
  for (const [segStart, segEnd] of segments(content)) {
    let start = segStart;
    while (start < segEnd && chunks.length < MAX_CHUNKS_PER_MESSAGE) {
      const hardEnd = advance(content, start, segEnd, budget, charsPerToken);
      const end = hardEnd >= segEnd ? segEnd : cutPoint(content, start, hardEnd);
      const range = trimRange(content, start, end);
      if (range) chunks.push({ index: chunks.length, start: range[0], end: range[1], text: content.slice(range[0], range[1]) });
      if (end >= segEnd) break;
      const next = backBy(content, end, start + 1, overlap, charsPerToken);
      start = next > start ? next : end;
    }
  }
  return chunks;
}
