/**
 * The SQLite side of the storage ports' semantic rows (ChunkStore, ClaimQueue): @recall/semantic's
 * existing modules behind the async ports — fingerprints, consent, the allowed set + exact scan,
 * claims/complete/fail/release — plus the two small statements the ports add (planning given chunk
 * rows, counts by status). Attach it to @recall/store's `sqliteStorage(db)` as its `semantic` part.
 */
import type { RecallDatabase } from '@recall/schema';
import type { ChunkStore, ClaimQueue, SemanticStorage } from '@recall/storage-ports';
import { loadAllowedSet } from './allowed-set.js';
import { claimChunks, completeChunks, failChunks, releaseLeases } from './claims.js';
import { disableProject, enableProject } from './consent.js';
import { searchAllowedSet } from './exact-search.js';
import { ensureFingerprint, listFingerprints, type Fingerprint } from './fingerprint.js';

const run = <T>(fn: () => T): Promise<T> => {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error);
  }
};

function fingerprintById(db: RecallDatabase, id: number): Fingerprint {
  const fp = listFingerprints(db).find((f) => f.id === id);
  if (!fp) throw new RangeError(`No fingerprint ${id} in this profile.`);
  return fp;
}

function chunkStore(db: RecallDatabase): ChunkStore {
  return {
    ensureFingerprint: (spec) => run(() => ensureFingerprint(db, spec).id),
    setConsent: (projectId, endpoint, enabled) =>
      run(() => {
        if (enabled) enableProject(db, projectId, endpoint);
        else disableProject(db, projectId);
      }),
    plan: (fingerprintId, chunks) =>
      run(() => {
        const now = Date.now();
        const insert = db.raw.prepare(
          `insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, "end", content_hash, chunker_version, status, created_at, updated_at)
           select f.id, m.id, m.session_id, ?, ?, ?, ?, f.chunker_version, 'pending', ?, ? from messages m, semantic_fingerprints f where m.id = ? and f.id = ?
           on conflict do nothing`,
        );
        return db.raw.transaction(() => chunks.reduce((n, c) => n + insert.run(c.chunkIndex, c.start, c.end, c.contentHash, now, now, c.messageId, fingerprintId).changes, 0)).immediate();
      }),
    search: (scope, fingerprintId, query, options) =>
      run(() => {
        const dims = fingerprintById(db, fingerprintId).dims;
        const semanticScope =
          scope.kind === 'project'
            ? { kind: 'project' as const, projectId: scope.projectId, currentSessionId: scope.currentSessionId }
            : { kind: 'own' as const, projectId: null, currentSessionId: scope.currentSessionId, sessionIds: scope.sessionIds };
        const dates = { ...(options.since !== undefined ? { since: options.since } : {}), ...(options.until !== undefined ? { until: options.until } : {}) };
        const set = loadAllowedSet(db, scope.kind === 'project' ? { projectId: scope.projectId } : { sessionIds: scope.sessionIds }, fingerprintId, dims, dates);
        return searchAllowedSet(set, semanticScope, query, { limit: options.limit, ...(options.roles ? { roles: options.roles } : {}) });
      }),
    counts: (fingerprintId, projectId) =>
      run(() => {
        const rows = db.raw
          .prepare('select c.status as status, count(*) as n from semantic_chunks c join sessions s on s.id = c.session_id where c.fingerprint_id = ? and s.project_id = ? group by c.status')
          .all(fingerprintId, projectId) as Array<{ status: 'pending' | 'ready' | 'failed'; n: number }>;
        const out = { pending: 0, ready: 0, failed: 0 };
        for (const r of rows) out[r.status] = r.n;
        return out;
      }),
  };
}

function claimQueue(db: RecallDatabase): ClaimQueue {
  return {
    claim: (o) =>
      run(() =>
        claimChunks(db, {
          fingerprint: { ...fingerprintById(db, o.fingerprintId), endpoint: o.endpoint },
          owner: o.owner,
          limit: o.limit,
          leaseMs: o.leaseMs,
          maxAttempts: o.maxAttempts,
          ...(o.projectId !== undefined ? { projectId: o.projectId } : {}),
        }),
      ),
    complete: (owner, results) => run(() => completeChunks(db, owner, results)),
    fail: (owner, ids, error) => run(() => failChunks(db, owner, ids, error)),
    release: (owner, ids) => run(() => releaseLeases(db, owner, ids)),
    reclaim: (deadOwners, now = Date.now()) =>
      run(() =>
        db.raw.transaction(() => {
          let freed = db.raw.prepare('update semantic_chunks set lease_owner = null, lease_until = null where lease_owner is not null and lease_until < ?').run(now).changes;
          const byOwner = db.raw.prepare('update semantic_chunks set lease_owner = null, lease_until = null where lease_owner = ?');
          for (const owner of new Set(deadOwners)) freed += byOwner.run(owner).changes;
          return freed;
        }).immediate(),
      ),
  };
}

/** The semantic rows of a profile database behind the storage ports (SQLite). */
export function sqliteSemanticStorage(db: RecallDatabase): SemanticStorage {
  return { chunks: chunkStore(db), claims: claimQueue(db) };
}
