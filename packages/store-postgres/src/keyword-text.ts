/**
 * Tokenizer output → PostgreSQL full-text values. The text processing is the SQLite path's
 * (packages/store/src/search-text.ts and fts-query.ts, through @recall/store/portable): the same
 * `indexColumns()` on the write side and the same `parseQuery()` (stop-words, ICU segmentation of
 * CJK, quoted phrases, term cap) on the read side. What FTS5's `porter unicode61 remove_diacritics 2`
 * tokenizer does inside SQLite is done here in TypeScript (split into token characters, lower case,
 * Latin diacritics removed, Porter stem), so PostgreSQL only sees ready lexemes: the document is a
 * tsvector literal of them (what the `simple` configuration would store for those tokens, minus
 * its parser: see tsvectorLiteral) and the query a tsquery literal of the same lexemes, never
 * parsed from user input. Both are therefore independent of the server's locale.
 *
 * FTS5's two columns become two weights: A = `body` (Latin words and CJK bigrams; a CJK word of n ≥ 2
 * characters is the phrase of its bigrams `番茄 <-> 茄炒 <-> 炒蛋`), B = `cjk` (CJK unigrams, for
 * one-character words).
 */
import { sql, type SQL } from 'drizzle-orm';
import { hasCjk, indexColumns, isStopword, parseQuery, porterStem, type ParsedQuery, type QueryTerm } from '@recall/store/portable';

/** Bump when documentText() or lexeme() change their output; rows of older versions must be re-indexed. */
export const PG_KEYWORD_TOKENIZER_VERSION = 1;

/**
 * Content past this many UTF-16 code units is not indexed in PostgreSQL (SQLite indexes 200 000): a
 * tsvector is limited to 1 MB, and 50 000 CJK characters already make up to 100 000 distinct
 * bigram/unigram lexemes. The message text itself is stored whole.
 */
export const PG_MAX_INDEXED_CHARS = 50_000;

const TOKEN_RE = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;
const LATIN_MARKS_RE = /(\p{Script=Latin})\p{M}+/gu;

/** The definition of lexeme(): CJK unchanged; other text lower-cased, Latin diacritics removed, Porter-stemmed. */
export function lexemeReference(token: string): string {
  if (hasCjk(token)) return token;
  const folded = token.toLowerCase().normalize('NFD').replace(LATIN_MARKS_RE, '$1').normalize('NFC');
  return porterStem(folded);
}

const ASCII_RE = /^[\x00-\x7f]*$/;
/** Memo of lexeme() (text repeats its words: most tokens of a bulk ingest were seen before). */
const LEXEME_CACHE = new Map<string, string>();
const LEXEME_CACHE_MAX = 100_000;

/**
 * One token of indexColumns() output as a lexeme — exactly lexemeReference() (a test compares
 * them), only faster: ASCII tokens skip the Unicode normalisations (which leave ASCII unchanged),
 * and results are memoised (bounded; cleared when full). The tokenizer is most of the CPU time of
 * a bulk ingest.
 */
export function lexeme(token: string): string {
  let out = LEXEME_CACHE.get(token);
  if (out !== undefined) return out;
  out = ASCII_RE.test(token) ? porterStem(token.toLowerCase()) : lexemeReference(token);
  if (LEXEME_CACHE.size >= LEXEME_CACHE_MAX) LEXEME_CACHE.clear();
  LEXEME_CACHE.set(token, out);
  return out;
}

function lexemes(text: string): string[] {
  return (text.match(TOKEN_RE) ?? []).map(lexeme);
}

/** The two weighted parts of a message's document, as space-separated lexemes. */
export interface DocumentText {
  /** Weight A: Latin lexemes and CJK bigrams, in text order (positions make phrases work). */
  body: string;
  /** Weight B: CJK unigrams. */
  cjk: string;
}

export function documentText(content: string): DocumentText {
  const capped = content.length > PG_MAX_INDEXED_CHARS ? content.slice(0, PG_MAX_INDEXED_CHARS) : content;
  const columns = indexColumns(capped);
  return { body: lexemes(columns.body).join(' '), cjk: columns.cjk };
}

/** tsvector positions run 1..16383 (larger ones are clamped by PostgreSQL); at most 256 are kept per lexeme. */
const MAX_POSITION = 16_383;
const MAX_POSITIONS_PER_LEXEME = 256;

function quoteLexeme(lex: string): string {
  if (!lex.includes('\\') && !lex.includes("'")) return `'${lex}'`;
  return `'${lex.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * The tsvector literal of a document: every lexeme with its positions and weight (A for `body`,
 * B for `cjk`, whose positions follow the body's as `||` would place them). Exactly what
 * `setweight(to_tsvector('simple', body), 'A') || setweight(to_tsvector('simple', cjk), 'B')` gives
 * for these lexemes, but without PostgreSQL's parser, which would split some of them again
 * (`1e5hello` → `1e5`, `hello`) and whose idea of a letter follows the server's locale.
 */
export function tsvectorLiteral(text: DocumentText): string {
  // Per lexeme: its positions (numbers, growing) and their weights, in first-seen order.
  const positions = new Map<string, { at: number[]; weights: string[] }>();
  let pos = 0;
  const add = (tokens: string, weight: 'A' | 'B'): void => {
    if (tokens === '') return;
    for (const lex of tokens.split(' ')) {
      if (lex === '') continue;
      pos++;
      let list = positions.get(lex);
      if (!list) positions.set(lex, (list = { at: [], weights: [] }));
      const at = Math.min(pos, MAX_POSITION);
      const n = list.at.length;
      // Positions only grow; past MAX_POSITION they all clamp to it, kept once (as PostgreSQL does).
      if (n < MAX_POSITIONS_PER_LEXEME && (n === 0 || list.at[n - 1] !== at)) {
        list.at.push(at);
        list.weights.push(weight);
      }
    }
  };
  add(text.body, 'A');
  add(text.cjk, 'B');
  let out = '';
  for (const [lex, list] of positions) {
    if (out !== '') out += ' ';
    out += `${quoteLexeme(lex)}:`;
    for (let i = 0; i < list.at.length; i++) out += `${i > 0 ? ',' : ''}${list.at[i]}${list.weights[i]}`;
  }
  return out;
}

/** The SQL value of a message's tsvector (one bound parameter cast to tsvector). */
export function documentSql(text: DocumentText): SQL {
  return sql`${tsvectorLiteral(text)}::tsvector`;
}

/** A tsquery operand: the lexeme quoted for the tsquery input syntax, with a weight filter. */
function operand(lex: string, weight: 'A' | 'B'): string {
  return `${quoteLexeme(lex)}:${weight}`;
}

/** One phrase of a tsquery (a lexeme, or lexemes in a row) in one weight: what BM25 scores separately. */
export interface QueryLeaf {
  readonly lexemes: readonly string[];
  readonly weight: 'A' | 'B';
  /** The leaf alone as a tsquery literal (its document frequency is counted with it). */
  readonly tsquery: string;
  /**
   * How often the phrase occurs in the SQLite search's FTS5 expression of the same question (default
   * 1): FTS5 scores every occurrence as a phrase of its own, so a bigram that is also a word of the
   * question, or a required phrase (AND-ed and OR-ed again), counts that many times.
   */
  readonly count?: number;
}

/** Collects the leaves of the term being built and how often each occurs in it (null: not collecting). */
let collecting: Map<string, { leaf: QueryLeaf; count: number }> | null = null;

function leaf(lexes: readonly string[], weight: 'A' | 'B', text: string): string {
  if (collecting) {
    const known = collecting.get(text);
    if (known) known.count++;
    else collecting.set(text, { leaf: { lexemes: lexes, weight, tsquery: text }, count: 1 });
  }
  return text;
}

function phrase(lexes: readonly string[], weight: 'A' | 'B'): string {
  return leaf(lexes, weight, lexes.length === 1 ? operand(lexes[0]!, weight) : `(${lexes.map((l) => operand(l, weight)).join(' <-> ')})`);
}

function bigrams(word: string): string[] {
  const chars = Array.from(word);
  if (chars.length < 2) return [word];
  return chars.slice(0, -1).map((c, i) => c + chars[i + 1]!);
}

/** Lexemes of a term's pieces in index order: Latin parts as lexemes, CJK runs as their bigrams. */
function pieceLexemes(pieces: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of pieces) {
    if (hasCjk(p)) out.push(...bigrams(p));
    else out.push(...lexemes(p));
  }
  return out;
}

/**
 * The tsquery of one parsed term, mirroring fts-query.ts's FTS5 expressions under its default
 * `bigram` backoff: a CJK word of three or more characters also matches any of its bigrams.
 */
function termQuery(term: QueryTerm, unigrams: boolean): string | null {
  if (term.kind === 'cjk') {
    const chars = Array.from(term.text);
    if (chars.length === 1) return phrase([term.text], 'B');
    const exact = phrase(bigrams(term.text), 'A');
    // As fts-query.ts's cjkTermFts: the character relaxation (the SQLite search's `auto` backoff,
    // `unigram`) is the exact word OR its single characters (weight B) that are not stop-words;
    // without it (`bigram`), a word of three or more characters is the exact word OR its bigrams.
    if (unigrams) {
      const singles = [...new Set(chars)].filter((c) => !isStopword(c)).map((c) => phrase([c], 'B'));
      return singles.length ? `(${exact} | ${singles.join(' | ')})` : exact;
    }
    if (chars.length === 2) return exact;
    const parts = [...new Set(bigrams(term.text))].map((b) => phrase([b], 'A'));
    return `(${exact} | ${parts.join(' | ')})`;
  }
  if (term.pieces.length === 1 && hasCjk(term.pieces[0]!) && Array.from(term.pieces[0]!).length === 1) return phrase([term.pieces[0]!], 'B');
  const lexes = pieceLexemes(term.pieces);
  return lexes.length === 0 ? null : phrase(lexes, 'A');
}

/** A query ready for PostgreSQL: the tsquery literal (null: nothing searchable) and the parsed terms. */
export interface KeywordQuery {
  readonly tsquery: string | null;
  readonly parsed: ParsedQuery;
  /** The distinct phrases of the tsquery, each with how often FTS5 would score it (BM25 sums one score per phrase occurrence, as FTS5 does). */
  readonly leaves: readonly QueryLeaf[];
}

/**
 * Parses a user query into a tsquery literal: quoted phrases are required (AND), the other terms
 * are OR-ed and add to the rank, as in the SQLite search. Never throws.
 */
export function keywordQuery(input: string, options: { cjkUnigrams?: boolean } = {}): KeywordQuery {
  const parsed = parseQuery(input);
  const required: string[] = [];
  const all: string[] = [];
  const perTerm: Array<{ required: boolean; leaves: Map<string, { leaf: QueryLeaf; count: number }> }> = [];
  try {
    for (const term of parsed.terms) {
      const mine = new Map<string, { leaf: QueryLeaf; count: number }>();
      collecting = mine;
      const q = termQuery(term, options.cjkUnigrams ?? false);
      if (q === null) continue;
      all.push(q);
      if (term.required) required.push(q);
      perTerm.push({ required: term.required, leaves: mine });
    }
  } finally {
    collecting = null;
  }
  let tsquery: string | null = null;
  if (required.length > 0) tsquery = all.length > required.length ? `${required.join(' & ')} & (${all.join(' | ')})` : required.join(' & ');
  else if (all.length > 0) tsquery = all.join(' | ');
  // A required term occurs twice in the expression when optional terms follow (AND-ed, then OR-ed).
  const twice = required.length > 0 && all.length > required.length;
  const leaves = new Map<string, { leaf: QueryLeaf; count: number }>();
  for (const t of perTerm) {
    for (const [text, { leaf: l, count }] of t.leaves) {
      const n = count * (t.required && twice ? 2 : 1);
      const known = leaves.get(text);
      if (known) known.count += n;
      else leaves.set(text, { leaf: l, count: n });
    }
  }
  return { tsquery, parsed, leaves: [...leaves.values()].map(({ leaf: l, count }) => (count === 1 ? l : { ...l, count })) };
}
