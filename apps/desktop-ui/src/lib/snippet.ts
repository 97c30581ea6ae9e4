/**
 * Snippet highlighting without HTML injection: a result snippet is split into plain-text segments
 * flagged `match` or not, and React renders them as text (matches inside <mark>). Markers the tool
 * may use are recognised (`«…»` — what the store emits — then `<mark>…</mark>`, `<b>…</b>`, `>>>…<<<`, `[[…]]`, and the
 * FTS5-style control characters U+0002/U+0003); a snippet without markers gets the query's terms
 * highlighted case-insensitively instead. Also groups search hits by conversation, best first.
 */
import type { SearchHit } from '@recall/rpc-contract';

export interface Segment {
  text: string;
  match: boolean;
}

// «…» first: it is what the store's keyword search emits.
const MARKER_PAIRS: Array<[string, string]> = [
  ['«', '»'],
  ['<mark>', '</mark>'],
  ['<b>', '</b>'],
  ['>>>', '<<<'],
  ['[[', ']]'],
  ['\u0002', '\u0003'],
];

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&', '&quot;': '"', '&#39;': "'", '&#x27;': "'" };

function decodeEntities(s: string): string {
  return s.replace(/&(?:lt|gt|amp|quot|#39|#x27);/g, (e) => ENTITIES[e] ?? e);
}

function mergeAdjacent(segments: Segment[]): Segment[] {
  const out: Segment[] = [];
  for (const s of segments) {
    if (!s.text) continue;
    const prev = out[out.length - 1];
    if (prev && prev.match === s.match) prev.text += s.text;
    else out.push({ ...s });
  }
  return out;
}

/** Splits on the first marker pair that occurs with both its open and close marker. */
function splitByMarkers(snippet: string): Segment[] | null {
  for (const [open, close] of MARKER_PAIRS) {
    const o = snippet.indexOf(open);
    if (o < 0 || snippet.indexOf(close, o + open.length) < 0) continue;
    const html = open.startsWith('<');
    const fix = (t: string) => (html ? decodeEntities(t) : t);
    const segs: Segment[] = [];
    let pos = 0;
    while (pos < snippet.length) {
      const start = snippet.indexOf(open, pos);
      if (start < 0) break;
      const end = snippet.indexOf(close, start + open.length);
      if (end < 0) break;
      segs.push({ text: fix(snippet.slice(pos, start)), match: false });
      segs.push({ text: fix(snippet.slice(start + open.length, end)), match: true });
      pos = end + close.length;
    }
    segs.push({ text: fix(snippet.slice(pos)), match: false });
    return mergeAdjacent(segs);
  }
  return null;
}

/** Terms of a free-text query: whitespace-separated, quotes and FTS punctuation dropped. */
export function queryTerms(query: string): string[] {
  const terms = query
    .split(/[\s"'()*^:+]+/u)
    .map((t) => t.trim())
    .filter((t) => t.length > 0 && !/^(AND|OR|NOT|NEAR)$/.test(t));
  // Longest first so overlapping terms highlight the longer one.
  return [...new Set(terms)].sort((a, b) => b.length - a.length);
}

/**
 * Highlights the case-insensitive occurrences of the query's terms: a term that starts with a
 * letter or digit of a spaced script only where a word starts ("borrow" in "borrows", not "how"
 * in "shows"); CJK terms and terms starting with punctuation anywhere.
 */
export function highlightTerms(text: string, query: string): Segment[] {
  const terms = queryTerms(query);
  if (terms.length === 0 || !text) return text ? [{ text, match: false }] : [];
  const lower = text.toLowerCase();
  const marks = new Array<boolean>(text.length).fill(false);
  for (const term of terms) {
    const t = term.toLowerCase();
    // toLowerCase can change lengths for a few scripts; skip those terms rather than mis-align.
    if (t.length !== term.length) continue;
    const atWordStart = WORD_CHAR.test(t[0]!) && !CJK.test(t[0]!);
    let i = lower.indexOf(t);
    while (i >= 0) {
      if (!atWordStart || i === 0 || !WORD_CHAR.test(lower[i - 1]!) || CJK.test(lower[i - 1]!)) {
        for (let k = i; k < i + t.length; k++) marks[k] = true;
        i = lower.indexOf(t, i + t.length);
      } else i = lower.indexOf(t, i + 1);
    }
  }
  const segs: Segment[] = [];
  let start = 0;
  for (let i = 1; i <= text.length; i++) {
    if (i === text.length || marks[i] !== marks[start]) {
      segs.push({ text: text.slice(start, i), match: marks[start] ?? false });
      start = i;
    }
  }
  return mergeAdjacent(segs);
}

/** Segments of a snippet: the tool's markers when present, else the query's terms. */
export function splitSnippet(snippet: string, query = ''): Segment[] {
  return splitByMarkers(snippet) ?? highlightTerms(snippet, query);
}

/** Strips any highlight markers: the plain text of a snippet. */
export function plainSnippet(snippet: string): string {
  return splitSnippet(snippet)
    .map((s) => s.text)
    .join('');
}

export interface HitGroup {
  sessionId: string;
  title: string;
  date: SearchHit['date'];
  hits: SearchHit[];
}

/** Groups hits by conversation, keeping the best-first order of each group's first hit. */
export function groupHits(hits: SearchHit[]): HitGroup[] {
  const groups = new Map<string, HitGroup>();
  for (const h of hits) {
    let g = groups.get(h.session_id);
    if (!g) {
      g = { sessionId: h.session_id, title: h.title?.trim() || 'Untitled conversation', date: h.date ?? null, hits: [] };
      groups.set(h.session_id, g);
    }
    g.hits.push(h);
  }
  return [...groups.values()];
}

const WORD_CHAR = /[\p{L}\p{N}_]/u;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
/** How far into a clipped end a partial word is dropped (a longer "word" is kept: it is likely a path or token). */
const MAX_PARTIAL = 24;

/**
 * A snippet clipped by the tool (`…` at an end) starts and ends at word boundaries: a word cut in
 * the middle at a clipped end is dropped, up to the nearest space. Text without spaces (Chinese,
 * Japanese) and match markers are never cut; a snippet without a clipped end is returned as is.
 */
export function trimToWords(snippet: string): string {
  let s = snippet;
  const startClip = /^(…|\.\.\.)/.exec(s);
  if (startClip) {
    const body = s.slice(startClip[0].length);
    const first = body.charAt(0);
    if (WORD_CHAR.test(first) && !CJK.test(first)) {
      const cut = body.search(/\s/);
      const head = cut < 0 ? '' : body.slice(0, cut);
      if (cut > 0 && cut <= MAX_PARTIAL && ![...head].some((c) => CJK.test(c)) && !/[«»\u0002\u0003<>[\]]/.test(head)) s = `${startClip[0]}${body.slice(cut + 1)}`;
    }
  }
  const endClip = /(…|\.\.\.)$/.exec(s);
  if (endClip) {
    const body = s.slice(0, s.length - endClip[0].length);
    const last = body.charAt(body.length - 1);
    if (WORD_CHAR.test(last) && !CJK.test(last)) {
      const cut = Math.max(body.lastIndexOf(' '), body.lastIndexOf('\n'), body.lastIndexOf('\t'));
      const tail = cut < 0 ? '' : body.slice(cut + 1);
      if (cut > 0 && tail.length <= MAX_PARTIAL && ![...tail].some((c) => CJK.test(c)) && !/[«»\u0002\u0003<>[\]]/.test(tail)) s = `${body.slice(0, cut)}${endClip[0]}`;
    }
  }
  return s;
}
