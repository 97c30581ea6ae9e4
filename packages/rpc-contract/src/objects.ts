/**
 * The objects methods answer with, as zod schemas, and their TypeScript types inferred from them
 * (so a type and its schema cannot disagree). camelCase, timestamps in integer milliseconds since
 * the epoch. Project, Session, Message and the other shapes @recall/store returns are defined here
 * once and the store is typed with them, so a field added in the store's SQL mapping fails its
 * typecheck until the contract says so; the schemas are strict, so gateway-rpc's result test fails
 * on any key the contract does not name. The semantic index status is strict too, for the same
 * reason.
 */
import { z } from 'zod';
import { DOMAIN_ERROR_CODES, type ChatErrorCode } from './error-codes.js';
import { LINEAGE_KINDS, MESSAGE_ROLES, VISIBILITIES } from './vocabulary.js';

const ms = z.number().int().describe('milliseconds since the epoch');
const count = z.number().int().min(0);

/** A folder attached to a project as metadata (default cwd, repository discovery); never decides membership. `isPrimary`: the project's default folder. */
export const projectFolderSchema = z.strictObject({ path: z.string(), isPrimary: z.boolean() });
/** A project folder on the wire (see projectFolderSchema). */
export type ProjectFolder = z.output<typeof projectFolderSchema>;

/** A project as every `projects.*` method returns it (strict: unknown keys fail). `slug` is unique per profile; timestamps are ms since the epoch. */
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
/** A project on the wire (see projectSchema); also the store's project type. */
export type Project = z.output<typeof projectSchema>;

/** A session (one segment of a conversation) as `session.*` methods return it (strict). `projectId` null = "No project"; `messageCount` counts live + compacted messages. */
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
/** A session on the wire (see sessionSchema); also the store's session type. */
export type Session = z.output<typeof sessionSchema>;

/** A stored message as `session.messages` / `session.append` return it (strict). `id` is a positive integer, unique per profile. */
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
/** A message on the wire (see messageSchema); also the store's message type. */
export type Message = z.output<typeof messageSchema>;

/** `projects.discovered`: a folder conversations ran in that no project folder covers, with how many non-hidden sessions ran there. */
export const discoveredFolderSchema = z.strictObject({ path: z.string(), sessionCount: count });
/** A discovered folder on the wire (see discoveredFolderSchema). */
export type DiscoveredFolder = z.output<typeof discoveredFolderSchema>;

/** `session.project.set`: exactly what was written. */
export const moveResultSchema = z.strictObject({ sessionIds: z.array(z.string()), projectId: z.string().nullable(), previousProjectId: z.string().nullable() });
/** What a move wrote (see moveResultSchema): every session of the logical conversation, and the old and new project (null = none). */
export type MoveResult = z.output<typeof moveResultSchema>;

/** `session.compress` / `chat.compress`: the ended segment and its continuation. */
export const continuationSchema = z.strictObject({ previous: sessionSchema, session: sessionSchema });
/** A compression's result (see continuationSchema): the ended segment and the new continuation. */
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
/** One logical conversation of a sidebar page (see conversationPageItemSchema). */
export type ConversationPageItem = z.output<typeof conversationPageItemSchema>;

/** `conversations.list`: one page of a project's (or "No project"'s) logical conversations, newest activity first. */
export const conversationPageSchema = z.strictObject({
  conversations: z.array(conversationPageItemSchema),
  /** Pass back as `cursor` for the next page; null when this page is the last. */
  nextCursor: z.string().nullable(),
  /** Conversations in this group (all pages). */
  total: count,
});
/** One page of conversations (see conversationPageSchema). */
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
/** A session with one page of its visible messages (see messagePageSchema). */
export type MessagePage = z.output<typeof messagePageSchema>;

/** `session.resume`: the session and its visible messages in id order. */
export const resumeResultSchema = z.strictObject({ session: sessionSchema, messages: z.array(messageSchema) });
/** A resumed session with its messages (see resumeResultSchema). */
export type ResumeResult = z.output<typeof resumeResultSchema>;

// --- index.status -------------------------------------------------------------------------------

/** State of the semantic index for a project or the profile: off, complete, still indexing, or its provider unreachable. */
export const SEMANTIC_STATUSES = ['disabled', 'ready', 'partial', 'unavailable'] as const;
/** One of SEMANTIC_STATUSES. */
export type SemanticStatusName = (typeof SEMANTIC_STATUSES)[number];
/** Why the semantic index is in its status (`index.status`'s `reason`), e.g. `not_configured` or `project_not_enabled`. */
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
/** States of the background embedding worker (`index.status`'s `worker.state`, `index.pause`). */
export const WORKER_STATES = ['stopped', 'idle', 'running', 'paused', 'backoff'] as const;
/** One of WORKER_STATES. */
export type WorkerState = (typeof WORKER_STATES)[number];

const coverageSchema = z.union([z.strictObject({ indexed: count, total: count }), z.literal('unknown')]);

/** `index.status`: one project's semantic index — consent, status and reason, chunk counts (`eligible` is "unknown" while planning) and the last error. */
export const indexProjectStatusSchema = z.strictObject({
  projectId: z.string(),
  name: z.string(),
  slug: z.string(),
  archived: z.boolean(),
  status: z.enum(SEMANTIC_STATUSES),
  reason: z.enum(SEMANTIC_STATUS_REASONS),
  consent: z.strictObject({
    enabled: z.boolean(),
    endpoint: z.string().nullable(),
    enabledAt: ms.nullable(),
    /** The reranker the consent named too (null = none); reranking runs only while it is the configured one. */
    rerankEndpoint: z.string().nullable().optional(),
  }),
  /** "unknown" while the project's conversations are still being planned — never estimated. */
  eligible: z.union([count, z.literal('unknown')]),
  ready: count,
  pending: count,
  failed: count,
  queuedSessions: count,
  lastError: z.string().nullable(),
  /**
   * Share (0-1) of Chinese/Japanese/Korean characters among the letters of a sample of the
   * project's newest messages; null when it has no text. Only reported while the embedding model
   * is English-only, so a client can warn that the model cannot read the project's language.
   */
  cjkShare: z.number().min(0).max(1).nullable().optional(),
});
/** One project's semantic index status (see indexProjectStatusSchema). */
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
  /** The reranker that also receives the query and top matches at search time (`semantic.rerank`), when one is configured. */
  reranker: z.strictObject({ endpoint: z.string(), model: z.string().nullable() }).optional(),
});
/** The embedding provider of the semantic index (see indexProviderSchema). */
export type IndexProvider = z.output<typeof indexProviderSchema>;

/** `index.status`: the embedding worker's state, whether its provider answers, its last error and success, and how many chunks it embedded. */
export const indexWorkerSchema = z.strictObject({
  state: z.enum(WORKER_STATES),
  providerAvailable: z.boolean(),
  lastError: z.strictObject({ code: z.string(), message: z.string(), at: ms }).nullable(),
  lastSuccessAt: ms.nullable(),
  embedded: count,
});
/** The embedding worker's state (see indexWorkerSchema). */
export type IndexWorker = z.output<typeof indexWorkerSchema>;

/** `index.status`: the semantic index (status, coverage, provider, worker, per-project rows) and the always-complete keyword index counts. */
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
/** The profile's index status (see indexStatusSchema). */
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
  /** The reranker the consent covers too (it receives the query and top matches at search time), when configured. */
  reranker: z.strictObject({ endpoint: z.string(), model: z.string().nullable() }).optional(),
});
/** A recorded consent to send a project's messages to an embedding endpoint (see indexConsentSchema). */
export type IndexConsent = z.output<typeof indexConsentSchema>;

/** `index.run`: the worker started; with `wait: true` also whether it completed, why it stopped and how many chunks it wrote. */
export const indexRunResultSchema = z.strictObject({
  started: z.literal(true),
  projectId: z.string().nullable(),
  /** Only with `wait: true`. */
  completed: z.boolean().optional(),
  reason: z.enum(['done', 'aborted', 'paused', 'stopped', 'unavailable']).optional(),
  written: count.optional(),
});
/** The result of `index.run` (see indexRunResultSchema). */
export type IndexRunResult = z.output<typeof indexRunResultSchema>;

/** `index.project.disable`: semantic indexing is off for the project. */
export const indexDisableResultSchema = z.strictObject({ projectId: z.string(), enabled: z.literal(false) });
/** `index.pause`: the worker's state after the pause. */
export const indexPauseResultSchema = z.strictObject({ state: z.enum(WORKER_STATES) });
/** `index.rebuild`: the project rebuilt (null = every project) and how many chunks were deleted to be embedded again. */
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
/** An import's summary (see importSummarySchema); `errors` lists at most the first line errors, `errorCount` counts all. */
export type ImportSummary = z.output<typeof importSummarySchema>;

/** `chat.status`: whether the chat model is configured (never the key itself), what is missing and how to configure it, limits and the runs in progress. */
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
/** The chat configuration and active runs (see chatStatusSchema). */
export type ChatStatus = z.output<typeof chatStatusSchema>;

/** States of a chat run: still running, or how it ended. */
export const CHAT_RUN_STATUSES = ['running', 'completed', 'cancelled', 'failed'] as const;
/** One of CHAT_RUN_STATUSES. */
export type ChatRunStatus = (typeof CHAT_RUN_STATUSES)[number];

/** A `chat_*` code of the error table. */
export const chatErrorCodeSchema = z.custom<ChatErrorCode>((v) => typeof v === 'string' && v.startsWith('chat_') && Object.hasOwn(DOMAIN_ERROR_CODES, v), 'a chat_* error code');

/** A session_search anchor as `chat.tool` reports it: enough to render a link that opens the message. */
export const chatToolAnchorSchema = z.strictObject({ session_id: z.string(), message_id: z.number().int(), link: z.string() });
/** A message link a chat tool call found (see chatToolAnchorSchema). */
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
/** One tool call of a chat run (see chatToolReportSchema). */
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
/** A finished chat run (see chatRunOutcomeSchema); `error` is set when it was cancelled or failed. */
export type ChatRunOutcome = z.output<typeof chatRunOutcomeSchema>;

/** `chat.send` without `wait`: the run started; progress comes as chat.* events. */
export const chatSendStartedSchema = z.strictObject({ runId: z.string(), sessionId: z.string(), userMessageId: z.number().int() });
/** A started chat run (see chatSendStartedSchema). */
export type ChatSendStarted = z.output<typeof chatSendStartedSchema>;

/** `chat.cancel`: whether this call cancelled the run, and its status now. */
export const chatCancelResultSchema = z.strictObject({ runId: z.string(), cancelled: z.boolean(), status: z.enum(CHAT_RUN_STATUSES) });

/** `gateway.info`: the profile served, and how an MCP client starts `recall mcp` on it. */
export const gatewayInfoSchema = z.strictObject({
  profile: z.string(),
  version: z.string(),
  searchAvailable: z.boolean(),
  /** Node + this installation's launcher + `mcp --home H [--profile P]`; add one scope flag. */
  mcpCommand: z.strictObject({ command: z.string(), args: z.array(z.string()) }),
  /**
   * Secrets redacted by this gateway process since it started, per outgoing surface (`embedding`,
   * `chat`, `search_results`): whether the surface's full pass is on, the spans replaced, and per kind
   * (`github_token`, `private`, …). Absent from a gateway without a redaction policy.
   */
  redaction: z
    .strictObject({
      surfaces: z.record(
        z.enum(['embedding', 'chat', 'search_results']),
        z.strictObject({ enabled: z.boolean(), redactions: z.number().int().min(0), byKind: z.record(z.string(), z.number().int().min(0)) }),
      ),
    })
    .optional(),
});
/** The gateway's profile, version and MCP launch command (see gatewayInfoSchema). */
export type GatewayInfo = z.output<typeof gatewayInfoSchema>;
