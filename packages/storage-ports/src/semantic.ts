/**
 * The semantic index's derived rows: ChunkStore (fingerprints, per-project consent, chunk rows
 * upserted by fingerprint, the allowed-set exact vector top-k) and ClaimQueue (leased work for
 * embedding workers). Rules every adapter keeps:
 * - the allowed set is selected first (ready chunks of the fingerprint, visible messages of visible
 *   sessions of the caller's project — or of its own compression history when it has none; roles and
 *   the caller's own live messages excluded) and ranked exactly over that whole set;
 * - fingerprints of different dimensions coexist; vectors are only compared within one fingerprint;
 * - an edit removes the message's chunks (they no longer match its text);
 * - a claim holds no transaction open while the provider is called; a late result is written only
 *   while the lease is still its owner's and the message is unchanged (same content hash) and visible.
 */
import type { MessageRole } from '@recall/rpc-contract';

/** The non-secret identity of an embedding configuration. */
export interface FingerprintSpec {
  provider: string;
  endpoint: string;
  model: string;
  dims: number;
  normalization: 'l2';
  chunkerVersion: number;
}

/** One chunk row to plan: a UTF-16 range [start, end) of a message, and the sha256 (hex) of the message's content. */
export interface ChunkPlan {
  messageId: number;
  chunkIndex: number;
  start: number;
  end: number;
  contentHash: string;
}

/** The caller's resolved scope for a semantic query. */
export type ChunkScope =
  | { kind: 'project'; projectId: string; currentSessionId: string | null }
  | { kind: 'own'; sessionIds: readonly string[]; currentSessionId: string };

/** One message found by vector search, anchored at its best chunk. */
export interface ChunkHit {
  messageId: number;
  sessionId: string;
  /** Cosine similarity (vectors are unit length). */
  score: number;
  start: number;
  end: number;
}

/** Options of ChunkStore.search: how many messages, which roles, and optionally a date range (applied to the allowed set before ranking). */
export interface ChunkSearchOptions {
  limit: number;
  roles?: readonly MessageRole[];
  /** Only messages created at or after this time (epoch ms). */
  since?: number;
  /** Only messages created before this time (epoch ms, exclusive). */
  until?: number;
}

/** Counts of one fingerprint's chunk rows in one project. */
export interface ChunkCountsByStatus {
  pending: number;
  ready: number;
  failed: number;
}

/** Fingerprints, consent and chunk rows of the semantic index. */
export interface ChunkStore {
  /** The fingerprint's id, created when new (idempotent across processes). */
  ensureFingerprint(spec: FingerprintSpec): Promise<number>;
  /** Switches a project on (for `endpoint`) or off; its text is sent only while on for that endpoint. Throws project_not_found. */
  setConsent(projectId: string, endpoint: string, enabled: boolean): Promise<void>;
  /** Inserts pending chunk rows (unique per fingerprint, message, content hash, chunk index; existing rows kept). Returns how many were new. */
  plan(fingerprintId: number, chunks: readonly ChunkPlan[]): Promise<number>;
  /** The exact top `limit` messages of the allowed set for a unit query vector, best first. */
  search(scope: ChunkScope, fingerprintId: number, query: Float32Array, options: ChunkSearchOptions): Promise<ChunkHit[]>;
  /** Chunk rows of a fingerprint in a project, by status. */
  counts(fingerprintId: number, projectId: string): Promise<ChunkCountsByStatus>;
}

/** A chunk leased to one worker, with its text and the hash re-checked on write. */
export interface ClaimedChunkWork {
  id: number;
  messageId: number;
  sessionId: string;
  chunkIndex: number;
  start: number;
  end: number;
  contentHash: string;
  text: string;
}

/** What to claim: pending (or failed with attempts left and backoff elapsed) chunks of consented projects, with a free lease. */
export interface ClaimRequest {
  fingerprintId: number;
  /** The active endpoint; only projects switched on for it are claimable. */
  endpoint: string;
  owner: string;
  limit: number;
  leaseMs: number;
  maxAttempts: number;
  projectId?: string;
}

/** What complete() did: vectors written, and results dropped (message changed/vanished/invisible, or lease lost). */
export interface CompletionOutcome {
  written: number;
  dropped: number;
}

/** Leased embedding work. Each call is one short transaction; none is open between claim and complete. */
export interface ClaimQueue {
  /** Leases up to `limit` chunks to `owner` (two workers never get the same chunk). */
  claim(request: ClaimRequest): Promise<ClaimedChunkWork[]>;
  /** Writes vectors whose lease is still `owner`'s and whose message is unchanged and visible. */
  complete(owner: string, results: readonly { chunk: ClaimedChunkWork; vector: Float32Array }[]): Promise<CompletionOutcome>;
  /** Records a failed attempt (attempts + 1, error, backoff) and frees the lease. */
  fail(owner: string, chunkIds: readonly number[], error: string): Promise<void>;
  /** Gives leases back without counting an attempt. */
  release(owner: string, chunkIds: readonly number[]): Promise<void>;
  /**
   * Frees dead leases without counting an attempt: every lease whose time has passed (`now`,
   * default the current time) and every lease held by one of `deadOwners` (workers the caller knows
   * have died, e.g. a `host:pid` whose process is gone). A freed chunk's late result then drops.
   * Returns how many leases were freed.
   */
  reclaim(deadOwners: readonly string[], now?: number): Promise<number>;
}
