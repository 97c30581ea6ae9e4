/**
 * Turns any user string into a safe FTS5 MATCH expression (or a literal LIKE needle) and into term
 * matchers for snippets. Nothing the user types is ever passed to FTS5 as syntax: every term is
 * rebuilt from token characters and emitted as a double-quoted phrase with a column filter, so FTS
 * operators (AND OR NOT NEAR ^ * : ( ) -), stray quotes, `%`, `_`, emoji and 10 kB pastes are just
 * text. Natural questions are OR-ed over their useful terms (stop-words dropped) and ranked by BM25
 * over whatever matches, because AND-ing every word of a question finds nothing in practice.
 * Balanced double quotes ("…", “…”, 「…」, 『…』) mark exact phrases, which are required.
 */
import {
  CJK_CLASS,
  cjkBigrams,
  hasCjk,
  isStopword,
  latinUnits,
  normalizeForSearch,
  porterStem,
  segmentWords,
  splitRuns,
  stripParticles,
} from './search-text.js';

/** Only this much of a query is read; the rest is ignored and `truncated` is set. */
export const MAX_QUERY_CHARS = 2000;
/** At most this many distinct terms go into one MATCH expression (phrases first). */
export const MAX_QUERY_TERMS = 32;
/** Longest literal needle used by the LIKE fallback. */
export const MAX_LIKE_NEEDLE_CHARS = 200;

export type QueryTermKind = 'word' | 'cjk' | 'phrase';

/** One searched term of a parsed query: a word, a CJK word or a quoted phrase, with its FTS5 expression. */
export interface QueryTerm {
  /** The term as normalised text (`busy_timeout`, `蒸鱼`, `retry backoff` for a phrase). */
  text: string;
  kind: QueryTermKind;
  /** Quoted phrases must match; other terms are OR-ed. */
  required: boolean;
  /** The FTS5 sub-expression for this term (column-filtered, quoted). */
  fts: string;
  /**
   * The term as a sequence of pieces for matching in original text: Latin tokens are matched as
   * whole words separated by non-word characters, CJK pieces as substrings.
   */
  pieces: string[];
}

/** A user query as the keyword index runs it (see parseQuery). */
export interface ParsedQuery {
  /** The input as received (not truncated), for notes. */
  input: string;
  terms: QueryTerm[];
  /** Stop-words that were dropped (empty when only stop-words were typed: they are then searched). */
  stopwords: string[];
  /** FTS5 MATCH expression, or null when the query has no indexable characters. */
  match: string | null;
  /**
   * Literal substring searched with LIKE (`%`/`_` escaped) when the query has no indexable
   * characters at all (only symbols or emoji, e.g. `->`, `%`, `🙂`); null otherwise.
   */
  likeNeedle: string | null;
  /** True when the query was longer than MAX_QUERY_CHARS or had more than MAX_QUERY_TERMS terms. */
  truncated: boolean;
  /** Human-readable remarks for the tool's `notes`. */
  notes: string[];
}

const PHRASE_RE = /"([^"]*)"|“([^”]*)”|「([^」]*)」|『([^』]*)』/g;

/** Double-quotes one FTS5 string; tokens never contain quotes, but escaping keeps that an invariant. */
function q(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/**
 * How a multi-character CJK query word may also match partially when the stored text spells it
 * differently (`蒸鱼` vs `清蒸鲈鱼`):
 *   - `none`: only the exact substring (the phrase of its bigrams);
 *   - `bigram`: words of 3+ characters also OR their bigrams; 2-character words stay exact;
 *   - `unigram`: every multi-character word also ORs its single characters (column `cjk`).
 * Broader backoff finds more but makes common characters match a large share of a project, which
 * costs latency; keywordSearch therefore leaves characters that are common in the index out of
 * `unigram` backoff (`skipCharacters`) unless that under-fills the list (measured in
 * docs/benchmarks.md). `keywordSearch`'s `cjkBackoff` option takes one of these or `auto` (default).
 */
export type CjkBackoff = 'unigram' | 'bigram' | 'none';
export const DEFAULT_CJK_BACKOFF: CjkBackoff = 'bigram';

export interface ParseOptions {
  cjkBackoff?: CjkBackoff;
  /**
   * Characters left out of `unigram` backoff: too common in the index to tell messages apart, and
   * each costs a scan of its whole posting list (see keyword-search.ts, commonCharacters).
   */
  skipCharacters?: ReadonlySet<string>;
}

function cjkTermFts(word: string, backoff: CjkBackoff, skip?: ReadonlySet<string>): string {
  const chars = Array.from(word);
  if (chars.length === 1) return `cjk : ${q(word)}`;
  // BM25's IDF keeps common characters from dominating, and `cjk` is weighted below `body`.
  const exact = `body : ${q(cjkBigrams(word))}`;
  let parts: string[] = [];
  if (backoff === 'unigram') {
    parts = [...new Set(chars)].filter((c) => !isStopword(c) && !skip?.has(c)).map((c) => `cjk : ${q(c)}`);
  } else if (backoff === 'bigram' && chars.length > 2) {
    parts = [...new Set(cjkBigrams(word).split(' '))].map((b) => `body : ${q(b)}`);
  }
  return parts.length > 0 ? `(${exact} OR ${parts.join(' OR ')})` : exact;
}

function cjkTerm(word: string, backoff: CjkBackoff, skip?: ReadonlySet<string>): QueryTerm {
  return { text: word, kind: 'cjk', required: false, fts: cjkTermFts(word, backoff, skip), pieces: [word] };
}

/** Pieces (Latin tokens and CJK runs) of a normalised text, in order. */
function piecesOf(text: string): { pieces: string[]; bodyTokens: string[] } {
  const pieces: string[] = [];
  const bodyTokens: string[] = [];
  for (const run of splitRuns(text)) {
    if (run.cjk) {
      pieces.push(run.text);
      bodyTokens.push(cjkBigrams(run.text));
    } else {
      for (const unit of latinUnits(run.text)) {
        pieces.push(...unit.parts);
        bodyTokens.push(...unit.parts);
      }
    }
  }
  return { pieces, bodyTokens };
}

function phraseTerm(text: string): QueryTerm | null {
  const { pieces, bodyTokens } = piecesOf(text);
  if (pieces.length === 0) return null;
  const only = pieces[0]!;
  const fts = pieces.length === 1 && hasCjk(only) && Array.from(only).length === 1 ? `cjk : ${q(only)}` : `body : ${q(bodyTokens.join(' '))}`;
  return { text: text.trim().replace(/\s+/g, ' '), kind: 'phrase', required: true, fts, pieces };
}

/**
 * Parses a user query. Never throws; any string (including '') yields a ParsedQuery, possibly with
 * no match expression and no LIKE needle (then the search returns nothing).
 */
export function parseQuery(input: string, options: ParseOptions = {}): ParsedQuery {
  const backoff = options.cjkBackoff ?? DEFAULT_CJK_BACKOFF;
  const skip = options.skipCharacters;
  const raw = typeof input === 'string' ? input : '';
  const notes: string[] = [];
  let truncated = raw.length > MAX_QUERY_CHARS;
  const text = normalizeForSearch(truncated ? raw.slice(0, MAX_QUERY_CHARS) : raw);
  if (truncated) notes.push(`Query truncated to its first ${MAX_QUERY_CHARS} characters.`);

  const required: QueryTerm[] = [];
  const optional: QueryTerm[] = [];
  const stop: QueryTerm[] = [];
  const stopwords: string[] = [];

  const rest = text.replace(PHRASE_RE, (_all, a?: string, b?: string, c?: string, d?: string) => {
    const term = phraseTerm(a ?? b ?? c ?? d ?? '');
    if (term) required.push(term);
    return ' ';
  });

  for (const run of splitRuns(rest)) {
    if (run.cjk) {
      // ICU's dictionary splits words it does not know into single characters (`鲈鱼` → 鲈|鱼).
      // Adjacent single characters are glued back into one term, matched as the exact substring
      // (and, under `unigram` backoff, character by character).
      let singles: string[] = [];
      const flush = (): void => {
        if (singles.length === 1) optional.push(cjkTerm(singles[0]!, backoff, skip));
        else if (singles.length > 1) optional.push(cjkTerm(singles.join(''), backoff, skip));
        singles = [];
      };
      for (const segmented of segmentWords(run.text)) {
        const word = stripParticles(segmented);
        if (isStopword(word)) {
          flush();
          stop.push(cjkTerm(word, backoff));
          stopwords.push(word);
        } else if (Array.from(word).length === 1) {
          singles.push(word);
        } else {
          flush();
          optional.push(cjkTerm(word, backoff, skip));
        }
      }
      flush();
    } else {
      for (const unit of latinUnits(run.text)) {
        const term: QueryTerm = { text: unit.text, kind: 'word', required: false, fts: `body : ${q(unit.parts.join(' '))}`, pieces: unit.parts };
        // Only single-token units can be stop-words: `it` is one, `it.only` is an identifier.
        if (unit.parts.length === 1 && isStopword(unit.parts[0]!)) {
          stop.push(term);
          stopwords.push(unit.text);
        } else optional.push(term);
      }
    }
  }

  // A query of nothing but stop-words ("what is it", "什么") still deserves an answer.
  if (required.length === 0 && optional.length === 0 && stop.length > 0) {
    optional.push(...stop);
    stopwords.length = 0;
    notes.push('The query has only stop-words; searched for them anyway.');
  }

  const seen = new Set<string>();
  const terms: QueryTerm[] = [];
  for (const term of [...required, ...optional]) {
    if (seen.has(term.fts)) continue;
    seen.add(term.fts);
    if (terms.length >= MAX_QUERY_TERMS) {
      truncated = true;
      notes.push(`Only the first ${MAX_QUERY_TERMS} distinct terms were searched.`);
      break;
    }
    terms.push(term);
  }

  const req = terms.filter((t) => t.required).map((t) => t.fts);
  const all = terms.map((t) => t.fts);
  let match: string | null = null;
  if (req.length > 0) {
    // Required phrases AND-ed; the OR over every term (phrases included, so it is always satisfied)
    // lets the optional words add to the BM25 score without being required.
    match = all.length > req.length ? `${req.join(' AND ')} AND (${all.join(' OR ')})` : req.join(' AND ');
  } else if (all.length > 0) {
    match = all.join(' OR ');
  }

  let likeNeedle: string | null = null;
  if (match === null) {
    const needle = raw.trim().slice(0, MAX_LIKE_NEEDLE_CHARS);
    if (needle.length > 0) {
      likeNeedle = needle;
      notes.push('The query has no searchable words; matched it literally as a substring.');
    }
  }

  return { input: raw, terms, stopwords, match, likeNeedle, truncated, notes };
}

// ---------------------------------------------------------------------------------------------
// Matching terms in original text (snippets, matchedTerms). Works on the NFKC/lower-case form and
// maps positions back to the original string, so the snippet shows the text exactly as stored.

/** A Latin word character: the boundary test for whole-word matching. CJK letters are excluded
 * because the index separates CJK runs from Latin words (`修复bug` matches `bug`). */
const WORD_CHAR = `[[\\p{L}\\p{N}\\p{M}\\p{Co}]--[${CJK_CLASS}]]`;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A global regexp that finds `term` in normalised (NFKC, lower-case) text. Accent folding is the
 * index's alone (`cafe` finds `café`), so such a hit is found but not marked in the snippet.
 */
export function termRegExp(term: QueryTerm): RegExp {
  let source = '';
  term.pieces.forEach((p, i) => {
    const cjk = hasCjk(p);
    if (i > 0) {
      // Latin tokens are separate words (`busy_timeout`, `busy timeout`, not `busytimeout`); next
      // to a CJK piece any separator, including none, is allowed (`修复bug`).
      const bothLatin = !cjk && !hasCjk(term.pieces[i - 1]!);
      source += bothLatin ? String.raw`[^\p{L}\p{N}]+?` : String.raw`[^\p{L}\p{N}]*?`;
    }
    source += cjk ? escapeRegExp(p) : `(?<!${WORD_CHAR})${escapeRegExp(p)}(?!${WORD_CHAR})`;
  });
  return new RegExp(source, 'gv');
}

/** A match of query term `term` (index into the term list) at [start, end) of normalised text. */
export interface TermSpan {
  start: number;
  end: number;
  term: number;
  /** A single character of a CJK word that is not present whole (matched through the backoff). */
  partial?: boolean;
}

const LATIN_WORD_RE = new RegExp(`${WORD_CHAR}+`, 'gv');
const CJK_IN_GAP_RE = new RegExp(`[${CJK_CLASS}]`, 'u');
/** Stems are cached across calls: titles and snippets see the same few thousand words again and again. */
const stemCache = new Map<string, string>();
function stem(word: string): string {
  let s = stemCache.get(word);
  if (s === undefined) {
    if (stemCache.size >= 50_000) stemCache.clear();
    stemCache.set(word, (s = porterStem(word)));
  }
  return s;
}

/**
 * One lower-case substring per term that any text matching the term must contain (the first piece,
 * or all but the last character of its stem), for cheap SQL pre-filtering with instr(lower(…)).
 * Returns null when that is not possible, i.e. when a needle would contain non-ASCII letters that
 * SQLite's ASCII-only lower() cannot fold.
 */
export function termNeedles(terms: readonly QueryTerm[]): string[] | null {
  const needles: string[] = [];
  for (const term of terms) {
    const first = term.pieces[0];
    if (first === undefined) return null;
    if (hasCjk(first)) {
      needles.push(first);
      continue;
    }
    const st = stem(first);
    const needle = st.length > 1 ? st.slice(0, -1) : st;
    if (!/^[a-z0-9]+$/.test(needle)) return null;
    needles.push(needle);
  }
  return needles;
}

/** At most this many spans per term are collected (snippets need only the first few). */
export const MAX_SPANS_PER_TERM = 200;

/**
 * Finds the terms in normalised (NFKC, lower-case) text the way the index matched them: Latin
 * words by Porter stem (`decided` matches `decide`), consecutive for multi-word terms; CJK words
 * as substrings. Terms mixing scripts (quoted phrases like `修复 busy_timeout`) use termRegExp.
 */
export function findTermSpans(text: string, terms: readonly QueryTerm[]): TermSpan[] {
  const spans: TermSpan[] = [];
  let words: { start: number; end: number; stem: string }[] | null = null;
  terms.forEach((term, index) => {
    const cjk = term.pieces.map(hasCjk);
    let count = 0;
    if (cjk.every(Boolean) && term.pieces.length === 1) {
      const needle = term.pieces[0]!;
      for (let at = text.indexOf(needle); at >= 0 && count < MAX_SPANS_PER_TERM; at = text.indexOf(needle, at + needle.length), count++) {
        spans.push({ start: at, end: at + needle.length, term: index });
      }
      // Not there whole: the index may have matched its characters (backoff); mark those.
      if (count === 0 && needle.length > 1) {
        for (const ch of new Set(Array.from(needle))) {
          if (isStopword(ch)) continue;
          for (let at = text.indexOf(ch), n = 0; at >= 0 && n < MAX_SPANS_PER_TERM; at = text.indexOf(ch, at + ch.length), n++) {
            spans.push({ start: at, end: at + ch.length, term: index, partial: true });
          }
        }
      }
    } else if (!cjk.some(Boolean)) {
      const want = term.pieces.map(stem);
      // Cheap rejection before splitting the text into words: Porter only rewrites a word's ending,
      // so all but the last character of a stem is a prefix of every word with that stem.
      if (!want.every((w) => text.includes(w.length > 1 ? w.slice(0, -1) : w))) return;
      words ??= [...text.matchAll(LATIN_WORD_RE)].map((m) => ({ start: m.index, end: m.index + m[0].length, stem: stem(m[0]) }));
      for (let i = 0; i + want.length <= words.length && count < MAX_SPANS_PER_TERM; i++) {
        let ok = true;
        for (let k = 0; k < want.length && ok; k++) {
          ok = words[i + k]!.stem === want[k];
          // Words of a phrase must be adjacent in the index: no CJK text between them.
          if (ok && k > 0 && CJK_IN_GAP_RE.test(text.slice(words[i + k - 1]!.end, words[i + k]!.start))) ok = false;
        }
        if (ok) {
          spans.push({ start: words[i]!.start, end: words[i + want.length - 1]!.end, term: index });
          count++;
        }
      }
    } else {
      const re = termRegExp(term);
      for (let m = re.exec(text); m !== null && count < MAX_SPANS_PER_TERM; m = re.exec(text)) {
        if (m[0].length === 0) {
          re.lastIndex++;
          continue;
        }
        spans.push({ start: m.index, end: m.index + m[0].length, term: index });
        count++;
      }
    }
  });
  return spans.sort((a, b) => a.start - b.start || b.end - a.end);
}
