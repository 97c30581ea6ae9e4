/**
 * The SQLite side of the storage ports' semantic rows (ChunkStore, ClaimQueue): @recall/semantic's
 * existing modules behind the async ports — fingerprints, consent, the allowed set + exact scan,
 * claims/complete/fail/release — plus the two small statements the ports add (planning given chunk
 * rows, counts by status). Attach it to @recall/store's `sqliteStorage(db)` as its `semantic` part.
 */
import type { RecallDatabase } from '@recall/schema';
import { sqliteStorage } from '@recall/store';
import type { ChunkStore, ClaimQueue, SemanticStorage } from '@recall/storage-ports';
import { claimChunks, completeChunks, failChunks, releaseLeases } from './claims.js';
import { disableProject, enableProject, projectConsent } from './consent.js';
import { searchScope } from './exact-search.js';
import type { Fingerprint, FingerprintFields } from '../fingerprint.js';
import type { MatrixCache } from '../matrix-cache.js';
import { ensureFingerprint, findFingerprint, listFingerprints } from './fingerprint.js';
import { planDirtySessions } from './planner.js';
import { chunkCounts } from './status.js';

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

/** Deletes the chunk rows of one project (or all) in batches of 5000 and marks re-planning (the index's rebuild). */
function dropChunks(db: RecallDatabase, projectId: string | null, keepFingerprintId: number | null): number {
  let deleted = 0;
  const batch = projectId
    ? db.raw.prepare('delete from semantic_chunks where id in (select c.id from semantic_chunks c join sessions s on s.id = c.session_id where s.project_id = ? limit 5000)')
    : db.raw.prepare('delete from semantic_chunks where id in (select id from semantic_chunks limit 5000)');
  for (;;) {
    const n = db.raw.transaction(() => batch.run(...(projectId ? [projectId] : [])).changes).immediate();
    deleted += n;
    if (n === 0) break;
  }
  db.raw
    .transaction(() => {
      if (projectId) db.raw.prepare('update semantic_projects set planned_fingerprint_id = null where project_id = ?').run(projectId);
      else {
        db.raw.prepare('update semantic_projects set planned_fingerprint_id = null').run();
        // Fingerprints other than the active one have no rows left: drop them too.
        db.raw.prepare('delete from semantic_fingerprints where id is not ?').run(keepFingerprintId);
      }
    })
    .immediate();
  return deleted;
}

/** Options of sqliteSemanticStorage: the process's matrix cache, shared with the search source (default none: every search reads the vectors). */
export interface SqliteSemanticStorageOptions {
  cache?: MatrixCache | null;
}

function chunkStore(db: RecallDatabase, cache: MatrixCache | null): ChunkStore {
  return {
    ensureFingerprint: (spec) => run(() => ensureFingerprint(db, spec).id),
    setConsent: (projectId, endpoint, enabled, rerankEndpoint) =>
      run(() => {
        if (enabled) enableProject(db, projectId, endpoint, { rerankEndpoint: rerankEndpoint ?? null });
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
    // The serving path's scan: the allowed set through the matrix cache (int8 first pass, exact
    // rescore), read in one snapshot; a dated search reads its set directly.
    search: (scope, fingerprintId, query, options) =>
      run(() => {
        const dims = fingerprintById(db, fingerprintId).dims;
        const semanticScope =
          scope.kind === 'project'
            ? { kind: 'project' as const, projectId: scope.projectId, currentSessionId: scope.currentSessionId }
            : { kind: 'own' as const, projectId: null, currentSessionId: scope.currentSessionId, sessionIds: scope.sessionIds };
        const dated = options.since !== undefined || options.until !== undefined;
        const dates = { ...(options.since !== undefined ? { since: options.since } : {}), ...(options.until !== undefined ? { until: options.until } : {}) };
        return searchScope(db, cache, semanticScope, fingerprintId, dims, query, { limit: options.limit, ...(options.roles ? { roles: options.roles } : {}) }, dated ? dates : undefined);
      }),
    planWork: (request) =>
      run(() => {
        const fp = { ...fingerprintById(db, request.fingerprintId), endpoint: request.endpoint };
        const r = planDirtySessions(db, {
          fingerprint: fp,
          chunker: { maxInputTokens: 1, charsPerToken: 1 },
          split: request.split,
          hash: request.hash,
          roles: request.roles,
          ...(request.projectId !== undefined ? { projectId: request.projectId } : {}),
          maxTransactions: 1,
        });
        return { sessionsPlanned: r.sessionsPlanned, created: r.chunksCreated, reused: r.chunksReused, removed: r.chunksRemoved, more: r.more };
      }),
    indexCounts: (fingerprintId, projectId, roles) =>
      run(() => {
        const c = chunkCounts(db, projectId, fingerprintById(db, fingerprintId), roles);
        return { pending: c.pending, ready: c.ready, failed: c.failed, planned: c.planned, queuedSessions: c.queuedSessions, lastError: c.lastError };
      }),
    consentRecord: (projectId) =>
      run(() => {
        const c = projectConsent(db, projectId);
        return c ? { enabled: c.enabled, endpoint: c.endpoint || null, rerankEndpoint: c.rerankEndpoint, enabledAt: c.enabledAt, updatedAt: c.updatedAt } : null;
      }),
    dropChunks: (projectId, keep) => run(() => dropChunks(db, projectId, keep)),
    consent: (projectId) =>
      run(() => {
        const c = projectConsent(db, projectId);
        return c ? { enabled: c.enabled, endpoint: c.endpoint || null } : null;
      }),
    findFingerprint: (spec) => run(() => findFingerprint(db, spec)?.id ?? null),
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
          ...(o.mask ? { mask: o.mask } : {}),
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
    leaseOwners: (now = Date.now()) => run(() => db.raw.prepare('select distinct lease_owner from semantic_chunks where lease_owner is not null and lease_until >= ?').pluck().all(now) as string[]),
    leased: (fingerprintId, projectId) =>
      run(
        () =>
          db.raw
            .prepare(
              `select count(*) from semantic_chunks c ${projectId !== undefined ? 'join sessions s on s.id = c.session_id' : ''}
               where c.fingerprint_id = ? and c.lease_owner is not null and c.lease_until >= ? ${projectId !== undefined ? 'and s.project_id = ?' : ''}`,
            )
            .pluck()
            .get(fingerprintId, Date.now(), ...(projectId !== undefined ? [projectId] : [])) as number,
      ),
    consented: (chunkIds, endpoint) =>
      run(() => {
        const check = db.raw.prepare(
          `select c.id from semantic_chunks c join sessions s on s.id = c.session_id
             join semantic_projects sp on sp.project_id = s.project_id and sp.enabled = 1 and sp.endpoint = ?
            where c.id = ? and s.hidden = 0`,
        );
        return chunkIds.filter((id) => check.get(endpoint, id) !== undefined);
      }),
  };
}

/** The semantic rows of a profile database behind the storage ports (SQLite). */
export function sqliteSemanticStorage(db: RecallDatabase, options: SqliteSemanticStorageOptions = {}): SemanticStorage {
  return { chunks: chunkStore(db, options.cache ?? null), claims: claimQueue(db) };
}

/**
 * What `new SemanticIndex({ db })` runs on: the profile database's projects and semantic rows behind
 * the ports, and the one synchronous step the SQLite path keeps (the active fingerprint, created
 * while the index is constructed, so a SQLite index is ready at once).
 */
export function sqliteIndexStorage(db: RecallDatabase, options: SqliteSemanticStorageOptions = {}): {
  storage: { projects: ReturnType<typeof sqliteStorage>['projects']; semantic: SemanticStorage };
  ensureFingerprint(fields: FingerprintFields): Fingerprint;
} {
  return {
    storage: { projects: sqliteStorage(db).projects, semantic: sqliteSemanticStorage(db, options) },
    ensureFingerprint: (fields) => ensureFingerprint(db, fields),
  };
}
