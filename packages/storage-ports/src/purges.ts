/**
 * PurgeStore: deleting for real (unlike MessageStore.delete, a soft delete that only changes
 * visibility). A whole logical conversation, a project together with its conversations, and the
 * hidden (rewound and soft-deleted) messages of a conversation: the rows go, and with them their
 * keyword index rows and semantic chunks, each in ONE write transaction (nothing half-deleted).
 * Shaped from today's callers: gateway-rpc `conversations.delete`, `conversations.purge_hidden`,
 * `projects.delete` with `withConversations`, and `recall delete`.
 */
import type { PurgeResultWire } from '@recall/rpc-contract';

/**
 * What a purge removed: the sessions (root first), how many messages, the projects whose
 * conversations changed, and `scrubbed` — whether the removed text is also gone from the database
 * files already (SQLite: WAL checkpointed and truncated; PostgreSQL: always false, the freed rows
 * leave the files at the next vacuum).
 */
export type PurgeOutcome = PurgeResultWire;

/** Options of PurgeStore.deleteProject. */
export interface ProjectPurgeOptions {
  /** Hard-delete the project's conversations too; without it a project that owns any session is refused (project_has_sessions). */
  withConversations?: boolean;
}

/** Hard deletes, each in one write transaction. */
export interface PurgeStore {
  /**
   * Deletes the whole logical conversation `sessionId` belongs to (root, compression continuations,
   * delegation children; branches and resets are conversations of their own and stay): messages,
   * keyword rows, chunks, sessions. Throws invalid_input, session_not_found.
   */
  deleteConversation(sessionId: string): Promise<PurgeOutcome>;
  /**
   * Deletes a project (its folders and semantic consent), and with `withConversations` every
   * conversation it owns first. Throws invalid_input, project_not_found, project_has_sessions.
   */
  deleteProject(projectId: string, options?: ProjectPurgeOptions): Promise<PurgeOutcome>;
  /**
   * Removes the rewound and soft-deleted messages of the logical conversation `sessionId` belongs
   * to (live and compacted ones stay). Throws invalid_input, session_not_found.
   */
  purgeHidden(sessionId: string): Promise<PurgeOutcome>;
}
