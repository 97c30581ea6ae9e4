/**
 * Moving a whole profile between storages (`recall migrate`): TransferSource reads every row in id
 * order with its stored ids, timestamps, lineage and visibility (hidden sessions, rewound and
 * deleted messages too); BulkImport writes such rows unchanged, idempotently (a row whose id exists
 * is skipped, so a re-run copies nothing and an interrupted run continues); both count what they
 * hold, so a copy can be verified. The per-project semantic consent (which projects were switched on,
 * for which endpoint and reranker) is transferred as it is: it is the user's decision, not derived
 * data. The semantic index's derived rows (chunks, vectors) are not transferred: they are rebuilt
 * from the messages by the embedding worker of the target.
 */
import type { Message, Project } from '@recall/rpc-contract';
import type { SessionRecord } from './sessions.js';

/** Rows held, per project (`null` key = sessions without a project). */
export interface StorageCounts {
  projects: number;
  sessions: number;
  messages: number;
  /** Sessions and messages (every visibility) per project id; '' = no project. */
  perProject: Record<string, { sessions: number; messages: number }>;
}

/**
 * One project's semantic consent as stored (a transfer copies it unchanged): whether the project is
 * switched on, for which embeddings endpoint and reranker, and when.
 */
export interface TransferredConsent {
  projectId: string;
  enabled: boolean;
  /** The embeddings endpoint the consent names: a base URL, or `local:use-lite` (kept when switched off). */
  endpoint: string;
  /** The reranker the consent names too (null: no reranker was configured when it was given; kept when switched off). */
  rerankEndpoint: string | null;
  /** When it was last switched on (epoch ms; null: never). */
  enabledAt: number | null;
  /** When it last changed (epoch ms). */
  updatedAt: number;
}

/** Reads a storage's rows for a transfer, ids preserved. */
export interface TransferSource {
  /** Every project, archived ones too, with folders. */
  projects(): Promise<Project[]>;
  /** Session rows in id order after `afterId` (hidden and archived included), at most `limit`. */
  sessions(afterId: string, limit: number): Promise<SessionRecord[]>;
  /** A session's messages of every visibility in id order after `afterId`, at most `limit`. */
  messages(sessionId: string, afterId: number, limit: number): Promise<Message[]>;
  /** What the storage holds. */
  counts(): Promise<StorageCounts>;
  /**
   * Every project's semantic consent row (switched off ones too), in project id order. Optional:
   * a source without it transfers no consent.
   */
  consents?(): Promise<TransferredConsent[]>;
}

/** Writes transferred rows unchanged; existing ids are skipped. Each call is one transaction. */
export interface BulkImport {
  /** Inserts projects (and their folders) whose id is new; returns how many were new. */
  importProjects(projects: readonly Project[]): Promise<number>;
  /** Inserts session rows whose id is new; returns how many were new. */
  importSessions(sessions: readonly SessionRecord[]): Promise<number>;
  /** Inserts messages with their ids (keyword-indexed as append does); returns how many were new. */
  importMessages(messages: readonly Message[]): Promise<number>;
  /**
   * Inserts consent rows for projects that have none on the target yet (a consent changed on the
   * target later is never overridden, so a re-run changes nothing); returns how many were new.
   * The projects must exist (import them first). Optional: a target without it keeps no consent.
   */
  importConsents?(consents: readonly TransferredConsent[]): Promise<number>;
  /** The highest message id stored for a session (0 when none): where a resumed copy continues. */
  lastMessageId(sessionId: string): Promise<number>;
  /** Moves id generation past the imported ids (call once after importing). */
  finish(): Promise<void>;
  /** What the storage holds. */
  counts(): Promise<StorageCounts>;
}
