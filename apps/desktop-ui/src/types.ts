/**
 * Wire types of the gateway JSON-RPC contract as the UI sees them (docs/rpc-contract-draft.md).
 * Objects are camelCase with millisecond timestamps, except the search result, which is the
 * `session_search` tool's JSON verbatim (snake_case). Kept local on purpose: the UI talks to the
 * gateway over the wire and must not import runtime code from other packages. Agreement with the
 * gateway is tested: tests-e2e/test/wire-contract.test.ts checks every `RpcMethods` entry against
 * the running gateway's `rpc.discover` schemas and docs/rpc.md.
 */

export type Role = 'user' | 'assistant' | 'system' | 'tool';
export type Visibility = 'live' | 'compacted' | 'rewound' | 'deleted';
export type Lineage = 'root' | 'compression' | 'branch' | 'reset' | 'delegation';
export type SearchMode = 'hybrid' | 'keyword' | 'semantic';
export type SemanticStatus = 'disabled' | 'ready' | 'partial' | 'unavailable' | 'unknown';

export interface ProjectFolder {
  path: string;
  isPrimary: boolean;
}

export interface Project {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  color: string | null;
  icon: string | null;
  archived: boolean;
  createdAt: number;
  updatedAt: number;
  folders: ProjectFolder[];
  sessionCount: number;
}

export interface Session {
  id: string;
  /** The only membership rule. null = "No project". */
  projectId: string | null;
  parentSessionId: string | null;
  lineage: Lineage;
  source: string;
  title: string | null;
  cwd: string | null;
  gitRepoRoot: string | null;
  gitBranch: string | null;
  model: string | null;
  startedAt: number;
  endedAt: number | null;
  endReason: string | null;
  archived: boolean;
  hidden: boolean;
  createdAt: number;
  updatedAt: number;
  messageCount: number;
  lastMessageAt: number | null;
}

export interface Message {
  id: number;
  sessionId: string;
  role: Role;
  content: string;
  toolName: string | null;
  toolCalls: string | null;
  toolCallId: string | null;
  externalId: string | null;
  createdAt: number;
  visibility: Visibility;
  editedAt: number | null;
}

export interface DiscoveredFolder {
  path: string;
  sessionCount: number;
}

/** One message of a result's surrounding window (search-tool WindowMessage). */
export interface SearchWindowMessage {
  message_id: number;
  role: Role | string;
  /** Absent on the anchor's own entry: its text is the hit's `snippet` (the tool never sends it twice). */
  text?: string;
  date?: string;
  is_anchor?: boolean;
  [key: string]: unknown;
}

/** One result of `session_search` (search-tool SearchResultItem); extra fields are tolerated. */
export interface SearchHit {
  session_id: string;
  message_id: number;
  /** `recall://session/<sid>#m<mid>` */
  link?: string;
  role?: Role | string;
  /** Matches are marked «like this» by the keyword path. */
  snippet?: string;
  /** How it was found. Older tools report a title match as `title`; newer ones as `keyword` + `match_field: "title"`. */
  match_source?: 'keyword' | 'semantic' | 'both' | 'title' | 'direct' | string;
  /** Where a keyword match was (newer tools, discover only). */
  match_field?: 'title' | 'message' | string;
  window?: SearchWindowMessage[];
  title?: string | null;
  /** ISO date of the anchor message. */
  date?: string | number | null;
  session_date?: string;
  other_message_ids?: number[];
  is_current_session?: boolean;
  [key: string]: unknown;
}

export interface SearchResult {
  shape?: 'discover' | 'browse' | 'read' | 'scroll' | null;
  requested_mode?: SearchMode | string;
  used_mode?: SearchMode | 'direct' | 'none' | string;
  semantic_status?: SemanticStatus | string;
  semantic_coverage?: Coverage | 'unknown' | null;
  /** The scope the tool resolved from the current session's stored project. */
  scope?: { kind: 'project' | 'own_conversation' | string; project_id: string | null };
  query?: string | null;
  notes?: string[];
  results?: SearchHit[];
  truncated?: boolean;
  error?: { code: string; message: string };
  [key: string]: unknown;
}

export interface SearchParams {
  /** The caller's current (open) conversation: the trusted context that decides the project. */
  sessionId: string;
  query?: string;
  search_mode?: SearchMode;
  limit?: number;
  sort?: 'relevance' | 'newest' | 'oldest';
  role_filter?: string[];
  session_id?: string;
  around_message_id?: number;
  window?: number;
}

/** Coverage counts are reported in whatever units the gateway knows; the UI normalises them. */
export type Coverage = Record<string, unknown>;

/** The embedding model the semantic index uses (never a key). */
export interface IndexProvider {
  provider: 'openai-compatible' | 'use-lite' | string;
  /** Base URL that receives the text, or `local:use-lite` for the built-in model. */
  endpoint: string;
  model: string;
  dims: number;
  /** False for the built-in model: nothing leaves this computer. */
  remote: boolean;
  languages?: 'english-only' | 'model-dependent' | string;
}

export interface IndexWorker {
  state: 'stopped' | 'idle' | 'running' | 'paused' | 'backoff' | string;
  providerAvailable: boolean;
  lastError: { code: string; message: string; at: number } | null;
  lastSuccessAt: number | null;
  embedded: number;
}

/** One project's semantic coverage (chunks of the active model). */
export interface IndexProjectStatus {
  projectId: string;
  name: string;
  slug?: string;
  archived?: boolean;
  status: SemanticStatus | string;
  reason: string;
  consent: { enabled: boolean; endpoint: string | null; enabledAt: number | null };
  /** "unknown" while conversations are still being planned — never estimated. */
  eligible: number | 'unknown';
  ready: number;
  pending: number;
  failed: number;
  queuedSessions?: number;
  lastError: string | null;
}

export interface IndexStatus {
  semantic: {
    status: SemanticStatus | string;
    reason?: string;
    howToConfigure?: string;
    coverage?: Coverage | 'unknown';
    configured?: boolean;
    enabled?: boolean;
    provider?: IndexProvider | null;
    worker?: IndexWorker | null;
    projects?: IndexProjectStatus[];
    [key: string]: unknown;
  };
  keyword: { messages: number; sessions: number; [key: string]: unknown };
}

/** `index.project.enable`: the consent as the gateway recorded it, with the sentence to show. */
export interface IndexConsent {
  projectId: string;
  enabled: true;
  endpoint: string;
  remote: boolean;
  model: string;
  includesNewMessages: boolean;
  notice: string;
}

/** `import.jsonl` summary: rows created, updated and skipped, and line errors (by 1-based line). */
export interface ImportResult {
  lines?: number;
  projects: number;
  sessions: number;
  messages: number;
  sessionsUpdated?: number;
  skipped?: number;
  errors: Array<{ line: number; code: string; message: string }>;
  errorCount?: number;
}

export type GatewayEventType = 'projects.changed' | 'sessions.changed' | 'messages.changed' | 'index.changed';

export interface GatewayEvent {
  type: GatewayEventType;
  projectIds?: string[];
  sessionIds?: string[];
  messageIds?: number[];
  /** A session joined or left "No project". */
  unassigned?: boolean;
}

/** A session_search anchor as reported by `chat.tool`. */
export interface ChatToolAnchor {
  session_id: string;
  message_id: number;
  link: string;
}

export interface ChatStartedEvent {
  type: 'chat.started';
  sessionId: string;
  runId: string;
  userMessageId: number;
}

export interface ChatDeltaEvent {
  type: 'chat.delta';
  sessionId: string;
  runId: string;
  /** 1-based model request within the turn (a new round starts after tool results). */
  round: number;
  text: string;
}

export interface ChatToolEvent {
  type: 'chat.tool';
  sessionId: string;
  runId: string;
  round: number;
  toolCallId: string;
  name: string;
  /** Parsed arguments (the raw string when they were not JSON). */
  arguments: unknown;
  used_mode: string | null;
  hits: number;
  anchors: ChatToolAnchor[];
  error?: { code: string; message: string };
  /** The stored tool message holding the full result. */
  messageId: number;
}

export interface ChatDoneEvent {
  type: 'chat.done';
  sessionId: string;
  runId: string;
  messageId: number;
  status: 'completed';
}

export interface ChatErrorEvent {
  type: 'chat.error';
  sessionId: string;
  runId: string;
  status: 'cancelled' | 'failed';
  code: string;
  message: string;
  retryable: boolean;
  messageIds: number[];
}

export type ChatEvent = ChatStartedEvent | ChatDeltaEvent | ChatToolEvent | ChatDoneEvent | ChatErrorEvent;

/** Not from the gateway: the event socket reconnected, so anything may have been missed. */
export interface ResyncEvent {
  type: 'resync';
}

/** Everything the event bus carries. */
export type AnyEvent = GatewayEvent | ChatEvent | ResyncEvent;

export interface ChatStatus {
  configured: boolean;
  model?: string;
  baseUrl?: string;
  apiKeySet: boolean;
  missing: string[];
  howToConfigure: string;
  searchAvailable: boolean;
  limits?: { maxToolRounds: number; turnTimeoutMs: number };
  activeRuns: Array<{ runId: string; sessionId: string; userMessageId: number; startedAt: number }>;
}

/** `gateway.info`: the profile served, and how an MCP client starts `recall mcp` on it. */
export interface GatewayInfo {
  profile: string;
  version: string;
  searchAvailable: boolean;
  /** Node + this installation's launcher + `mcp --home H [--profile P]`; add one scope flag. */
  mcpCommand?: { command: string; args: string[] };
}

/** One page of a session's visible messages (`session.page`). */
export interface MessagePage {
  session: Session;
  messages: Message[];
  hasOlder: boolean;
  hasNewer: boolean;
  /** Only for `aroundMessageId`: false when that message is deleted, rewound or elsewhere. */
  anchorVisible?: boolean;
}

/** One logical conversation of a sidebar group (`conversations.list` / `conversations.get`). */
export interface ConversationPageItem {
  rootId: string;
  lastActivity: number;
  sessions: Session[];
}

export interface ConversationPage {
  conversations: ConversationPageItem[];
  nextCursor: string | null;
  total: number;
}

/** Method map: name → params and result. Drives the typed `rpc.call`. */
export interface RpcMethods {
  'projects.list': { params: { includeArchived?: boolean }; result: { projects: Project[] } };
  'projects.create': {
    params: { name: string; description?: string; color?: string; icon?: string; folders?: string[] };
    result: Project;
  };
  'projects.update': {
    params: { projectId: string; name?: string; description?: string; color?: string; icon?: string };
    result: Project;
  };
  'projects.archive': { params: { projectId: string; archived?: boolean }; result: Project };
  'projects.folders.add': { params: { projectId: string; path: string; primary?: boolean }; result: Project };
  'projects.for_folder': { params: { path: string; name?: string }; result: { project: Project; created: boolean } };
  'projects.discovered': { params: { limit?: number }; result: { folders: DiscoveredFolder[] } };
  'session.create': {
    params: {
      projectId?: string | null;
      title?: string;
      cwd?: string;
      source?: string;
      model?: string;
      messages?: Array<{ role: Role; content: string }>;
    };
    result: Session;
  };
  'session.resume': { params: { sessionId: string; limit?: number }; result: { session: Session; messages: Message[] } };
  'session.get': { params: { sessionId: string }; result: Session };
  'gateway.info': { params: Record<string, never>; result: GatewayInfo };
  'session.page': {
    params: { sessionId: string; at?: 'oldest' | 'newest'; aroundMessageId?: number; beforeId?: number; afterId?: number; limit?: number };
    result: MessagePage;
  };
  'conversations.list': { params: { projectId: string | null; limit?: number; cursor?: string }; result: ConversationPage };
  'conversations.get': { params: { sessionId: string }; result: ConversationPageItem };
  'session.list': {
    params: { projectId?: string | null; includeArchived?: boolean; limit?: number; offset?: number };
    result: { sessions: Session[] };
  };
  'session.append': { params: { sessionId: string; role: Role; content: string }; result: Message };
  'chat.status': { params: Record<string, never>; result: ChatStatus };
  'chat.send': { params: { sessionId: string; content: string }; result: { runId: string; sessionId: string; userMessageId: number } };
  'chat.cancel': { params: { runId: string }; result: { runId: string; cancelled: boolean; status: string } };
  'chat.compress': { params: { sessionId: string; note?: string; title?: string }; result: { previous: Session; session: Session } };
  'session.title': { params: { sessionId: string; title: string }; result: Session };
  'session.project.set': {
    params: { sessionId: string; projectId: string | null };
    result: { sessionIds: string[]; projectId: string | null; previousProjectId: string | null };
  };
  'session.cwd.set': {
    params: { sessionId: string; cwd: string; gitRepoRoot?: string; gitBranch?: string };
    result: Session;
  };
  'search.session_search': { params: SearchParams; result: SearchResult };
  'index.status': { params: { projectId?: string }; result: IndexStatus };
  'index.project.enable': { params: { projectId: string }; result: IndexConsent };
  'index.project.disable': { params: { projectId: string }; result: { projectId: string; enabled: false } };
  'index.run': { params: { projectId?: string }; result: { started: boolean; projectId: string | null } };
  'index.pause': { params: Record<string, never>; result: { state: string } };
  'index.rebuild': { params: { projectId?: string }; result: { projectId: string | null; chunksDeleted: number } };
  /** Import a recall-jsonl v1 text (proposed by the UI; implemented in gateway-rpc methods/import.ts). */
  'import.jsonl': { params: { text: string }; result: ImportResult };
}

export type RpcMethod = keyof RpcMethods;
