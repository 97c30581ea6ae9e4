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
 *   while the lease is still its owner's and the message is unchanged (same content hash) and visible,
 *   in a visible session of a project still switched on for the fingerprint's endpoint — the project
 *   the session is in at write time: a session moved meanwhile into another project switched on for
 *   that endpoint keeps the result, found from its new project only (the text was sent under the old
 *   project's consent for the same endpoint); moved anywhere else, the result drops.
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

/** Whether a project's text may be embedded, and for which endpoint (the one it was switched on for). */
export interface ProjectConsentState {
  enabled: boolean;
  endpoint: string | null;
  /**
   * The reranker the consent named too (null: none); filled by consentRecord(). Kept when the
   * project is switched off, as `endpoint` and `enabledAt` are: only `enabled` says whether text
   * may go anywhere, and every sender checks it first.
   */
  rerankEndpoint?: string | null;
  /** When it was last switched on (epoch ms; null: never); filled by consentRecord(). */
  enabledAt?: number | null;
  /** When it last changed (epoch ms); filled by consentRecord(). */
  updatedAt?: number;
}

/** What ChunkStore.planWork plans for: the fingerprint, the endpoint consent must name, the indexed roles and the chunker. */
export interface PlanWorkRequest {
  fingerprintId: number;
  /** Only projects switched on for this endpoint are planned (nothing else can be sent). */
  endpoint: string;
  roles: readonly MessageRole[];
  /** Only this project (an on-request backfill); others stay queued. */
  projectId?: string;
  /** Cuts a message's content into chunks: UTF-16 ranges [start, end) in order (index = position); none = nothing to embed. */
  split: (content: string) => readonly { start: number; end: number }[];
  /** The content hash the chunk rows carry (sha256 hex of the UTF-8 content, as complete() re-checks). */
  hash: (content: string) => string;
}

/** What one bounded planning step did; `more` = call again (queued work is left). */
export interface PlanWorkResult {
  sessionsPlanned: number;
  created: number;
  /** Chunk rows copied ready from a branch origin (no embedding call). */
  reused: number;
  removed: number;
  more: boolean;
}

/** A project's index counts for a fingerprint over the allowed set (visible messages of indexed roles in visible sessions). */
export interface IndexCounts extends ChunkCountsByStatus {
  /** Every eligible message of the project has its chunk rows (the counts are a true denominator). */
  planned: boolean;
  /** Sessions of the project with messages still waiting to be planned. */
  queuedSessions: number;
  /** The latest failed chunk's error, or null. */
  lastError: string | null;
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
  /**
   * Switches a project on (for `endpoint`, and for the reranker at `rerankEndpoint` when given;
   * default none) or off; its text is sent only while on for that endpoint, and to a reranker only
   * while on and the consent names it. Switching on replaces the whole consent (one without a
   * reranker clears the old one); switching off keeps the endpoint, reranker and enabledAt it was
   * given with (`endpoint` is then ignored) and records nothing for a project never switched on.
   * Throws project_not_found.
   */
  setConsent(projectId: string, endpoint: string, enabled: boolean, rerankEndpoint?: string | null): Promise<void>;
  /** Inserts pending chunk rows (unique per fingerprint, message, content hash, chunk index; existing rows kept). Returns how many were new. */
  plan(fingerprintId: number, chunks: readonly ChunkPlan[]): Promise<number>;
  /**
   * The exact top `limit` messages of the allowed set for a unit query vector, best first: by score,
   * exact ties by message id ascending; each message anchored by its best chunk (on a tie, the lowest chunk id).
   */
  search(scope: ChunkScope, fingerprintId: number, query: Float32Array, options: ChunkSearchOptions): Promise<ChunkHit[]>;
  /**
   * Optional (PostgreSQL): reads of one project's allowed set inside one scoped read transaction,
   * for @recall/semantic's in-process matrix cache (generation, rows, and the rescore read of
   * candidates, which re-checks every allowed-set condition). Adapters without it are searched by
   * `search` alone.
   */
  readonly projectVectors?: ProjectVectorSource;
  /** Chunk rows of a fingerprint in a project, by status. */
  counts(fingerprintId: number, projectId: string): Promise<ChunkCountsByStatus>;
  /** A project's consent: switched on or off and for which endpoint (null: never switched on). */
  consent(projectId: string): Promise<ProjectConsentState | null>;
  /** The fingerprint's id when it exists (a read; ensureFingerprint creates it). */
  findFingerprint(spec: FingerprintSpec): Promise<number | null>;
  /**
   * One bounded planning step of the embedding worker (no network): chunk rows for eligible
   * messages (visible, indexed role, visible session of a project switched on for the endpoint)
   * that have none for the fingerprint; rows of messages no longer eligible are removed where the
   * adapter tracks them. Short transactions; concurrent appends wait at most a few ms.
   */
  planWork(request: PlanWorkRequest): Promise<PlanWorkResult>;
  /** A project's counts over the allowed set for the indexed roles, and whether planning is complete. */
  indexCounts(fingerprintId: number, projectId: string, roles: readonly MessageRole[]): Promise<IndexCounts>;
  /**
   * A project's consent as stored, with its reranker and times (null: never switched on). A project
   * switched off answers `enabled: false` with the endpoint, reranker and enabledAt its consent was
   * given with (callers check `enabled` before sending anything; status screens show no reranker for
   * it). The same record TransferSource.consents() reads, so a migrated consent answers the same.
   */
  consentRecord(projectId: string): Promise<ProjectConsentState | null>;
  /**
   * Deletes the chunk rows of one project's sessions (or of all, `projectId` null; in batches) and
   * marks the project(s) for re-planning; with all, fingerprints other than `keepFingerprintId` go
   * too. Messages and consent are untouched. Returns how many chunk rows were deleted.
   */
  dropChunks(projectId: string | null, keepFingerprintId: number | null): Promise<number>;
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
  /**
   * Same-length mask of a message's whole content applied before the chunk text is cut from it
   * (secrets and private spans overwritten in place, offsets unchanged), so a chunk that cuts
   * through a secret never carries part of it. Absent: the adapter's default (SQLite: the built-in rules).
   */
  mask?: (content: string) => string;
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
  /** Writes vectors whose lease is still `owner`'s and whose message is unchanged and visible, in a visible session of a project still switched on for the endpoint. */
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
  /** Owners of leases still running at `now` (default the current time), so a worker can tell which are dead. */
  leaseOwners(now?: number): Promise<string[]>;
  /** Running leases of a fingerprint (in one project when given): work in flight somewhere. */
  leased(fingerprintId: number, projectId?: string): Promise<number>;
  /** Of `chunkIds`, those whose session is now in a visible project switched on for `endpoint` (consent re-checked after a claim). */
  consented(chunkIds: readonly number[], endpoint: string): Promise<number[]>;
}

/** One role's rows of a project's allowed set, sorted by message id then chunk id (the tie order of the exact search: ChunkStore.search ranks exact score ties by message id, then chunk id). */
export interface AllowedRoleRows {
  role: MessageRole;
  rows: number;
  /** rows × dims float32 vectors, row-major. */
  vectors: Float32Array;
  chunkIds: Float64Array;
  messageIds: Float64Array;
  /** Index into AllowedSetRows.sessions. */
  sessionIdx: Int32Array;
  start: Int32Array;
  end: Int32Array;
  /** 1 when the message is live (not compacted). */
  live: Uint8Array;
}

/** A project's allowed set for one fingerprint (ready chunks of visible messages of its visible sessions), read in one snapshot. */
export interface AllowedSetRows {
  sessions: string[];
  segments: AllowedRoleRows[];
  /** Rows whose vector had other dimensions than the fingerprint's (never expected; not returned). */
  skipped: number;
  /**
   * `load` only: the project's generation read again after the rows. Equal to the one `plan` read
   * before them: no change committed in between, so the rows are exactly the set at that
   * generation and a cache may later catch up from it with `loadAdded`.
   */
  generationAfter?: number;
}

/** A chunk's stored row as the rescore reads it: its float32 vector (little-endian bytes) and anchors. */
export interface StoredChunkRow {
  vector: Uint8Array;
  messageId: number;
  sessionId: string;
  start: number;
  end: number;
  live: boolean;
}

/** Reads of one project inside one scoped read transaction (ProjectVectorSource.withProject). */
export interface ProjectVectorReads {
  /**
   * Read first: the fingerprint's dimensions, whether the HNSW gate is open for the project (then
   * `search` serves it), and the project's cache generation (changes whenever its allowed set may
   * have changed). Null for an unknown fingerprint. `additionsFrom` (adapters with `loadAdded`):
   * every change since that generation was an addition of ready chunks that `loadAdded` can read,
   * so a set read exactly at a generation ≥ it catches up by a delta.
   */
  plan(fingerprintId: number): Promise<{ dims: number; hnsw: boolean; generation: number; additionsFrom?: number } | null>;
  /** The project's allowed set in one snapshot; null when it has more than `maxRows` rows. `signal` aborts it between reads (it rejects). */
  load(fingerprintId: number, dims: number, maxRows: number, signal?: AbortSignal): Promise<AllowedSetRows | null>;
  /**
   * Optional: the rows of the allowed set added after generation `after` up to `upTo` (both as
   * `plan` read them), through the same allowed-set conditions, in one snapshot that also re-checks
   * that only additions happened since `after`. Null when that no longer holds (a rebuild is needed)
   * or when there are more than `maxRows` of them.
   */
  loadAdded?(fingerprintId: number, dims: number, after: number, upTo: number, maxRows: number): Promise<AllowedSetRows | null>;
  /**
   * Stored rows of chunks by id that are still in the allowed set — every condition re-checked by
   * the adapter (fingerprint, ready, visible message, the project, visible session, `roles`, not
   * the caller's own live messages); others are absent.
   */
  read(fingerprintId: number, chunkIds: readonly number[], filter: { roles?: readonly MessageRole[]; currentSessionId: string | null }): Promise<Map<number, StoredChunkRow>>;
}

/** Scoped reads of projects' allowed sets for an in-process vector cache. */
export interface ProjectVectorSource {
  /** The database (the same object for every read of it): keys the cache's entries. */
  readonly identity: object;
  /** Runs `fn` inside one read transaction limited to the project (row-level security where the adapter has it). */
  withProject<T>(projectId: string, fn: (reads: ProjectVectorReads) => Promise<T>): Promise<T>;
  /**
   * True when `withProject` opens a transaction of its own (not a caller's enclosing read scope),
   * so a read may run in the background and outlive the call that started it (a cache rebuild).
   */
  readonly detached?: boolean;
}
