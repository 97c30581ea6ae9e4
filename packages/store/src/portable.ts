/**
 * `@recall/store/portable`: the parts of the store that need no SQLite — the typed errors, the
 * keyword tokenizer and query parser, input validation and the project-folder rules — so another
 * storage adapter (@recall/store-postgres) keeps exactly the same rules and errors without loading
 * @recall/schema or better-sqlite3 (test/portable.test.ts walks the import graph). The error classes
 * are the same objects as `@recall/store`'s, so `instanceof` works across both entries.
 */
/** The store's typed errors (the same classes as `@recall/store` exports). */
export {
  StoreError,
  ValidationError,
  ProjectNotFoundError,
  SessionNotFoundError,
  MessageNotFoundError,
  ProjectHasSessionsError,
  ProjectArchivedError,
  FolderInUseError,
  FolderPathError,
  SessionExistsError,
  LineageError,
  SessionAlreadyCompressedError,
} from './errors.js';
/** The index columns of a message, Porter stemming, CJK detection and the normal form text is compared in. */
export { indexColumns, porterStem, hasCjk, normalizeForSearch } from './search-text.js';
/** Whether the query parser drops a word (or a CJK character of the character relaxation) as a stop-word. */
export { isStopword } from './search-text.js';
/** The shape indexColumns returns. */
export type { IndexColumns } from './search-text.js';
/** The question → reply credit of keyword ranking (keyword-pairs.ts), shared by both adapters. */
export { creditReplies, endsWithQuestion, REPLY_CREDIT_BM25, REPLY_CREDIT_COVERAGE } from './keyword-pairs.js';
/** What creditReplies reads of a hit, and its options. */
export type { PairCandidate, ReplyCreditOptions } from './keyword-pairs.js';
/** Which message of a question/reply exchange anchors a CJK keyword search (keyword-exchanges.ts), shared by both adapters. */
export { rankExchanges, closingQuestion, CHAIN_REPLY_SHARE, EXCHANGE_REPLY_SHARE } from './keyword-exchanges.js';
/** What rankExchanges reads of a candidate, and the rule that moved one. */
export type { ExchangeCandidate, ExchangeRule } from './keyword-exchanges.js';
/** A window of the original text around the densest cluster of matched terms, matches marked « » (both adapters' keyword snippets). */
export { snippet as matchSnippet } from './keyword-snippet.js';
/** The query parser and where its terms occur in normalised text (snippets). */
export { parseQuery, findTermSpans } from './fts-query.js';
/** A parsed query, one of its terms, and one term occurrence. */
export type { ParsedQuery, QueryTerm, TermSpan } from './fts-query.js';
/** Folder rules: normalisation, the checks a project folder passes (absolute, no root, home only when confirmed), "is under". */
export { normalizeFolderPath, projectFolderPath, isUnderFolder, isFilesystemRoot } from './folders.js';
/**
 * Input validation both adapters share, so they refuse the same input with the same ValidationError:
 * ids, project names, titles, new messages, bounded well-formed text, and parseInput().
 */
export { idSchema, projectNameSchema, titleSchema, newMessageSchema, parseInput, text as boundedText, toWellFormed } from './validation.js';
/**
 * Keyword ranking rules both adapters apply to their engine's candidates: the common-character
 * threshold of CJK relaxation, the automated-session penalty, the paraphrase note's whole-word
 * check and title scoring (keyword-rules.ts).
 */
export {
  COMMON_CHARACTER_SHARE,
  COMMON_CHARACTER_MIN_DOCS,
  commonCharacterCap,
  questionCharacters,
  compareRanked,
  PARAPHRASE_COVERAGE,
  PARAPHRASE_PROBE,
  paraphraseWords,
  lowWholeWordCoverage,
  scoreTitles,
} from './keyword-rules.js';
/** A ranked candidate (compareRanked) and a title candidate (scoreTitles). */
export type { RankedCandidate, TitleCandidate } from './keyword-rules.js';
/** The coverage re-rank of CJK keyword candidates (keyword-coverage.ts) and its units. */
export { coverageUnits, coverage, rerankByCoverage } from './keyword-coverage.js';
/** One unit of a question a candidate's coverage is scored on. */
export type { CoverageUnit } from './keyword-coverage.js';
/** BM25 column weights, the automated sources and a title hit's shape (keyword-types.ts). */
export { BM25_WEIGHTS, AUTOMATED_SOURCES } from './keyword-types.js';
/** A conversation whose title matched. */
export type { TitleHit } from './keyword-types.js';
/** Text as the index sees it: private spans blanked (what coverage and snippets compare against). */
export { searchableContent } from './search-text.js';
/**
 * BM25 as FTS5's bm25() computes it, with the statistics the caller gives (both adapters: the searched
 * scope's own), and the most a document holding only some leaves can score (keyword-bm25.ts).
 */
export { bm25Score, bm25UpperBound } from './keyword-bm25.js';
/** A scored query phrase and a scope's BM25 statistics. */
export type { Bm25Leaf, Bm25Stats } from './keyword-bm25.js';
