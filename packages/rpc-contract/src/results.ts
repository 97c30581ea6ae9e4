/**
 * What every method answers with: `RpcResults` (method → result type, for typed clients and for
 * the gateway's handlers, which are checked against it at compile time) and `RPC_RESULT_SCHEMAS`,
 * the zod schemas of the results the desktop UI reads, which gateway-rpc's result test parses real
 * answers with, so a drift between store, gateway and contract fails a test.
 */
import { z } from 'zod';
import type { ChatErrorCode } from './error-codes.js';
import type { ChatToolAnchor } from './events.js';
import type { RpcMethodName } from './method-table.js';
import {
  chatStatusSchema,
  continuationSchema,
  conversationPageItemSchema,
  conversationPageSchema,
  gatewayInfoSchema,
  importSummarySchema,
  indexConsentSchema,
  indexStatusSchema,
  messagePageSchema,
  messageSchema,
  moveResultSchema,
  projectSchema,
  resumeResultSchema,
  sessionSchema,
  type ChatRunStatus,
  type ChatStatus,
  type ContinuationResult,
  type ConversationPage,
  type ConversationPageItem,
  type DiscoveredFolder,
  type GatewayInfo,
  type ImportSummary,
  type IndexConsent,
  type IndexRunResult,
  type IndexStatus,
  type Message,
  type MessagePage,
  type MoveResult,
  type Project,
  type ResumeResult,
  type Session,
} from './objects.js';
import { sessionSearchResultSchema, type SearchResult } from './session-search.js';

/** One tool call of a chat run, as `chat.tool` reported it. */
export interface ChatToolReport {
  toolCallId: string;
  name: string;
  arguments: unknown;
  used_mode: string | null;
  hits: number;
  anchors: ChatToolAnchor[];
  error?: { code: string; message: string };
  messageId: number;
}

/** The result of a finished chat run (`chat.send` with `wait: true`). */
export interface ChatRunOutcome {
  runId: string;
  sessionId: string;
  userMessageId: number;
  status: Exclude<ChatRunStatus, 'running'>;
  /** The final assistant message (completed runs only). */
  messageId: number | null;
  content: string | null;
  /** Every message the run stored, in order, the user's first. */
  messageIds: number[];
  toolCalls: ChatToolReport[];
  /** Model requests made (completed runs; null otherwise). */
  rounds: number | null;
  error: { code: ChatErrorCode; message: string; retryable: boolean } | null;
  startedAt: number;
  finishedAt: number;
}

/** `chat.send` without `wait`: the run started; progress comes as chat.* events. */
export interface ChatSendStarted {
  runId: string;
  sessionId: string;
  userMessageId: number;
}

export interface RpcDiscoverResult {
  methods: Array<{ name: string; summary: string; params: Record<string, unknown> }>;
}

/** Method → result type. */
export interface RpcResults {
  'projects.list': { projects: Project[] };
  'projects.create': Project;
  'projects.update': Project;
  'projects.archive': Project;
  'projects.delete': { deleted: true };
  'projects.folders.add': Project;
  'projects.folders.remove': Project;
  'projects.for_folder': { project: Project; created: boolean };
  'projects.discovered': { folders: DiscoveredFolder[] };
  'session.create': Session;
  'session.resume': ResumeResult;
  'session.get': Session;
  'session.list': { sessions: Session[] };
  'session.messages': { messages: Message[] };
  'session.append': Message;
  'session.edit': Message;
  'session.delete': Message;
  'session.rewind': { rewound: number };
  'session.compact': { compacted: number };
  'session.compress': ContinuationResult;
  'session.branch': Session;
  'session.reset': Session;
  'session.title': Session;
  'session.project.set': MoveResult;
  'session.cwd.set': Session;
  'session.workspace.move': Session;
  'session.page': MessagePage;
  'conversations.list': ConversationPage;
  'conversations.get': ConversationPageItem;
  'search.session_search': SearchResult;
  'index.status': IndexStatus;
  'index.project.enable': IndexConsent;
  'index.project.disable': { projectId: string; enabled: false };
  'index.run': IndexRunResult;
  'index.pause': { state: string };
  'index.rebuild': { projectId: string | null; chunksDeleted: number };
  'import.jsonl': ImportSummary;
  'chat.status': ChatStatus;
  'chat.send': ChatSendStarted | ChatRunOutcome;
  'chat.cancel': { runId: string; cancelled: boolean; status: ChatRunStatus };
  'chat.compress': ContinuationResult;
  'gateway.info': GatewayInfo;
  'rpc.discover': RpcDiscoverResult;
}

export type RpcResult<M extends RpcMethodName> = RpcResults[M];

/** Result schemas of the methods the desktop UI reads (each one parsed against real answers in gateway-rpc's tests). */
export const RPC_RESULT_SCHEMAS = {
  'projects.list': z.strictObject({ projects: z.array(projectSchema) }),
  'projects.create': projectSchema,
  'projects.update': projectSchema,
  'projects.archive': projectSchema,
  'projects.for_folder': z.strictObject({ project: projectSchema, created: z.boolean() }),
  'session.create': sessionSchema,
  'session.resume': resumeResultSchema,
  'session.get': sessionSchema,
  'session.list': z.strictObject({ sessions: z.array(sessionSchema) }),
  'session.append': messageSchema,
  'session.title': sessionSchema,
  'session.project.set': moveResultSchema,
  'session.compress': continuationSchema,
  'session.page': messagePageSchema,
  'conversations.list': conversationPageSchema,
  'conversations.get': conversationPageItemSchema,
  'search.session_search': sessionSearchResultSchema,
  'index.status': indexStatusSchema,
  'index.project.enable': indexConsentSchema,
  'import.jsonl': importSummarySchema,
  'chat.status': chatStatusSchema,
  'chat.compress': continuationSchema,
  'gateway.info': gatewayInfoSchema,
} as const satisfies { [M in RpcMethodName]?: z.ZodType<RpcResults[M]> };
