/**
 * The objects methods answer with, as zod schemas, and their TypeScript types inferred from them
 * (so a type and its schema cannot disagree). camelCase, timestamps in integer milliseconds since
 * the epoch. The store's objects (Project, Session, Message) are strict: a field added or renamed
 * in the store fails gateway-rpc's result test until the contract says so, which is the point —
 * the desktop UI is typed against these, not against the store. The semantic index status is
 * strict too, for the same reason.
 */
import { z } from 'zod';
import { DOMAIN_ERROR_CODES, type ChatErrorCode } from './error-codes.js';
import { LINEAGE_KINDS, MESSAGE_ROLES, VISIBILITIES } from './vocabulary.js';

const ms = z.number().int().describe('milliseconds since the epoch');
const count = z.number().int().min(0);

export const projectFolderSchema = z.strictObject({ path: z.string(), isPrimary: z.boolean() });
export type ProjectFolder = z.output<typeof projectFolderSchema>;

export const projectSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  color: z.string().nullable(),
  icon: z.string().nullable(),
  archived: z.boolean(),
  createdAt: ms,
  updatedAt: ms,
  folders: z.array(projectFolderSchema),
  /** Non-hidden conversations of the project. */
  sessionCount: count,
});
export type Project = z.output<typeof projectSchema>;

export const sessionSchema = z.strictObject({
  id: z.string(),
  /** The only membership rule. null = "No project". */
  projectId: z.string().nullable(),
  parentSessionId: z.string().nullable(),
  lineage: z.enum(LINEAGE_KINDS),
  source: z.string(),
  title: z.string().nullable(),
  cwd: z.string().nullable(),
  gitRepoRoot: z.string().nullable(),
  gitBranch: z.string().nullable(),
  model: z.string().nullable(),
  startedAt: ms,
  endedAt: ms.nullable(),
  endReason: z.string().nullable(),
  archived: z.boolean(),
  hidden: z.boolean(),
  createdAt: ms,
  updatedAt: ms,
  /** Visible (live + compacted) messages. */
  messageCount: count,
  lastMessageAt: ms.nullable(),
});
export type Session = z.output<typeof sessionSchema>;

export const messageSchema = z.strictObject({
  id: z.number().int().positive(),
  sessionId: z.string(),
  role: z.enum(MESSAGE_ROLES),
  content: z.string(),
  toolName: z.string().nullable(),
  /** Tool calls as JSON text (the OpenAI `tool_calls` array). */
  toolCalls: z.string().nullable(),
  toolCallId: z.string().nullable(),
  externalId: z.string().nullable(),
  createdAt: ms,
  visibility: z.enum(VISIBILITIES),
  editedAt: ms.nullable(),
});
export type Message = z.output<typeof messageSchema>;

export const discoveredFolderSchema = z.strictObject({ path: z.string(), sessionCount: count });
export type DiscoveredFolder = z.output<typeof discoveredFolderSchema>;

/** `session.project.set`: exactly what was written. */
export const moveResultSchema = z.strictObject({ sessionIds: z.array(z.string()), projectId: z.string().nullable(), previousProjectId: z.string().nullable() });
export type MoveResult = z.output<typeof moveResultSchema>;

/** `session.compress` / `chat.compress`: the ended segment and its continuation. */
export const continuationSchema = z.strictObject({ previous: sessionSchema, session: sessionSchema });
export type ContinuationResult = z.output<typeof continuationSchema>;

/** One logical conversation of a sidebar group (`conversations.list` / `conversations.get`). */
export const conversationPageItemSchema = z.strictObject({
  /** The conversation's root session id (its stable key). */
  rootId: z.string(),
  /** Newest visible message (else start) over all listed members. */
  lastActivity: ms,
  /** Listed (not hidden, not archived) members, oldest start first. */
  sessions: z.array(sessionSchema),
});
export type ConversationPageItem = z.output<typeof conversationPageItemSchema>;

export const conversationPageSchema = z.strictObject({
  conversations: z.array(conversationPageItemSchema),
  /** Pass back as `cursor` for the next page; null when this page is the last. */
  nextCursor: z.string().nullable(),
  /** Conversations in this group (all pages). */
  total: count,
});
export type ConversationPage = z.output<typeof conversationPageSchema>;

/** `session.page`: a session and one page of its visible messages. */
export const messagePageSchema = z.strictObject({
  session: sessionSchema,
  messages: z.array(messageSchema),
  hasOlder: z.boolean(),
  hasNewer: z.boolean(),
  /** Only for `aroundMessageId`: false when that message is deleted, rewound or elsewhere. */
  anchorVisible: z.boolean().optional(),
});
export type MessagePage = z.output<typeof messagePageSchema>;

export const resumeResultSchema = z.strictObject({ session: sessionSchema, messages: z.array(messageSchema) });
export type ResumeResult = z.output<typeof resumeResultSchema>;

// --- index.status -------------------------------------------------------------------------------

export const SEMANTIC_STATUSES = ['disabled', 'ready', 'partial', 'unavailable'] as const;
export type SemanticStatusName = (typeof SEMANTIC_STATUSES)[number];
export const SEMANTIC_STATUS_REASONS = [
  'not_configured',
  'turned_off',
  'no_project',
  'no_project_enabled',
  'project_not_enabled',
  'consent_for_other_endpoint',
  'provider_unavailable',
  'planning',
  'indexing',
  'failed_chunks',
  'complete',
] as const;
export const WORKER_STATES = ['stopped', 'idle', 'running', 'paused', 'backoff'] as const;
export type WorkerState = (typeof WORKER_STATES)[number];

const coverageSchema = z.union([z.strictObject({ indexed: count, total: count }), z.literal('unknown')]);

export const indexProjectStatusSchema = z.strictObject({
  projectId: z.string(),
  name: z.string(),
  slug: z.string(),
  archived: z.boolean(),
  status: z.enum(SEMANTIC_STATUSES),
  reason: z.enum(SEMANTIC_STATUS_REASONS),
  consent: z.strictObject({ enabled: z.boolean(), endpoint: z.string().nullable(), enabledAt: ms.nullable() }),
  /** "unknown" while the project's conversations are still being planned — never estimated. */
  eligible: z.union([count, z.literal('unknown')]),
  ready: count,
  pending: count,
  failed: count,
  queuedSessions: count,
  lastError: z.string().nullable(),
});
export type IndexProjectStatus = z.output<typeof indexProjectStatusSchema>;

/** The embedding model the semantic index uses (never a key). */
export const indexProviderSchema = z.strictObject({
  provider: z.enum(['openai-compatible', 'use-lite']),
  /** Base URL that receives the text, or `local:use-lite` for the built-in model. */
  endpoint: z.string(),
  model: z.string(),
  dims: z.number().int().positive(),
  /** False for the built-in model: nothing leaves this computer. */
  remote: z.boolean(),
  languages: z.enum(['english-only', 'model-dependent']),
  maxInputTokens: z.number().int().positive(),
  maxBatch: z.number().int().positive(),
  fingerprintId: z.number().int(),
});
export type IndexProvider = z.output<typeof indexProviderSchema>;

export const indexWorkerSchema = z.strictObject({
  state: z.enum(WORKER_STATES),
  providerAvailable: z.boolean(),
  lastError: z.strictObject({ code: z.string(), message: z.string(), at: ms }).nullable(),
  lastSuccessAt: ms.nullable(),
  embedded: count,
});
export type IndexWorker = z.output<typeof indexWorkerSchema>;

export const indexStatusSchema = z.strictObject({
  semantic: z.strictObject({
    status: z.enum(SEMANTIC_STATUSES),
    reason: z.enum(SEMANTIC_STATUS_REASONS).optional(),
    howToConfigure: z.string().optional(),
    /** Sum over switched-on projects; `unknown` while any of them is still being planned. */
    coverage: coverageSchema.optional(),
    configured: z.boolean(),
    enabled: z.boolean(),
    provider: indexProviderSchema.nullable(),
    worker: indexWorkerSchema.nullable(),
    projects: z.array(indexProjectStatusSchema),
  }),
  /**
   * Visible messages, non-hidden sessions and the logical conversations they form (a compression
   * continuation or delegation folds into its parent, as the sidebar counts) — the keyword index is
   * always complete.
   */
  keyword: z.strictObject({ messages: count, sessions: count, conversations: count }),
});
export type IndexStatus = z.output<typeof indexStatusSchema>;

/** `index.project.enable`: the consent as the gateway recorded it, with the sentence to show. */
export const indexConsentSchema = z.strictObject({
  projectId: z.string(),
  enabled: z.literal(true),
  endpoint: z.string(),
  remote: z.boolean(),
  model: z.string(),
  includesNewMessages: z.literal(true),
  notice: z.string(),
});
export type IndexConsent = z.output<typeof indexConsentSchema>;

export const indexRunResultSchema = z.strictObject({
  started: z.literal(true),
  projectId: z.string().nullable(),
  /** Only with `wait: true`. */
  completed: z.boolean().optional(),
  reason: z.enum(['done', 'aborted', 'paused', 'stopped', 'unavailable']).optional(),
  written: count.optional(),
});
export type IndexRunResult = z.output<typeof indexRunResultSchema>;

export const indexDisableResultSchema = z.strictObject({ projectId: z.string(), enabled: z.literal(false) });
export const indexPauseResultSchema = z.strictObject({ state: z.enum(WORKER_STATES) });
export const indexRebuildResultSchema = z.strictObject({ projectId: z.string().nullable(), chunksDeleted: count });

// --- import, chat, gateway ----------------------------------------------------------------------

/** `import.jsonl` summary: rows created, updated and skipped, and line errors (by 1-based line). */
export const importSummarySchema = z.strictObject({
  lines: count,
  projects: count,
  sessions: count,
  messages: count,
  sessionsUpdated: count,
  skipped: count,
  errors: z.array(z.strictObject({ line: z.number().int().positive(), code: z.string(), message: z.string() })),
  errorCount: count,
});
export type ImportSummary = z.output<typeof importSummarySchema>;

export const chatStatusSchema = z.strictObject({
  configured: z.boolean(),
  model: z.string().optional(),
  baseUrl: z.string().optional(),
  apiKeySet: z.boolean(),
  missing: z.array(z.string()),
  howToConfigure: z.string(),
  searchAvailable: z.boolean(),
  limits: z.strictObject({ maxToolRounds: z.number().int(), turnTimeoutMs: z.number().int() }).optional(),
  activeRuns: z.array(z.strictObject({ runId: z.string(), sessionId: z.string(), userMessageId: z.number().int(), startedAt: ms })),
});
export type ChatStatus = z.output<typeof chatStatusSchema>;

export const CHAT_RUN_STATUSES = ['running', 'completed', 'cancelled', 'failed'] as const;
export type ChatRunStatus = (typeof CHAT_RUN_STATUSES)[number];

/** A `chat_*` code of the error table. */
export const chatErrorCodeSchema = z.custom<ChatErrorCode>((v) => typeof v === 'string' && v.startsWith('chat_') && Object.hasOwn(DOMAIN_ERROR_CODES, v), 'a chat_* error code');

/** A session_search anchor as `chat.tool` reports it: enough to render a link that opens the message. */
export const chatToolAnchorSchema = z.strictObject({ session_id: z.string(), message_id: z.number().int(), link: z.string() });
export type ChatToolAnchor = z.output<typeof chatToolAnchorSchema>;

/** One tool call of a chat run, as `chat.tool` reported it. */
export const chatToolReportSchema = z.strictObject({
  toolCallId: z.string(),
  name: z.string(),
  /** Parsed arguments as the model sent them (the raw string when they were not a JSON object). */
  arguments: z.unknown(),
  used_mode: z.string().nullable(),
  hits: count,
  anchors: z.array(chatToolAnchorSchema),
  error: z.strictObject({ code: z.string(), message: z.string() }).optional(),
  /** The stored tool message holding the full result JSON. */
  messageId: z.number().int(),
});
export type ChatToolReport = z.output<typeof chatToolReportSchema>;

/** The result of a finished chat run (`chat.send` with `wait: true`). */
export const chatRunOutcomeSchema = z.strictObject({
  runId: z.string(),
  sessionId: z.string(),
  userMessageId: z.number().int(),
  status: z.enum(['completed', 'cancelled', 'failed']),
  /** The final assistant message (completed runs only). */
  messageId: z.number().int().nullable(),
  content: z.string().nullable(),
  /** Every message the run stored, in order, the user's first. */
  messageIds: z.array(z.number().int()),
  toolCalls: z.array(chatToolReportSchema),
  /** Model requests made (completed runs; null otherwise). */
  rounds: z.number().int().nullable(),
  error: z.strictObject({ code: chatErrorCodeSchema, message: z.string(), retryable: z.boolean() }).nullable(),
  startedAt: ms,
  finishedAt: ms,
});
export type ChatRunOutcome = z.output<typeof chatRunOutcomeSchema>;

/** `chat.send` without `wait`: the run started; progress comes as chat.* events. */
export const chatSendStartedSchema = z.strictObject({ runId: z.string(), sessionId: z.string(), userMessageId: z.number().int() });
export type ChatSendStarted = z.output<typeof chatSendStartedSchema>;

export const chatCancelResultSchema = z.strictObject({ runId: z.string(), cancelled: z.boolean(), status: z.enum(CHAT_RUN_STATUSES) });

/** `gateway.info`: the profile served, and how an MCP client starts `recall mcp` on it. */
export const gatewayInfoSchema = z.strictObject({
  profile: z.string(),
  version: z.string(),
  searchAvailable: z.boolean(),
  /** Node + this installation's launcher + `mcp --home H [--profile P]`; add one scope flag. */
  mcpCommand: z.strictObject({ command: z.string(), args: z.array(z.string()) }),
});
export type GatewayInfo = z.output<typeof gatewayInfoSchema>;
