/**
 * Public surface of @recall/rpc-contract: the gateway's JSON-RPC contract in one place, imported by
 * the gateway (which validates params with these exact schemas and types its handlers' results
 * against `RpcResults`) and by the desktop UI (which types its calls and events with them). zod
 * only: no Node built-ins, no SQLite, no other @recall package (a test checks the imports), so Vite
 * bundles it for the browser. The params schemas are built from field helpers (fields.ts) that are
 * not exported: validate with `RPC_METHODS[name].params`.
 */
export { MESSAGE_ROLES, VISIBILITIES, LINEAGE_KINDS, SEARCH_MODES, SORTS, MAX_MESSAGE_CHARS, WRITING_SCRIPTS } from './vocabulary.js';
export type { MessageRole, Visibility, LineageKind, SearchMode, SearchSort, WritingScript } from './vocabulary.js';
export type { MethodSpec } from './method-spec.js';
export { RPC_METHODS, RPC_METHOD_NAMES, isRpcMethodName } from './method-table.js';
export type { RpcMethodName, RpcParams, RpcParamsInput } from './method-table.js';
export { DATE_BOUND_PATTERN, TOOL_ERROR_CODES, sessionSearchArgsSchema, sessionSearchResultSchema } from './session-search.js';
export type { ToolErrorCode, SessionSearchArgs, SessionSearchArgsInput, SearchResult, SearchHit, SearchWindowMessage } from './session-search.js';
export {
  projectFolderSchema,
  projectSchema,
  sessionSchema,
  messageSchema,
  discoveredFolderSchema,
  moveResultSchema,
  continuationSchema,
  conversationPageItemSchema,
  conversationPageSchema,
  messagePageSchema,
  resumeResultSchema,
  indexProjectStatusSchema,
  indexProviderSchema,
  indexWorkerSchema,
  indexStatusSchema,
  indexConsentSchema,
  indexRunResultSchema,
  importSummarySchema,
  chatStatusSchema,
  gatewayInfoSchema,
  indexDisableResultSchema,
  indexPauseResultSchema,
  indexRebuildResultSchema,
  chatToolAnchorSchema,
  chatToolReportSchema,
  chatRunOutcomeSchema,
  chatSendStartedSchema,
  chatCancelResultSchema,
  SEMANTIC_STATUSES,
  SEMANTIC_STATUS_REASONS,
  WORKER_STATES,
  CHAT_RUN_STATUSES,
} from './objects.js';
export type {
  ProjectFolder,
  Project,
  Session,
  Message,
  DiscoveredFolder,
  MoveResult,
  ContinuationResult,
  ConversationPageItem,
  ConversationPage,
  MessagePage,
  ResumeResult,
  SemanticStatusName,
  IndexProjectStatus,
  IndexProvider,
  IndexWorker,
  IndexStatus,
  IndexConsent,
  IndexRunResult,
  ImportSummary,
  ChatStatus,
  ChatRunStatus,
  ChatToolAnchor,
  ChatToolReport,
  ChatRunOutcome,
  ChatSendStarted,
  WorkerState,
  GatewayInfo,
} from './objects.js';
export { RPC_RESULT_SCHEMAS, rpcDiscoverResultSchema, exportResultSchema, purgeResultSchema } from './results.js';
export type { RpcResults, RpcResult, RpcDiscoverResult, ExportResult, PurgeResultWire } from './results.js';
/** The export formats of `recall export` and the `*.export` methods: `recall-jsonl` (re-importable) and `markdown` (for people). */
export { EXPORT_FORMAT_NAMES } from './methods/data.js';
export { EVENT_NOTIFICATION_METHOD, EVENT_TYPES, CHAT_EVENT_TYPES } from './events.js';
export {
  gatewayEventSchema,
  chatStartedEventSchema,
  chatDeltaEventSchema,
  chatToolEventSchema,
  chatDoneEventSchema,
  chatErrorEventSchema,
  wireEventSchema,
  EVENT_SCHEMA_TYPES,
} from './event-schemas.js';
export type {
  GatewayEvent,
  GatewayEventType,
  ChatEvent,
  ChatEventType,
  ChatStartedEvent,
  ChatDeltaEvent,
  ChatToolEvent,
  ChatDoneEvent,
  ChatErrorEvent,
  WireEvent,
} from './events.js';
export {
  JSONRPC_PARSE_ERROR,
  JSONRPC_INVALID_REQUEST,
  JSONRPC_METHOD_NOT_FOUND,
  JSONRPC_INVALID_PARAMS,
  JSONRPC_INTERNAL_ERROR,
  DOMAIN_ERROR_CODES,
  DOMAIN_ERROR_FALLBACK,
} from './error-codes.js';
export type { DomainErrorCode, ChatErrorCode } from './error-codes.js';
