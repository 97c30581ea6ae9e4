/**
 * A short excerpt of a message around its matched terms, marked with « », from the same term
 * matcher as the SQLite search (findTermSpans). Simpler than packages/store's snippet(): it centres
 * on the first match instead of the densest cluster, and works on the normalised text, so the
 * excerpt shows NFKC/lower-case text (the SQLite one maps back to the stored spelling).
 */
import { findTermSpans, normalizeForSearch, type QueryTerm } from '@recall/store/portable';
import { PG_MAX_INDEXED_CHARS } from './keyword-text.js';

/** The pair that marks a matched term inside a snippet (as in @recall/store). */
const HIGHLIGHT_OPEN = '«';
const HIGHLIGHT_CLOSE = '»';

const collapse = (s: string): string => s.replace(/\s+/g, ' ');

/** Never cuts between the two halves of a surrogate pair. */
function safeCut(text: string, pos: number): number {
  if (pos <= 0 || pos >= text.length) return Math.max(0, Math.min(pos, text.length));
  const c = text.charCodeAt(pos);
  return c >= 0xdc00 && c <= 0xdfff ? pos - 1 : pos;
}

export function keywordSnippet(content: string, terms: readonly QueryTerm[], size: number): string {
  const text = normalizeForSearch(content.length > PG_MAX_INDEXED_CHARS ? content.slice(0, PG_MAX_INDEXED_CHARS) : content);
  const spans = findTermSpans(text, terms);
  if (spans.length === 0) {
    const end = safeCut(content, Math.min(content.length, size));
    return collapse(content.slice(0, end)).trim() + (end < content.length ? '…' : '');
  }
  const from = safeCut(text, Math.max(0, spans[0]!.start - Math.floor(size / 4)));
  const to = safeCut(text, Math.min(text.length, from + size));
  let out = from > 0 ? '…' : '';
  let pos = from;
  for (const s of spans) {
    if (s.start < pos || s.end > to) continue;
    out += collapse(text.slice(pos, s.start)) + HIGHLIGHT_OPEN + collapse(text.slice(s.start, s.end)) + HIGHLIGHT_CLOSE;
    pos = s.end;
  }
  out += collapse(text.slice(pos, to));
  if (to < text.length) out += '…';
  return out.trim();
}
