/**
 * SessionStore: sessions (conversation segments), their explicit movable ownership, lineage
 * (compression continuations, branches, resets, delegations) and the logical conversations built
 * from it. Shaped from today's callers: search-tool (header, project id, conversation root,
 * segments, own history, recent conversations), importers (create/upsert/update/find), chat
 * (get, logical conversation), gateway-rpc `session.*` / `conversations.*` methods, the CLI (mv, list).
 */
import type { ContinuationResult, ConversationPage, ConversationPageItem, LineageKind, Message, MessageRole, MoveResult, Session } from '@recall/rpc-contract';
import type { MessageInput } from './messages.js';

/** A session's own row without the visible-message aggregates (one primary-key read). */
export type SessionRecord = Omit<Session, 'messageCount' | 'lastMessageAt'>;

/** Session fields a write may set; omitted fields keep their value, null clears a nullable one. The project is not among them. */
export interface SessionChanges {
  title?: string | null;
  cwd?: string | null;
  gitRepoRoot?: string | null;
  gitBranch?: string | null;
  model?: string | null;
  source?: string;
  startedAt?: number;
  endedAt?: number | null;
  endReason?: string | null;
  archived?: boolean;
  hidden?: boolean;
}

/**
 * A new session: `id` defaults to a new `s_…`; `projectId` null/omitted = no project; `lineage`
 * defaults to root (which has no parent); first `messages` are stored in the same transaction.
 */
export interface NewSession extends SessionChanges {
  id?: string;
  projectId?: string | null;
  parentSessionId?: string | null;
  lineage?: LineageKind;
  messages?: readonly MessageInput[];
}

/** Create-or-update by id: `projectId` omitted keeps the stored project, null clears it, another id moves the conversation. */
export interface SessionUpsert extends NewSession {
  id: string;
}

/** Options of SessionStore.list: undefined projectId = every project, null = only project-less sessions. */
export interface SessionListOptions {
  projectId?: string | null;
  includeArchived?: boolean;
  includeHidden?: boolean;
  /** 1..5000, default 200. */
  limit?: number;
  offset?: number;
}

/** One session of a logical conversation: id, lineage, parent and depth below the root (root = 0). */
export interface ConversationNode {
  id: string;
  lineage: string;
  parentSessionId: string | null;
  depth: number;
}

/** Options of SessionStore.listConversations (`conversations.list`). */
export interface ConversationListOptions {
  /** A project id, or null for the conversations without a project. */
  projectId: string | null;
  /** 1..500, default 50. */
  limit?: number;
  /** A previous page's nextCursor. */
  cursor?: string | null;
}

/** Where recentConversations looks: one project's sessions or an explicit list of sessions. */
export type RecentScope = { kind: 'project'; projectId: string } | { kind: 'sessions'; sessionIds: readonly string[] };

/** Options of SessionStore.recentConversations (the search tool's browse shape). */
export interface RecentOptions {
  limit: number;
  order: 'newest' | 'oldest';
  roles?: readonly MessageRole[];
  /**
   * Only messages created at or after this time (epoch ms): a conversation with no visible message
   * in [since, until) is skipped like an empty one, and its first/last messages are the range's.
   */
  since?: number;
  /** Only messages created before this time (epoch ms, exclusive); see `since`. */
  until?: number;
}

/** One recent logical conversation: its root, compression segments, first and last visible messages. */
export interface RecentConversationEntry {
  rootId: string;
  segments: string[];
  first: Message;
  last: Message;
}

/** A page of recent conversations; `scanBounded` when the walk stopped at its bound. */
export interface RecentConversationList {
  conversations: RecentConversationEntry[];
  truncated: boolean;
  scanBounded: boolean;
}

/** Options of the lineage writes. */
export interface LineageOptions {
  id?: string;
  title?: string | null;
}

/** Sessions, ownership, lineage and logical conversations. */
export interface SessionStore {
  /**
   * Creates a session (and its first messages, atomically). Throws invalid_input, session_exists,
   * invalid_lineage, session_not_found (parent), project_not_found, project_archived, session_already_compressed.
   */
  create(input?: NewSession): Promise<Session>;
  /** Create-or-update by id (see SessionUpsert). Throws what create and move throw, invalid_lineage on a lineage/parent change. */
  upsert(input: SessionUpsert): Promise<Session>;
  /** Changes fields (never the project). Throws invalid_input, session_not_found. */
  update(sessionId: string, changes: SessionChanges): Promise<Session>;
  /** The session with its visible-message count and last message time; throws session_not_found. */
  get(sessionId: string): Promise<Session>;
  /** The session, or undefined. */
  find(sessionId: string): Promise<Session | undefined>;
  /** The session's own row; throws session_not_found. */
  getRecord(sessionId: string): Promise<SessionRecord>;
  /** The session's own row, or undefined. */
  findRecord(sessionId: string): Promise<SessionRecord | undefined>;
  /** The own rows of many sessions at once, by id (unknown ids and, inside a backend-enforced read scope, out-of-scope ids are absent). */
  findRecords(sessionIds: readonly string[]): Promise<Map<string, SessionRecord>>;
  /** The stored project (null = none), read fresh. Throws session_not_found. */
  projectId(sessionId: string): Promise<string | null>;
  /** Sessions newest activity first. */
  list(options?: SessionListOptions): Promise<Session[]>;
  /** Sets cwd and git metadata; never the project. */
  setCwd(sessionId: string, input: { cwd: string; gitRepoRoot?: string | null; gitBranch?: string | null }): Promise<Session>;
  /** Sets or clears the title. */
  setTitle(sessionId: string, title: string | null): Promise<Session>;
  /** Ends the session now with a reason. */
  end(sessionId: string, reason: string): Promise<Session>;
  /**
   * Moves the whole logical conversation (one transaction) — the only write that changes ownership.
   * Throws invalid_input, session_not_found, project_not_found, project_archived.
   */
  move(sessionId: string, projectId: string | null): Promise<MoveResult>;
  /** Ends the session (compression) and continues in a new segment of the same conversation and project. Throws session_already_compressed. */
  continueCompressed(sourceId: string, options?: LineageOptions & { note?: string }): Promise<ContinuationResult>;
  /** A new conversation copying the visible history up to a message, in the source's project at creation. */
  branch(sourceId: string, options?: LineageOptions & { fromMessageId?: number }): Promise<Session>;
  /** A fresh empty conversation starting in the source's project. Throws project_archived. */
  reset(sourceId: string, options?: LineageOptions): Promise<Session>;
  /** A hidden sub-agent session that belongs to the parent's conversation. */
  delegate(parentId: string, options?: LineageOptions & { source?: string }): Promise<Session>;
  /** Where the logical conversation starts. Throws session_not_found. */
  conversationRoot(sessionId: string): Promise<string>;
  /** conversationRoot of many sessions at once, by id (unknown ids are absent instead of throwing). */
  conversationRoots(sessionIds: readonly string[]): Promise<Map<string, string>>;
  /** Every session of the logical conversation, root first then by depth. Throws session_not_found. */
  conversation(sessionId: string): Promise<ConversationNode[]>;
  /** A project-less session's recallable history: its compression chain. Throws session_not_found. */
  ownHistory(sessionId: string): Promise<string[]>;
  /** The compression segments of the session's chain, in conversation order (empty for an unknown id). */
  segments(sessionId: string): Promise<string[]>;
  /** segments of many sessions at once, by id (unknown ids are absent). */
  segmentsOf(sessionIds: readonly string[]): Promise<Map<string, string[]>>;
  /** One page of a group's logical conversations, newest activity first. */
  listConversations(options: ConversationListOptions): Promise<ConversationPage>;
  /** The sidebar item listing this session. Throws session_not_found. */
  conversationContaining(sessionId: string): Promise<ConversationPageItem>;
  /** Recent logical conversations of a scope (browse). */
  recentConversations(scope: RecentScope, options: RecentOptions): Promise<RecentConversationList>;
}
