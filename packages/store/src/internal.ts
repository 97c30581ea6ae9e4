/**
 * `@recall/store/internal`: the keyword index's text-processing steps, for the repository's own
 * tooling (the keyword and CJK benches in tooling/bench compare them with their alternatives).
 * Not a stable API: these follow the index's needs and may change with KEYWORD_INDEX_VERSION.
 */

/** Overlapping CJK bigrams of a run of CJK characters, as the index stores them. */
export { cjkBigrams } from './search-text.js';
/** Whether a word is on the keyword search's stop-word list. */
export { isStopword } from './search-text.js';
/** The Latin/number units of a text, as the index tokenises them. */
export { latinUnits } from './search-text.js';
/** Dictionary words of a CJK run (`Intl.Segmenter`). */
export { segmentWords } from './search-text.js';
/** A text split into its CJK and non-CJK runs. */
export { splitRuns } from './search-text.js';
/** A CJK word without its leading/trailing grammatical particles. */
export { stripParticles } from './search-text.js';
/** One run of splitRuns and one unit of latinUnits. */
export type { TextRun, LatinUnit } from './search-text.js';
/**
 * The index columns of one message (`body`: Latin text + CJK bigrams, `cjk`: CJK unigrams), as the
 * keyword index stores them; @recall/store-postgres builds its tsvector from the same text.
 */
export { indexColumns } from './search-text.js';
/** The shape indexColumns returns. */
export type { IndexColumns } from './search-text.js';
/** NFKC + lower case, the normalisation of indexed and query text. */
export { normalizeForSearch } from './search-text.js';
/** Porter stemming as FTS5's `porter` tokenizer does it (tokens of [a-z0-9] only, 3..64 characters). */
export { porterStem } from './search-text.js';
/** Whether a text contains a CJK character. */
export { hasCjk } from './search-text.js';
/** Content past this many UTF-16 code units is not indexed. */
export { MAX_INDEXED_CHARS } from './search-text.js';
/** A user query parsed into terms (stop-words, CJK segmentation, quoted phrases); never throws. */
export { parseQuery } from './fts-query.js';
/** Where the terms of a parsed query occur in normalised text (for snippets). */
export { findTermSpans } from './fts-query.js';
/** A parsed query, one of its terms, and one term occurrence. */
export type { ParsedQuery, QueryTerm, TermSpan } from './fts-query.js';
