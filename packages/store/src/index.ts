/**
 * Public surface of @recall/store: projects, sessions, lineage, moves, messages, windows and the
 * project-scoped keyword search. Every function takes an open `RecallDatabase` from @recall/schema.
 */
// --- ownership & data (projects, sessions, lineage, moves, messages, windows) ---
export {
  StoreError,
  ValidationError,
  ProjectNotFoundError,
  SessionNotFoundError,
  MessageNotFoundError,
  ProjectHasSessionsError,
  ProjectArchivedError,
  FolderInUseError,
  SessionExistsError,
  LineageError,
  SessionAlreadyCompressedError,
} from './errors.js';
export type { Project, ProjectFolder, Session, SessionHeader, Message } from './rows.js';
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
  slugify,
} from './projects.js';
export type { CreateProjectInput, UpdateProjectInput } from './projects.js';
export { normalizeFolderPath, isUnderFolder, discoveredFolders } from './folders.js';
export type { DiscoveredFolder } from './folders.js';
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
export type { CreateSessionInput, UpsertSessionInput, ListSessionsOptions } from './sessions.js';
export { conversationRootId, conversationSegments, logicalConversation, logicalConversationIds, ownHistorySessionIds } from './conversation.js';
export type { ConversationMember } from './conversation.js';
export { createContinuation, createBranch, createReset, createDelegation } from './lineage.js';
export type { ContinuationResult } from './lineage.js';
export { setSessionProject } from './moves.js';
export type { MoveResult } from './moves.js';
export {
  appendMessage,
  appendMessages,
  editMessage,
  deleteMessage,
  rewindSession,
  compactMessages,
  getMessage,
  findMessage,
  getMessages,
} from './messages.js';
export type { AppendResult, GetMessagesOptions } from './messages.js';
export { MAX_MESSAGE_CHARS } from './validation.js';
export type { NewMessage } from './validation.js';
export { messageWindow, sessionHeadTail, firstVisibleMessage, lastVisibleMessage, segmentWindow, segmentsHeadTail } from './windows.js';
export type { MessageWindow, HeadTail, SegmentReadOptions } from './windows.js';
export { listConversations, conversationContaining, messagePage } from './pages.js';
export type { ConversationPage, ConversationPageItem, ListConversationsOptions, MessagePage, MessagePagePosition } from './pages.js';
export { recentConversations, recentSessionsBatchSql, MAX_SCANNED_SESSIONS } from './recent-conversations.js';
export type { RecentConversation, RecentConversationPage, RecentConversationOptions, RecentConversationScope } from './recent-conversations.js';
export { writeTransaction, readTransaction, bulkWrite } from './transaction.js';
// --- keyword search (fts, CJK, query parsing) ---
export { indexMessages, unindexMessages, reindexSessionsScope, refreshScopeTokens, ensureKeywordIndex, rebuildKeywordIndex, KEYWORD_INDEX_VERSION } from './fts-index.js';
export {
  keywordSearch,
  searchTitles,
  describeQuery,
  snippet,
  AUTOMATED_SOURCES,
  DEFAULT_KEYWORD_LIMIT,
  MAX_KEYWORD_LIMIT,
  DEFAULT_TITLE_LIMIT,
  MAX_TITLE_LIMIT,
  DEFAULT_SNIPPET_CHARS,
  HIGHLIGHT_OPEN,
  HIGHLIGHT_CLOSE,
  RANK_WINDOW,
  PARAPHRASE_COVERAGE,
  COMMON_CHARACTER_SHARE,
  COMMON_CHARACTER_MIN_DOCS,
  SUBSTRING_SCAN_MESSAGES,
} from './keyword-search.js';
export type {
  KeywordScope,
  KeywordSort,
  KeywordSearchOptions,
  KeywordSearchResult,
  KeywordHit,
  TitleHit,
  TitleSearchOptions,
  QuerySummary,
} from './keyword-search.js';
export { parseQuery, MAX_QUERY_CHARS, MAX_QUERY_TERMS } from './fts-query.js';
export type { ParsedQuery, QueryTerm, CjkBackoff } from './fts-query.js';
export { normalizeForSearch, MAX_INDEXED_CHARS } from './search-text.js';
