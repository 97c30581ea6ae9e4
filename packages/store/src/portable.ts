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
/** The shape indexColumns returns. */
export type { IndexColumns } from './search-text.js';
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
