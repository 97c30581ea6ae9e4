/**
 * ChunkStore and ClaimQueue on PostgreSQL + pgvector. The allowed set is selected first (ready
 * chunks of the fingerprint, visible messages of visible sessions of the scope, roles, the caller's
 * own live messages out) inside a row-level-security transaction of the scope, and ranked exactly
 * over that whole set: `order by embedding <#> $query limit k` (negative inner product: every
 * fingerprint is l2-normalised, so this is the cosine ranking of @recall/semantic's scan, at a third
 * of the arithmetic of `<=>`, which also computes both norms per row; the best chunk
 * anchors each message). Claims are one statement each — `FOR UPDATE SKIP LOCKED` picks free rows
 * and stamps a lease in the same statement, so two workers never get the same chunk and no
 * transaction stays open while the provider is called; complete() writes a vector only while the
 * lease is still the owner's, the message is visible with the same content hash (an edit
 * deletes the chunks, migration 0002) and its session is visible in a project still switched on
 * for the fingerprint's endpoint (hidden, moved out or switched off during the call: dropped; moved
 * into another project switched on for it: written, and the row's project copy is the new project's,
 * rewritten by the move's trigger; a move still being committed holds those rows locked, so the
 * write waits for it and lands as if made just before the move, whatever the target: the vector
 * moves with the session and the old project never sees it — test/late-result-move.test.ts).
 */
import { createHash } from 'node:crypto';
import { ProjectNotFoundError } from '@recall/store/portable';
import type { ChunkStore, ClaimQueue, FingerprintSpec } from '@recall/storage-ports';
import type pg from 'pg';
import { semanticConsent } from './semantic-consent.js';
import { insertPendingChunks, postgresPlanner } from './semantic-work.js';
import { annPlan, hnswRanked } from './vector-ann.js';
import { certifiedTopK, firstPerMessage, HALFVEC_MAX_DIMS, halfvecBound } from './vector-certify.js';
import { postgresProjectVectors } from './vector-cache.js';
import { nowMs, scoped, VISIBLE_SQL, write } from './tx.js';

/** sha256 hex of the canonical JSON of the fingerprint fields (@recall/semantic's fingerprintKey). */
function fingerprintKey(f: FingerprintSpec): string {
  const canonical = JSON.stringify([
    ['chunker_version', f.chunkerVersion],
    ['dims', f.dims],
    ['endpoint', f.endpoint],
    ['model', f.model],
    ['normalization', f.normalization],
    ['provider', f.provider],
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

/** A Float32Array as pgvector's text input. */
const vectorText = (v: Float32Array): string => `[${Array.from(v).join(',')}]`;

/** Backoff after the n-th failed attempt: 30 s doubling, at most 1 h (as @recall/semantic). */
const retryDelayMs = (attempts: number): number => Math.min(3_600_000, 30_000 * 2 ** Math.max(0, attempts - 1));

/** The ChunkStore of a PostgreSQL team database. */
export function postgresChunks(pool: pg.Pool): ChunkStore {
  const planner = postgresPlanner(pool);
  return {
    planWork: (request) => planner.planWork(request),
    indexCounts: (fingerprintId, projectId, roles) => planner.indexCounts(fingerprintId, projectId, roles),
    // The in-process matrix cache's reads (vector-cache.ts): @recall/semantic scans a project's
    // allowed set in memory and rescores through them; `search` below stays the exact SQL scan.
    projectVectors: postgresProjectVectors(pool),
    dropChunks: (projectId, keep) => planner.dropChunks(projectId, keep),
    async consentRecord(projectId) {
      const c = await semanticConsent(pool, projectId);
      return c ? { enabled: c.enabled, endpoint: c.endpoint || null, rerankEndpoint: c.rerankEndpoint, enabledAt: c.enabledAt, updatedAt: c.updatedAt } : null;
    },
    async ensureFingerprint(spec) {
      const key = fingerprintKey(spec);
      await pool.query(
        'insert into semantic_fingerprints (key, provider, endpoint, model, dims, normalization, chunker_version) values ($1, $2, $3, $4, $5, $6, $7) on conflict (key) do nothing',
        [key, spec.provider, spec.endpoint, spec.model, spec.dims, spec.normalization, spec.chunkerVersion],
      );
      return Number((await pool.query('select id from semantic_fingerprints where key = $1', [key])).rows[0].id);
    },
    async findFingerprint(spec) {
      const row = (await pool.query('select id from semantic_fingerprints where key = $1', [fingerprintKey(spec)])).rows[0];
      return row ? Number(row.id) : null;
    },
    async consent(projectId) {
      const c = await semanticConsent(pool, projectId);
      return c ? { enabled: c.enabled, endpoint: c.endpoint || null } : null;
    },
    async setConsent(projectId, endpoint, enabled, rerankEndpoint) {
      await write(pool, async (tx) => {
        if (!(await tx.query('select 1 from projects where id = $1', [projectId])).rowCount) throw new ProjectNotFoundError(projectId);
        const now = nowMs();
        // Switching on replaces the whole consent (one without a reranker clears the old one);
        // switching off keeps what it was given for and writes nothing for a project never switched on.
        if (enabled) {
          await tx.query(
            `insert into semantic_projects (project_id, enabled, endpoint, rerank_endpoint, enabled_at, updated_at) values ($1, true, $2, $3, $4, $4)
             on conflict (project_id) do update set enabled = true, endpoint = excluded.endpoint, rerank_endpoint = excluded.rerank_endpoint,
               enabled_at = excluded.enabled_at, updated_at = excluded.updated_at`,
            [projectId, endpoint, rerankEndpoint ?? null, now],
          );
        } else {
          await tx.query('update semantic_projects set enabled = false, updated_at = $2 where project_id = $1', [projectId, now]);
        }
      });
    },
    async plan(fingerprintId, chunks) {
      if (chunks.length === 0) return 0;
      return insertPendingChunks(pool, fingerprintId, {
        messageIds: chunks.map((c) => c.messageId),
        chunkIndexes: chunks.map((c) => c.chunkIndex),
        starts: chunks.map((c) => c.start),
        ends: chunks.map((c) => c.end),
        contentHashes: chunks.map((c) => c.contentHash),
      });
    },
    async search(scope, fingerprintId, query, options) {
      const limit = Math.max(0, Math.floor(options.limit));
      if (limit === 0) return [];
      if (scope.kind === 'own' && scope.sessionIds.length === 0) return [];
      const rls = scope.kind === 'project' ? { projectId: scope.projectId } : { sessionIds: scope.sessionIds };
      return scoped(pool, rls, async (tx) => {
        const params: unknown[] = [fingerprintId, vectorText(query)];
        const p = (v: unknown) => {
          params.push(v);
          return `$${params.length}`;
        };
        // Conditions on the chunk row's scope copies (migration 0003) — no per-row join to
        // messages — and on sessions, the membership rule itself (a hash join over the scope's
        // sessions: the project is checked there once more, and hidden sessions are left out).
        const chunkScope = scope.kind === 'project' ? `c.project_id = ${p(scope.projectId)}` : `c.project_id is null and c.session_id = any(${p([...scope.sessionIds])})`;
        const sessionScope = scope.kind === 'project' ? 's.project_id = c.project_id' : 's.project_id is null';
        const where = `${chunkScope} and ${sessionScope}`;
        const roles = options.roles && options.roles.length > 0 ? `and c.role = any(${p([...options.roles])})` : '';
        const caller = scope.currentSessionId !== null ? `and not (c.session_id = ${p(scope.currentSessionId)} and c.visibility = 'live')` : '';
        // Chunk rows carry no time: a dated search checks the message's created_at (one primary-key
        // probe per candidate row, only when a range is given).
        const since = options.since !== undefined && Number.isFinite(options.since) ? `and m.created_at >= ${p(Math.floor(options.since))}` : '';
        const until = options.until !== undefined && Number.isFinite(options.until) ? `and m.created_at < ${p(Math.floor(options.until))}` : '';
        const datedJoin = since || until ? 'join messages m on m.id = c.message_id' : '';
        const allowed = `c.fingerprint_id = $1 and c.status = 'ready' and not s.hidden and c.visibility in ${VISIBLE_SQL} and ${where} ${roles} ${caller} ${since} ${until}`;
        // Two stages (certifiedTopK below): the compact halfvec copy ranks the allowed set, then the
        // float vectors re-rank only the best `wide` chunks, returned when the certificate holds.
        const base = [...params];
        const plan = await annPlan(tx, fingerprintId, scope.kind === 'project' ? scope.projectId : null);
        if (!plan) return [];
        // HNSW only where its recall@10 against this exact search was measured ≥ 0.98 for the project (vector-ann.ts).
        if (plan.hnsw && scope.kind === 'project' && !datedJoin) return hnswRanked(tx, { fingerprintId, dims: plan.dims, settings: plan.hnsw, allowed, params: base, limit });
        const bound = halfvecBound(query);
        if (bound !== null && !datedJoin && plan.dims <= HALFVEC_MAX_DIMS) {
          params.push(vectorText(query));
          const half = `$${params.length}`;
          // The covering index is read in order and is in the buffer cache as much as the heap; at
          // the default random_page_cost (4) the planner prices its pages as random reads and picks
          // a sequential scan of the heap, which carries both vectors (~2.5x the bytes; measured
          // ~1.6-2x slower on 100k × 384).
          await tx.query('set local random_page_cost = 1.1');
          for (let wide = Math.max(64, limit * 8); wide <= Math.max(1024, limit * 128); wide *= 16) {
            const rows = (
              await tx.query(
                // One statement (one snapshot): the first stage is an index-only scan of
                // semantic_chunks_half_idx (migration 0011); rows without a compact copy sort first
                // (NULLS FIRST), so they are always re-ranked.
                // The first stage reads chunk rows only (no join: a join to sessions made the
                // planner prefer other plans); it ranks a superset of the allowed set (hidden
                // sessions' chunks too), and the session conditions are applied in the re-rank — the
                // certificate holds for any superset (vector-certify.ts).
                `with cand as materialized (
                   select c.id, c.embedding_half <#> ${half}::halfvec as dh
                     from semantic_chunks c
                    where c.fingerprint_id = $1 and c.status = 'ready' and c.visibility in ${VISIBLE_SQL} and ${chunkScope} ${roles} ${caller}
                    order by dh nulls first, c.id limit ${wide})
                 select r.*, agg.tau, agg.n
                   from (select max(dh) as tau, count(*) as n from cand) agg
                   left join lateral (
                     select c.message_id, c.session_id, c.start, c."end", c.embedding <#> $2::vector as distance, c.id as chunk_id
                       from cand join semantic_chunks c on c.id = cand.id join sessions s on s.id = c.session_id
                      where not s.hidden and ${sessionScope}
                   ) r on true
                  order by r.distance, r.message_id, r.chunk_id`,
                params,
              )
            ).rows;
            // One row at least (the aggregate); rows without a vector or outside the allowed set have
            // distance NULL and are skipped.
            const tau = rows[0]?.tau !== null && rows[0]?.tau !== undefined ? Number(rows[0].tau) : null;
            const n = rows.length > 0 ? Number(rows[0].n) : 0;
            const hits = certifiedTopK(rows, limit, { exhausted: n < wide, tau, bound });
            if (hits !== null) return hits;
          }
        }
        // Exact over the whole allowed set in one ranked statement: every chunk is ranked (no ANN
        // index is consulted); the chunk limit grows until `limit` distinct messages are certain.
        for (let k = limit * 2; ; k *= 4) {
          const rows = (
            await tx.query(
              // No materialized CTE (it spilled every vector to temp files) and no count(*) over ()
              // (a short page means the set is exhausted).
              `select c.message_id, c.session_id, c.start, c."end", c.embedding <#> $2::vector as distance
                 from semantic_chunks c
                 join sessions s on s.id = c.session_id ${datedJoin}
                where c.embedding is not null and ${allowed}
                order by distance, c.message_id, c.id limit ${k}`,
              base,
            )
          ).rows;
          const hits = firstPerMessage(rows, limit);
          if (hits.length >= limit || rows.length < k) return hits.slice(0, limit);
        }
      });
    },
    async counts(fingerprintId, projectId) {
      const rows = (
        await pool.query(
          `select c.status, count(*) as n from semantic_chunks c join sessions s on s.id = c.session_id
            where c.fingerprint_id = $1 and s.project_id = $2 group by c.status`,
          [fingerprintId, projectId],
        )
      ).rows;
      const out = { pending: 0, ready: 0, failed: 0 };
      for (const r of rows) out[r.status as keyof typeof out] = Number(r.n);
      return out;
    },
  };
}

/** The ClaimQueue of a PostgreSQL team database. */
export function postgresClaims(pool: pg.Pool): ClaimQueue {
  return {
    async claim(o) {
      const now = nowMs();
      // One mask per message (its chunks are usually claimed together), offsets unchanged.
      const maskedById = new Map<string, string>();
      const masked = (id: string, content: string): string => {
        if (!o.mask) return content;
        let m = maskedById.get(id);
        if (m === undefined) maskedById.set(id, (m = o.mask(content)));
        return m;
      };
      const params: unknown[] = [o.fingerprintId, o.endpoint, o.maxAttempts, now, o.owner, now + o.leaseMs, Math.max(0, Math.floor(o.limit))];
      const project = o.projectId === undefined ? '' : `and s.project_id = $${params.push(o.projectId)}`;
      const rows = (
        await pool.query(
          `with picked as (
             select c.id from semantic_chunks c
               join messages m on m.id = c.message_id
               join sessions s on s.id = m.session_id
               join semantic_projects sp on sp.project_id = s.project_id and sp.enabled and sp.endpoint = $2
              where c.fingerprint_id = $1
                and (c.status = 'pending' or (c.status = 'failed' and c.attempts < $3 and (c.next_attempt_at is null or c.next_attempt_at <= $4)))
                and (c.lease_until is null or c.lease_until < $4)
                and not s.hidden and m.visibility in ${VISIBLE_SQL} ${project}
              order by c.status = 'failed', c.id
              limit $7
              for update of c skip locked
           )
           update semantic_chunks c set lease_owner = $5, lease_until = $6
             from picked, messages m
            where c.id = picked.id and m.id = c.message_id
           returning c.id, c.message_id, c.session_id, c.chunk_index, c.start, c."end", c.content_hash, m.content`,
          params,
        )
      ).rows;
      return rows
        .map((r) => ({
          id: Number(r.id),
          messageId: Number(r.message_id),
          sessionId: r.session_id as string,
          chunkIndex: Number(r.chunk_index),
          start: Number(r.start),
          end: Number(r.end),
          contentHash: r.content_hash as string,
          text: masked(r.message_id, r.content as string).slice(Number(r.start), Number(r.end)),
        }))
        .sort((a, b) => a.id - b.id);
    },
    async complete(owner, results) {
      if (results.length === 0) return { written: 0, dropped: 0 };
      return write(pool, async (tx) => {
        const now = nowMs();
        const r = await tx.query(
          `update semantic_chunks c set embedding = v.embedding::vector, status = 'ready', attempts = c.attempts + 1, last_error = null,
                  lease_owner = null, lease_until = null, next_attempt_at = null, updated_at = $2
             from unnest($3::bigint[], $4::text[], $5::text[]) as v(id, embedding, content_hash), messages m, sessions s, semantic_fingerprints f, semantic_projects sp
            where c.id = v.id and c.lease_owner = $1 and c.content_hash = v.content_hash
              and m.id = c.message_id and m.visibility in ${VISIBLE_SQL}
              and encode(sha256(convert_to(m.content, 'UTF8')), 'hex') = c.content_hash
              and s.id = m.session_id and not s.hidden and f.id = c.fingerprint_id
              and sp.project_id = s.project_id and sp.enabled and sp.endpoint = f.endpoint`,
          [owner, now, results.map((x) => x.chunk.id), results.map((x) => vectorText(x.vector)), results.map((x) => x.chunk.contentHash)],
        );
        const written = r.rowCount ?? 0;
        // Leases of dropped rows that still exist are given back.
        await tx.query('update semantic_chunks set lease_owner = null, lease_until = null where id = any($1) and lease_owner = $2', [results.map((x) => x.chunk.id), owner]);
        return { written, dropped: results.length - written };
      });
    },
    async fail(owner, ids, error) {
      if (ids.length === 0) return;
      const now = nowMs();
      const rows = (await pool.query('select id, attempts from semantic_chunks where id = any($1) and lease_owner = $2', [[...ids], owner])).rows;
      if (rows.length === 0) return;
      await pool.query(
        `update semantic_chunks c set status = 'failed', attempts = v.attempts, last_error = $2, next_attempt_at = v.next, lease_owner = null, lease_until = null, updated_at = $3
           from unnest($4::bigint[], $5::int[], $6::bigint[]) as v(id, attempts, next)
          where c.id = v.id and c.lease_owner = $1`,
        [owner, error.slice(0, 1000), now, rows.map((r) => Number(r.id)), rows.map((r) => Number(r.attempts) + 1), rows.map((r) => now + retryDelayMs(Number(r.attempts) + 1))],
      );
    },
    async release(owner, ids) {
      if (ids.length === 0) return;
      await pool.query('update semantic_chunks set lease_owner = null, lease_until = null where id = any($1) and lease_owner = $2', [[...ids], owner]);
    },
    async reclaim(deadOwners, now = nowMs()) {
      const r = await pool.query(
        'update semantic_chunks set lease_owner = null, lease_until = null where lease_owner is not null and (lease_until < $1 or lease_owner = any($2::text[]))',
        [now, [...deadOwners]],
      );
      return r.rowCount ?? 0;
    },
    async leaseOwners(now = nowMs()) {
      return (await pool.query('select distinct lease_owner from semantic_chunks where lease_owner is not null and lease_until >= $1', [now])).rows.map((r) => r.lease_owner as string);
    },
    async leased(fingerprintId, projectId) {
      const r =
        projectId === undefined
          ? await pool.query('select count(*) as n from semantic_chunks where fingerprint_id = $1 and lease_owner is not null and lease_until >= $2', [fingerprintId, nowMs()])
          : await pool.query(
              'select count(*) as n from semantic_chunks c join sessions s on s.id = c.session_id where c.fingerprint_id = $1 and c.lease_owner is not null and c.lease_until >= $2 and s.project_id = $3',
              [fingerprintId, nowMs(), projectId],
            );
      return Number(r.rows[0].n);
    },
    async consented(chunkIds, endpoint) {
      if (chunkIds.length === 0) return [];
      const rows = (
        await pool.query(
          `select c.id from semantic_chunks c join sessions s on s.id = c.session_id
             join semantic_projects sp on sp.project_id = s.project_id and sp.enabled and sp.endpoint = $2
            where c.id = any($1::bigint[]) and not s.hidden`,
          [[...chunkIds], endpoint],
        )
      ).rows;
      const ok = new Set(rows.map((r) => Number(r.id)));
      return chunkIds.filter((id) => ok.has(id));
    },
  };
}
