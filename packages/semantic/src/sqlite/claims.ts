/**
 * Claiming and completing embedding work — the only writes the worker makes to chunk rows.
 * `claimChunks` runs one short BEGIN IMMEDIATE transaction: it selects claimable rows (pending, or
 * failed with attempts left and their backoff elapsed; no live lease; session still in a project
 * switched on for the fingerprint's endpoint) and stamps them with this worker's lease, so two
 * processes never embed the same chunk. The text is read in the same transaction. The provider is
 * then called with NO transaction open. `completeChunks` writes vectors in another short
 * transaction, and only where the lease is still ours, the message still exists, is visible, its
 * session is visible in a project still switched on for the endpoint, and its current content still
 * hashes to the chunk's content_hash — a late result for an edited or deleted message, or a hidden
 * or moved-out session, never lands; a session moved into another project switched on for the
 * endpoint keeps it (the project is read at write time; vectors follow their session's project).
 * Failures are recorded with attempts, last_error and an exponential
 * next_attempt_at; leases of workers that died on this host are released at start.
 */
import type { ClaimedChunkWork } from '@recall/storage-ports';
import { VISIBLE_VISIBILITIES, type RecallDatabase } from '@recall/schema';
import { contentHash } from '../chunker.js';
import type { Fingerprint } from '../fingerprint.js';
import { deadOwnersOfThisHost, defaultChunkMask } from '../leases.js';
import { vectorToBlob } from '../provider.js';

/** A chunk leased to one worker for embedding: the ports' shape (ClaimQueue.claim returns it as is). */
export type ClaimedChunk = ClaimedChunkWork;

/** Which chunks to lease: fingerprint, owner, how many, lease length and attempt limit. */
export interface ClaimOptions {
  fingerprint: Fingerprint;
  owner: string;
  limit: number;
  leaseMs: number;
  maxAttempts: number;
  /** Only chunks of sessions currently in this project. */
  projectId?: string;
  now?: number;
  /**
   * Same-length masking of a message's content before its chunks are cut from it (secrets and
   * `<private>` spans overwritten in place, offsets unchanged), so a chunk that cuts through a secret
   * never carries part of it. Default: `defaultChunkMask()` (@recall/redaction's built-in rules).
   */
  mask?: (content: string) => string;
}

const VISIBLE_SQL = VISIBLE_VISIBILITIES.map((v) => `'${v}'`).join(', ');

/** Claimable = status pending, or failed with attempts left and backoff elapsed; lease free; consent holds now. */
export function claimChunks(db: RecallDatabase, o: ClaimOptions): ClaimedChunk[] {
  const now = o.now ?? Date.now();
  return db.raw
    .transaction(() => {
      // Pending rows first, then failed rows whose backoff elapsed: one status per query lets SQLite
      // walk the (fingerprint_id, status) index in id order and stop at the limit (no sort).
      const select = (status: 'pending' | 'failed', limit: number) =>
        db.raw
          .prepare(
            `select c.id, c.message_id, c.session_id, c.chunk_index, c.start, c."end", c.content_hash, m.content
             from semantic_chunks c
             join messages m on m.id = c.message_id
             join sessions s on s.id = m.session_id
             join semantic_projects sp on sp.project_id = s.project_id and sp.enabled = 1 and sp.endpoint = ?
             where c.fingerprint_id = ? and c.status = ? and c.attempts < ?
               and (c.lease_until is null or c.lease_until < ?)
               and (c.next_attempt_at is null or c.next_attempt_at <= ?)
               and s.hidden = 0 and m.visibility in (${VISIBLE_SQL})
               ${o.projectId ? 'and s.project_id = ?' : ''}
             order by c.id limit ?`,
          )
          .all(o.fingerprint.endpoint, o.fingerprint.id, status, status === 'pending' ? Number.MAX_SAFE_INTEGER : o.maxAttempts, now, now, ...(o.projectId ? [o.projectId] : []), limit) as {
          id: number;
          message_id: number;
          session_id: string;
          chunk_index: number;
          start: number;
          end: number;
          content_hash: string;
          content: string;
        }[];
      const rows = select('pending', o.limit);
      if (rows.length < o.limit) rows.push(...select('failed', o.limit - rows.length));
      const lease = db.raw.prepare('update semantic_chunks set lease_owner = ?, lease_until = ? where id = ?');
      for (const r of rows) lease.run(o.owner, now + o.leaseMs, r.id);
      // One mask per message (a message's chunks are usually claimed together).
      const mask = o.mask ?? defaultChunkMask();
      const masked = new Map<number, string>();
      const maskedContent = (id: number, content: string): string => {
        let m = masked.get(id);
        if (m === undefined) masked.set(id, (m = mask(content)));
        return m;
      };
      return rows.map((r) => ({
        id: r.id,
        messageId: r.message_id,
        sessionId: r.session_id,
        chunkIndex: r.chunk_index,
        start: r.start,
        end: r.end,
        contentHash: r.content_hash,
        // The range is cut from the masked content: no secret or <private> text reaches the provider.
        text: maskedContent(r.message_id, r.content).slice(r.start, r.end),
      }));
    })
    .immediate();
}

/** Chunks whose project is still switched on for the endpoint right now (re-checked just before sending). */
export function stillConsented(db: RecallDatabase, chunks: readonly ClaimedChunk[], endpoint: string): Set<number> {
  const check = db.raw.prepare(
    'select 1 from sessions s join semantic_projects sp on sp.project_id = s.project_id and sp.enabled = 1 and sp.endpoint = ? where s.id = ? and s.hidden = 0',
  );
  const bySession = new Map<string, boolean>();
  const out = new Set<number>();
  for (const c of chunks) {
    let ok = bySession.get(c.sessionId);
    if (ok === undefined) {
      ok = check.get(endpoint, c.sessionId) !== undefined;
      bySession.set(c.sessionId, ok);
    }
    if (ok) out.add(c.id);
  }
  return out;
}

/**
 * What a re-checked write did: vectors written, and results dropped because the message changed or the lease was lost.
 */
export interface CompleteResult {
  written: number;
  /** Results dropped because the message changed, vanished or became invisible, or the lease was lost. */
  dropped: number;
}

/** Writes vectors where the lease is ours and the message is unchanged and visible. */
export function completeChunks(db: RecallDatabase, owner: string, results: readonly { chunk: ClaimedChunk; vector: Float32Array }[], now = Date.now()): CompleteResult {
  return db.raw
    .transaction(() => {
      // The session must still be visible in a project switched on for the chunk's endpoint (hidden,
      // moved out or switched off during the provider call: the late result drops). The project is
      // the session's current one: moved into another project switched on for the endpoint, it lands.
      const message = db.raw.prepare(
        `select m.content, m.visibility from messages m join sessions s on s.id = m.session_id and s.hidden = 0
           join semantic_chunks c on c.id = ? join semantic_fingerprints f on f.id = c.fingerprint_id
           join semantic_projects sp on sp.project_id = s.project_id and sp.enabled = 1 and sp.endpoint = f.endpoint
          where m.id = ?`,
      );
      const update = db.raw.prepare(
        `update semantic_chunks set vector = ?, status = 'ready', attempts = attempts + 1, last_error = null, lease_owner = null, lease_until = null,
           next_attempt_at = null, updated_at = ?
         where id = ? and lease_owner = ? and message_id = ? and chunk_index = ? and content_hash = ?`,
      );
      const hashes = new Map<number, string | null>();
      let written = 0;
      let dropped = 0;
      for (const { chunk, vector } of results) {
        let hash = hashes.get(chunk.messageId);
        if (hash === undefined) {
          const m = message.get(chunk.id, chunk.messageId) as { content: string; visibility: string } | undefined;
          hash = m && (VISIBLE_VISIBILITIES as readonly string[]).includes(m.visibility) ? contentHash(m.content) : null;
          hashes.set(chunk.messageId, hash);
        }
        if (hash !== chunk.contentHash) {
          dropped++;
          continue;
        }
        const changes = update.run(vectorToBlob(vector), now, chunk.id, owner, chunk.messageId, chunk.chunkIndex, chunk.contentHash).changes;
        if (changes === 1) written++;
        else dropped++;
      }
      // Leases of dropped rows (still existing, e.g. invisible messages) are released for the planner/cleanup.
      releaseLeases(db, owner, results.map((r) => r.chunk.id));
      return { written, dropped };
    })
    .immediate();
}

/** Backoff after the n-th failed attempt: 30 s doubling, at most 1 h. */
export function retryDelayMs(attempts: number): number {
  return Math.min(3_600_000, 30_000 * 2 ** Math.max(0, attempts - 1));
}

/** Records a failed attempt: status failed, attempts+1, last_error (already redacted), next_attempt_at. */
export function failChunks(db: RecallDatabase, owner: string, ids: readonly number[], error: string, now = Date.now()): void {
  if (ids.length === 0) return;
  db.raw
    .transaction(() => {
      const read = db.raw.prepare('select attempts from semantic_chunks where id = ? and lease_owner = ?');
      const update = db.raw.prepare(
        "update semantic_chunks set status = 'failed', attempts = ?, last_error = ?, next_attempt_at = ?, lease_owner = null, lease_until = null, updated_at = ? where id = ? and lease_owner = ?",
      );
      for (const id of ids) {
        const row = read.get(id, owner) as { attempts: number } | undefined;
        if (!row) continue;
        const attempts = row.attempts + 1;
        update.run(attempts, error.slice(0, 1000), now + retryDelayMs(attempts), now, id, owner);
      }
    })
    .immediate();
}

/** Gives claimed rows back without counting an attempt (worker stopping, consent withdrawn). */
export function releaseLeases(db: RecallDatabase, owner: string, ids: readonly number[]): void {
  const stmt = db.raw.prepare('update semantic_chunks set lease_owner = null, lease_until = null where id = ? and lease_owner = ?');
  const run = () => {
    for (const id of ids) stmt.run(id, owner);
  };
  if (db.raw.inTransaction) run();
  else db.raw.transaction(run).immediate();
}

/** Releases live leases held by workers of this host whose process is gone (a crash, kill -9). */
export function releaseDeadLeases(db: RecallDatabase, selfOwner: string, now = Date.now()): number {
  const owners = db.raw.prepare('select distinct lease_owner from semantic_chunks where lease_owner is not null and lease_until >= ?').pluck().all(now) as string[];
  let released = 0;
  for (const owner of deadOwnersOfThisHost(owners, selfOwner)) {
    released += db.raw.prepare('update semantic_chunks set lease_owner = null, lease_until = null where lease_owner = ?').run(owner).changes;
  }
  return released;
}
