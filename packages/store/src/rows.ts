/**
 * The store's row shapes — the wire objects of @recall/rpc-contract (camelCase, integer-ms
 * timestamps) — and the mappers from raw SQLite rows. Raw SQL is used on hot paths (bulk append,
 * recursive lineage queries), so mapping lives here once instead of beside every query.
 */
import type { LineageKind, Message, MessageRole, Session, Visibility } from '@recall/rpc-contract';

/** The store returns the wire objects of @recall/rpc-contract: one definition of each shape. */
export type { Message, Project, ProjectFolder, Session } from '@recall/rpc-contract';

/**
 * A session's own row without the visible-message aggregates of `Session` (`messageCount`,
 * `lastMessageAt`), which cost a scan of the session's messages: what scope and existence checks
 * need, at one primary-key read (`getSessionHeader`, `findSessionHeader`).
 */
export type SessionHeader = Omit<Session, 'messageCount' | 'lastMessageAt'>;

export interface SessionRow {
  id: string;
  project_id: string | null;
  parent_session_id: string | null;
  lineage: LineageKind;
  source: string;
  title: string | null;
  cwd: string | null;
  git_repo_root: string | null;
  git_branch: string | null;
  model: string | null;
  started_at: number;
  ended_at: number | null;
  end_reason: string | null;
  archived: number;
  hidden: number;
  created_at: number;
  updated_at: number;
  message_count?: number;
  last_message_at?: number | null;
}

export interface MessageRow {
  id: number;
  session_id: string;
  role: MessageRole;
  content: string;
  tool_name: string | null;
  tool_calls: string | null;
  tool_call_id: string | null;
  external_id: string | null;
  created_at: number;
  visibility: Visibility;
  edited_at: number | null;
}

/** Columns + visible-message aggregates selected for every Session read. */
export const SESSION_COLUMNS = `s.*,
  (select count(*) from messages m where m.session_id = s.id and m.visibility in ('live','compacted')) as message_count,
  (select max(m.created_at) from messages m where m.session_id = s.id and m.visibility in ('live','compacted')) as last_message_at`;

export function toSessionHeader(row: SessionRow): SessionHeader {
  return {
    id: row.id,
    projectId: row.project_id,
    parentSessionId: row.parent_session_id,
    lineage: row.lineage,
    source: row.source,
    title: row.title,
    cwd: row.cwd,
    gitRepoRoot: row.git_repo_root,
    gitBranch: row.git_branch,
    model: row.model,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    endReason: row.end_reason,
    archived: row.archived === 1,
    hidden: row.hidden === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toSession(row: SessionRow): Session {
  return { ...toSessionHeader(row), messageCount: row.message_count ?? 0, lastMessageAt: row.last_message_at ?? null };
}

export function toMessage(row: MessageRow): Message {
  return {
    id: row.id,
    sessionId: row.session_id,
    role: row.role,
    content: row.content,
    toolName: row.tool_name,
    toolCalls: row.tool_calls,
    toolCallId: row.tool_call_id,
    externalId: row.external_id,
    createdAt: row.created_at,
    visibility: row.visibility,
    editedAt: row.edited_at,
  };
}
