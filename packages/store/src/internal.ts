/**
 * `@recall/store/internal`: the keyword index's building blocks and tuning constants, for the
 * repository's own tooling and tests (the keyword and CJK benches in tooling/bench compare them
 * with their alternatives; search-tool's tests size their corpora by them). No compatibility
 * promise: these follow the index's needs and may change in any release, e.g. with
 * KEYWORD_INDEX_VERSION. Applications use `@recall/store`.
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
/** NFKC and lower case: the form both the index and the query parser compare text in. */
export { normalizeForSearch } from './search-text.js';
/** One run of splitRuns and one unit of latinUnits. */
export type { TextRun, LatinUnit } from './search-text.js';
/**
 * The index columns of one message (`body`: Latin text + CJK bigrams, `cjk`: CJK unigrams), as the
 * keyword index stores them; @recall/store-postgres builds its tsvector from the same text.
 */
export { indexColumns } from './search-text.js';
/** The shape indexColumns returns. */
export type { IndexColumns } from './search-text.js';
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
/**
 * Adds the index rows of messages already written to `messages` (the raw connection, inside the
 * caller's write transaction); the store's append path does this itself. Indexing an id twice
 * counts its words twice.
 */
export { indexMessages } from './fts-index.js';
/** Version of the index's tokenisation; a database built by another version is rebuilt on first search. */
export { KEYWORD_INDEX_VERSION } from './fts-index.js';
/** Tuning: the most recent matching messages BM25 ranks per query (above it, keywordSearch notes the bound). */
export { RANK_WINDOW } from './keyword-search.js';
/** Tuning: share of a query's CJK words a top hit must contain whole, else the answer is noted as a paraphrase. */
export { PARAPHRASE_COVERAGE } from './keyword-search.js';
/** Tuning: CJK characters in more than this share of the messages are left out of character relaxation. */
export { COMMON_CHARACTER_SHARE } from './keyword-search.js';
/** Tuning: …and only when they occur in at least this many messages (see COMMON_CHARACTER_SHARE). */
export { COMMON_CHARACTER_MIN_DOCS } from './keyword-search.js';
/** Tuning: messages (most recent sessions first) the substring fallback reads at most per call. */
export { SUBSTRING_SCAN_MESSAGES } from './keyword-search.js';
/** Coverage re-ranking of CJK keyword candidates and its tuning constants (keyword-coverage.ts). */
export { COVERAGE_BIGRAM_WEIGHT, COVERAGE_BM25_SHARE, COVERAGE_COMMON_CHAR_WEIGHT, coverage, coverageUnits, rerankByCoverage, type CoverageUnit } from './keyword-coverage.js';
/** Question → reply credit among keyword hits and its tuning constants (keyword-pairs.ts). */
export { creditReplies, endsWithQuestion, REPLY_CREDIT_BM25, REPLY_CREDIT_COVERAGE, type PairCandidate, type ReplyCreditOptions } from './keyword-pairs.js';
/** Which message of a question/reply exchange anchors a CJK keyword search and its tuning constants (keyword-exchanges.ts). */
export { CHAIN_REPLY_SHARE, closingQuestion, EXCHANGE_REPLY_SHARE, rankExchanges, type ExchangeCandidate, type ExchangeRule } from './keyword-exchanges.js';
