/**
 * Public surface of @recall/store: projects, sessions, lineage, moves, messages, windows, paging and
 * the project-scoped keyword search of a Recall profile database. Every function takes an open
 * `RecallDatabase` from @recall/schema's `openDatabase()` and runs synchronously (better-sqlite3).
 * The objects it returns (Project, Session, Message, MoveResult, …) are the wire types of
 * @recall/rpc-contract; import those types from there. Benchmark and tuning hooks are in
 * `@recall/store/internal`, which has no compatibility promise.
 */
// --- errors ---
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
  BackupTargetExistsError,
  BackupInvalidError,
  BackupSchemaUnknownError,
  RestoreTargetNewerError,
  DiskFullError,
  asDiskFullError,
} from './errors.js';
// --- projects and folders ---
export {
  createProject,
  updateProject,
  archiveProject,
  deleteProject,
  getProject,
  findProject,
  listProjects,
  addProjectFolder,
  removeProjectFolder,
  findProjectByFolder,
  projectForFolder,
  findProjectByRef,
  projectCoveringFolder,
  projectExists,
} from './projects.js';
export type { CreateProjectInput, UpdateProjectInput } from './projects.js';
export { normalizeFolderPath, projectFolderPath, discoveredFolders } from './folders.js';
export type { ProjectFolderOptions } from './folders.js';
// --- sessions, lineage, moves ---
export type { SessionHeader } from './rows.js';
export {
  createSession,
  upsertSession,
  updateSession,
  getSession,
  findSession,
  getSessionHeader,
  findSessionHeader,
  sessionProjectId,
  listSessions,
  setSessionCwd,
  setSessionTitle,
  endSession,
} from './sessions.js';
export type { CreateSessionInput, UpsertSessionInput, UpdateSessionFields, SetSessionCwdInput, ListSessionsOptions } from './sessions.js';
export { conversationRootId, conversationSegments, logicalConversation, logicalConversationIds, ownHistorySessionIds } from './conversation.js';
export type { ConversationMember } from './conversation.js';
export { createContinuation, createBranch, createReset, createDelegation } from './lineage.js';
export { setSessionProject } from './moves.js';
export { deleteConversation, purgeProject, purgeHiddenMessages, scrubDeletedText } from './purge.js';
export type { PurgeResult } from './purge.js';
export { backupDatabase, inspectDatabaseFile, restoreDatabaseFile } from './backup.js';
export type { BackupOptions, BackupResult, DatabaseFileSummary, RestoreOptions, RestoreResult } from './backup.js';
// --- messages, windows, pages ---
export { appendMessage, appendMessages, editMessage, deleteMessage, rewindSession, compactMessages, getMessage, findMessage, getMessages } from './messages.js';
export type { AppendResult, GetMessagesOptions } from './messages.js';
export type { NewMessage } from './validation.js';
export { messageWindow, sessionHeadTail, segmentWindow, segmentsHeadTail } from './windows.js';
export type { MessageWindow, HeadTail, SegmentReadOptions } from './windows.js';
export { listConversations, conversationContaining, messagePage } from './pages.js';
export type { ListConversationsOptions, MessagePagePosition, SessionMessagePage } from './pages.js';
export { recentConversations, MAX_SCANNED_SESSIONS } from './recent-conversations.js';
export type { RecentConversation, RecentConversationPage, RecentConversationOptions, RecentConversationScope } from './recent-conversations.js';
export { writeTransaction, readTransaction, bulkWrite } from './transaction.js';
// --- keyword search ---
export {
  keywordSearch,
  searchTitles,
  AUTOMATED_SOURCES,
  DEFAULT_KEYWORD_LIMIT,
  MAX_KEYWORD_LIMIT,
  DEFAULT_TITLE_LIMIT,
  MAX_TITLE_LIMIT,
  DEFAULT_SNIPPET_CHARS,
  HIGHLIGHT_OPEN,
  HIGHLIGHT_CLOSE,
} from './keyword-search.js';
export type { KeywordScope, KeywordSort, KeywordSearchOptions, KeywordSearchResult, KeywordHit, TitleHit, TitleSearchOptions, QuerySummary } from './keyword-search.js';
export { MAX_QUERY_CHARS, MAX_QUERY_TERMS } from './fts-query.js';
export type { CjkBackoff } from './fts-query.js';
export { MAX_INDEXED_CHARS } from './search-text.js';
export { rebuildKeywordIndex } from './fts-index.js';
// --- the storage ports (@recall/storage-ports) on SQLite ---
/** The storage ports over an open profile database (the SQLite adapter). */
export { sqliteStorage, openSqliteStorage } from './sqlite-storage.js';
/** The SQLite change feed (`PRAGMA data_version` + an O(1) fingerprint): what `sqliteStorage(db).changes` is; `checkNow()` polls by hand. */
export { sqliteChangeFeed } from './sqlite-feed.js';
/** The SQLite change feed's type (ChangeFeed plus checkNow/closeAll). */
export type { SqliteChangeFeed } from './sqlite-feed.js';
/**
 * The semantic consent rows of a profile database, read in one place (the transfer source's
 * `consents()` and @recall/semantic/sqlite read them through these): every project's, or one.
 */
export { listSemanticConsents, semanticConsent } from './semantic-consent.js';
