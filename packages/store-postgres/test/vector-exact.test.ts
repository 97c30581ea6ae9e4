/**
 * The exact vector search's two-stage scan (migration 0011, adapter/semantic.ts + vector-certify.ts):
 * - certifiedTopK: table-driven cases of the certificate (holds, refuses at the cut, exhausted, no
 *   compact copy);
 * - property on a real PostgreSQL: for random queries, limits, role filters and callers over a
 *   corpus built to stress halfvec (clusters of near-ties closer than halfvec's rounding, exact
 *   duplicates, several chunks per message, non-unit vectors without a compact copy, hidden
 *   sessions, deleted rows, another project with closer vectors, fingerprints of other dimensions —
 *   one above 1024), ChunkStore.search returns exactly the hits of the plain single statement
 *   `order by embedding <#> q, message_id, id` over the allowed set (the float exact scan), anchors
 *   and scores included, and nothing outside the scope;
 * - the first stage is an index-only scan of semantic_chunks_half_idx;
 * - the HNSW gate: the index serves a project only while semantic_ann records recall@10 ≥ 0.98 for it
 *   (measureHnswRecall records what it measured), and its answers stay inside the scope.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { seededRng } from '@recall/config/seeded-random';
import type { Storage } from '@recall/storage-ports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certifiedTopK, firstPerMessage, type RankedRow } from '../src/adapter/vector-certify.js';
import { annPlan, hnswIndexName, hnswRanked } from '../src/adapter/vector-ann.js';
import { openPostgres, postgresStorage, scopedRead, type RecallPostgres } from '../src/index.js';
import { closeHnswGate, createHnswIndex, measureHnswRecall } from '../src/internal.js';
import { useCluster } from './cluster.js';

const row = (message: number, distance: number | null, chunk = 0): RankedRow => ({ message_id: message, session_id: 's', start: chunk, end: chunk + 1, distance });

describe('certifiedTopK', () => {
  const cases: Array<{ name: string; rows: RankedRow[]; limit: number; exhausted: boolean; tau: number | null; want: number[] | null }> = [
    { name: 'holds: the limit-th message is below the cut', rows: [row(1, -0.9), row(2, -0.8), row(3, -0.1)], limit: 2, exhausted: false, tau: -0.5, want: [1, 2] },
    { name: 'refuses: the limit-th message is within the bound of tau', rows: [row(1, -0.9), row(2, -0.5005)], limit: 2, exhausted: false, tau: -0.5, want: null },
    { name: 'refuses: equal to the cut is not below it', rows: [row(1, -0.9), row(2, -0.501)], limit: 2, exhausted: false, tau: -0.5, want: null },
    { name: 'a second chunk of a message does not count twice', rows: [row(1, -0.9), row(1, -0.85, 1), row(2, -0.6)], limit: 2, exhausted: false, tau: -0.5, want: [1, 2] },
    { name: 'refuses: too few distinct messages', rows: [row(1, -0.9), row(1, -0.85, 1)], limit: 2, exhausted: false, tau: -0.5, want: null },
    { name: 'exhausted set: exact as is, even near the cut', rows: [row(1, -0.9), row(2, -0.5001)], limit: 5, exhausted: true, tau: -0.5, want: [1, 2] },
    { name: 'refuses: no compact copy among the kept rows', rows: [row(1, -0.9), row(2, -0.8)], limit: 1, exhausted: false, tau: null, want: null },
    { name: 'rows without a vector are skipped', rows: [row(1, -0.9), row(2, -0.8), row(3, null)], limit: 3, exhausted: true, tau: -0.5, want: [1, 2] },
  ];
  it.each(cases)('$name', ({ rows, limit, exhausted, tau, want }) => {
    const got = certifiedTopK(rows, limit, { exhausted, tau, bound: 1e-3 });
    expect(got === null ? null : got.map((h) => h.messageId)).toEqual(want);
  });
});

const cluster = useCluster();
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const DIMS = 16;

const unit = (v: Float32Array): Float32Array => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

describe('ChunkStore.search: the two-stage scan returns the float exact top-k', () => {
  let db: RecallPostgres;
  let storage: Storage;
  let fp = 0;
  let fpSmall = 0;
  let fpWide = 0;
  const projects: string[] = [];
  const sessions: string[] = [];
  const bases: Float32Array[] = [];

  beforeAll(async () => {
    db = await openPostgres(cluster.freshUrl());
    storage = postgresStorage(db, 'postgres://test');
    const chunks = storage.semantic!.chunks;
    const claims = storage.semantic!.claims;
    const spec = { provider: 'test', endpoint: 'http://127.0.0.1/e', model: 'm', normalization: 'l2' as const, chunkerVersion: 1 };
    fp = await chunks.ensureFingerprint({ ...spec, dims: DIMS });
    fpSmall = await chunks.ensureFingerprint({ ...spec, dims: 8 });
    fpWide = await chunks.ensureFingerprint({ ...spec, dims: 1100 });
    const r = seededRng(7);
    for (let b = 0; b < 12; b++) bases.push(unit(Float32Array.from({ length: DIMS }, () => r() - 0.5)));
    for (const name of ['a', 'b']) {
      const id = (await storage.projects.create({ name })).id;
      projects.push(id);
      await chunks.setConsent(id, 'http://127.0.0.1/e', true);
    }
    // Project a: 6 sessions × 150 messages; project b: 2 × 150 (its vectors are the bases themselves: closer than a's).
    for (const [pi, count] of [[0, 6], [1, 2]] as const) {
      for (let si = 0; si < count; si++) {
        const session = (await storage.sessions.create({ projectId: projects[pi]! })).id;
        sessions.push(session);
        const stored = (await storage.messages.append(session, Array.from({ length: 150 }, (_, i) => ({ role: i % 3 ? ('assistant' as const) : ('user' as const), content: `message ${pi} ${si} ${i}` })))).messages;
        for (const [f, dims] of [[fp, DIMS], [fpSmall, 8], [fpWide, 1100]] as const) {
          const wide = f === fpWide;
          const planned = stored.filter((_, i) => !wide || i % 10 === 0);
          // Two chunks for every fifth message.
          await chunks.plan(f, planned.flatMap((m, i) => [{ messageId: m.id, chunkIndex: 0, start: 0, end: 5, contentHash: sha(m.content) }, ...(i % 5 === 0 ? [{ messageId: m.id, chunkIndex: 1, start: 5, end: m.content.length, contentHash: sha(m.content) }] : [])]));
          const work = await claims.claim({ fingerprintId: f, endpoint: 'http://127.0.0.1/e', owner: 't', limit: 1000, leaseMs: 60_000, maxAttempts: 3, projectId: projects[pi]! });
          const vectorOf = (n: number): Float32Array => {
            if (dims !== DIMS) return unit(Float32Array.from({ length: dims }, () => r() - 0.5));
            const base = bases[Math.floor(r() * bases.length)]!;
            if (pi === 1) return base; // exact ties with the queries below, in the other project
            const kind = n % 10;
            // 0: an exact duplicate of the base (ties); 1: not unit (no compact copy); else a near-tie (noise ~1e-4, below halfvec's resolution) or a wider neighbour.
            if (kind === 0) return base;
            if (kind === 1) return base.map((x) => x * 2);
            const scale = kind < 7 ? 1e-4 : 0.05;
            return unit(base.map((x) => x + (r() - 0.5) * scale));
          };
          await claims.complete('t', work.map((chunk, n) => ({ chunk, vector: vectorOf(n) })));
        }
      }
    }
    // A hidden session, deleted rows of a live session.
    await db.pool.query('update sessions set hidden = true where id = $1', [sessions[5]]);
    await db.pool.query("update messages set visibility = 'deleted' where session_id = $1 and id % 4 = 0", [sessions[4]]);
    await db.pool.query('vacuum analyze semantic_chunks');
  }, 120_000);
  afterAll(async () => {
    await storage?.close();
    await db?.close();
  });

  /** The plain float exact statement over the allowed set, as the owner (no policies), hits per message. */
  async function truth(f: number, projectId: string, q: Float32Array, limit: number, roles: string[], caller: string | null) {
    const rows = (
      await db.pool.query(
        `select c.message_id, c.session_id, c.start, c."end", c.embedding <#> $2::vector as distance
           from semantic_chunks c join sessions s on s.id = c.session_id
          where c.fingerprint_id = $1 and c.status = 'ready' and c.embedding is not null and not s.hidden
            and c.visibility in ('live', 'compacted') and c.project_id = $3 and s.project_id = c.project_id
            and (cardinality($4::text[]) = 0 or c.role = any($4)) and not (c.session_id is not distinct from $5 and c.visibility = 'live')
          order by distance, c.message_id, c.id`,
        [f, `[${Array.from(q).join(',')}]`, projectId, roles, caller],
      )
    ).rows;
    return firstPerMessage(rows, limit);
  }

  it('equals the plain statement for random queries, limits, roles and callers; nothing outside the scope', async () => {
    const projectA = new Set((await db.pool.query('select m.id from messages m join sessions s on s.id = m.session_id where s.project_id = $1 and not s.hidden', [projects[0]])).rows.map((x) => Number(x.id)));
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          which: fc.constantFrom('fp', 'fp', 'fp', 'small', 'wide'),
          base: fc.nat({ max: bases.length - 1 }),
          noise: fc.constantFrom(0, 1e-5, 1e-3, 0.3),
          seed: fc.nat(),
          limit: fc.constantFrom(1, 3, 10, 25, 60),
          roles: fc.constantFrom([] as string[], ['user'], ['assistant']),
          caller: fc.option(fc.nat({ max: 4 }), { nil: null }),
        }),
        async (c) => {
          const [f, dims] = c.which === 'fp' ? [fp, DIMS] : c.which === 'small' ? [fpSmall, 8] : [fpWide, 1100];
          const r = seededRng(c.seed);
          const q = dims === DIMS ? unit(bases[c.base]!.map((x) => x + (r() - 0.5) * c.noise)) : unit(Float32Array.from({ length: dims }, () => r() - 0.5));
          const caller = c.caller === null ? null : sessions[c.caller]!;
          const got = await storage.semantic!.chunks.search({ kind: 'project', projectId: projects[0]!, currentSessionId: caller }, f, q, { limit: c.limit, roles: c.roles as Array<'user' | 'assistant'> });
          const want = await truth(f, projects[0]!, q, c.limit, c.roles, caller);
          expect(got).toEqual(want);
          for (const h of got) expect(projectA.has(h.messageId)).toBe(true);
        },
      ),
      { numRuns: 120, seed: 19 },
    );
  }, 120_000);

  it('ranks the first stage with an index-only scan of semantic_chunks_half_idx', async () => {
    const plan = (
      await db.pool.query(
        `explain select c.id, c.embedding_half <#> $2::halfvec as dh from semantic_chunks c
          where c.fingerprint_id = $1 and c.status = 'ready' and c.project_id = $3 and c.visibility in ('live', 'compacted')
          order by dh nulls first, c.id limit 64`,
        [fp, `[${Array.from(bases[0]!).join(',')}]`, projects[0]],
      )
    ).rows.map((x) => String(x['QUERY PLAN']));
    // The test corpus is small: the planner may pick a seq scan by cost, so ask it without one.
    const forced = await (async () => {
      const client = await db.pool.connect();
      try {
        await client.query('begin');
        await client.query('set local enable_seqscan = off');
        const rows = (
          await client.query(
            `explain select c.id, c.embedding_half <#> $2::halfvec as dh from semantic_chunks c
              where c.fingerprint_id = $1 and c.status = 'ready' and c.project_id = $3 and c.visibility in ('live', 'compacted')
              order by dh nulls first, c.id limit 64`,
            [fp, `[${Array.from(bases[0]!).join(',')}]`, projects[0]],
          )
        ).rows.map((x) => String(x['QUERY PLAN']));
        await client.query('rollback');
        return rows;
      } finally {
        client.release();
      }
    })();
    expect(plan.length).toBeGreaterThan(0);
    expect(forced.join('\n')).toMatch(/Index Only Scan using semantic_chunks_half_idx/);
  });

  it('stores a compact copy only for unit vectors of at most 1024 dimensions', async () => {
    const r = (
      await db.pool.query(
        `select c.fingerprint_id, count(*) filter (where embedding_half is not null) as half, count(*) filter (where abs(vector_norm(embedding) - 1) > 0.001) as nonunit, count(*) as n
           from semantic_chunks c where status = 'ready' group by c.fingerprint_id order by c.fingerprint_id`,
      )
    ).rows.map((x) => ({ fp: Number(x.fingerprint_id), half: Number(x.half), nonunit: Number(x.nonunit), n: Number(x.n) }));
    const byFp = new Map(r.map((x) => [x.fp, x]));
    expect(byFp.get(fp)!.nonunit).toBeGreaterThan(0);
    expect(byFp.get(fp)!.half).toBe(byFp.get(fp)!.n - byFp.get(fp)!.nonunit);
    expect(byFp.get(fpSmall)!.half).toBe(byFp.get(fpSmall)!.n);
    expect(byFp.get(fpWide)!.half).toBe(0);
  });
  it('uses the HNSW index only while the measured recall for the project is at least 0.98', async () => {
    await createHnswIndex(db.pool, fp, DIMS);
    const q = unit(bases[3]!.map((x, i) => x + (i % 2 ? 1e-3 : -1e-3)));
    const scope = { kind: 'project' as const, projectId: projects[0]!, currentSessionId: null };
    const exact = await truth(fp, projects[0]!, q, 10, [], null);
    const settings = { efSearch: 1, iterativeScan: 'off' as const, maxScanTuples: 20_000 };
    const allowed = `c.fingerprint_id = $1 and c.status = 'ready' and not s.hidden and c.visibility in ('live','compacted') and c.project_id = $3 and s.project_id = c.project_id`;
    const viaIndex = await scopedRead(db.pool, { projectId: projects[0]! }, (tx) => hnswRanked(tx, { fingerprintId: fp, dims: DIMS, settings, allowed, params: [fp, `[${Array.from(q).join(',')}]`, projects[0]], limit: 10 }));
    const record = (recall: number) =>
      db.pool.query(
        `insert into semantic_ann (fingerprint_id, project_id, ef_search, iterative_scan, max_scan_tuples, recall_at_10, queries, chunks, measured_at) values ($1, $2, 1, 'off', 20000, $3, 1, 1, 0)
         on conflict (fingerprint_id, project_id) do update set recall_at_10 = excluded.recall_at_10`,
        [fp, projects[0], recall],
      );
    const cases: Array<{ recall: number | null; index: boolean; want: 'exact' | 'index' }> = [
      { recall: null, index: true, want: 'exact' },
      { recall: 0.975, index: true, want: 'exact' },
      { recall: 0.98, index: true, want: 'index' },
      { recall: 0.999, index: true, want: 'index' },
      { recall: 0.999, index: false, want: 'exact' },
    ];
    for (const c of cases) {
      if (c.index) await createHnswIndex(db.pool, fp, DIMS);
      else await db.pool.query(`drop index ${hnswIndexName(fp)}`);
      if (c.recall === null) await closeHnswGate(db.pool, fp, projects[0]!);
      else await record(c.recall);
      const plan = await scopedRead(db.pool, { projectId: projects[0]! }, (tx) => annPlan(tx, fp, projects[0]!));
      expect(plan?.hnsw ?? null).toEqual(c.want === 'index' ? settings : null);
      const got = await storage.semantic!.chunks.search(scope, fp, q, { limit: 10 });
      expect(got).toEqual(c.want === 'exact' ? exact : viaIndex);
    }
    await createHnswIndex(db.pool, fp, DIMS);
    // Another project has no measurement: exact there although the index exists.
    const other = await storage.semantic!.chunks.search({ kind: 'project', projectId: projects[1]!, currentSessionId: null }, fp, q, { limit: 10 });
    expect(other).toEqual(await truth(fp, projects[1]!, q, 10, [], null));
    await closeHnswGate(db.pool, fp, projects[0]!);
  });

  it('measureHnswRecall records the measured recall; the gate opens only at 0.98', async () => {
    const queries = bases.slice(0, 6).map((b) => unit(b.map((x, i) => x + (i % 3 ? 2e-2 : -2e-2))));
    const projectA = new Set((await db.pool.query('select m.id from messages m join sessions s on s.id = m.session_id where s.project_id = $1', [projects[0]])).rows.map((x) => Number(x.id)));
    for (const grid of [[{ efSearch: 1, iterativeScan: 'off' as const, maxScanTuples: 20_000 }], [{ efSearch: 400, iterativeScan: 'strict_order' as const, maxScanTuples: 40_000 }]]) {
      const m = await measureHnswRecall(db.pool, { fingerprintId: fp, dims: DIMS, projectId: projects[0]!, queries, grid });
      const row = (await db.pool.query('select recall_at_10, ef_search, iterative_scan from semantic_ann where fingerprint_id = $1 and project_id = $2', [fp, projects[0]])).rows[0];
      expect(Number(row.recall_at_10)).toBeCloseTo(m.recallAt10, 12);
      expect(m.open).toBe(m.recallAt10 >= 0.98);
      const got = await storage.semantic!.chunks.search({ kind: 'project', projectId: projects[0]!, currentSessionId: null }, fp, queries[0]!, { limit: 10 });
      for (const h of got) expect(projectA.has(h.messageId)).toBe(true);
      if (!m.open) expect(got).toEqual(await truth(fp, projects[0]!, queries[0]!, 10, [], null));
    }
    await closeHnswGate(db.pool, fp, projects[0]!);
  }, 60_000);

  it('createHnswIndex reports a build (0 → every stored vector of the fingerprint, never backwards) and nothing for an index that exists', async () => {
    const stored = Number((await db.pool.query('select count(*) as n from semantic_chunks where fingerprint_id = $1 and embedding is not null', [fp])).rows[0].n);
    expect(stored).toBeGreaterThan(0);
    await db.pool.query(`drop index if exists ${hnswIndexName(fp)}`);
    const reports: Array<[number, number]> = [];
    await createHnswIndex(db.pool, fp, DIMS, { onProgress: (done, total) => reports.push([done, total]) });
    expect(reports[0]).toEqual([0, stored]);
    expect(reports.at(-1)).toEqual([stored, stored]);
    for (let i = 1; i < reports.length; i++) expect(reports[i]![0]).toBeGreaterThanOrEqual(reports[i - 1]![0]);
    expect((await db.pool.query('select to_regclass($1) is not null as found', [hnswIndexName(fp)])).rows[0].found).toBe(true);
    const again: unknown[] = [];
    await createHnswIndex(db.pool, fp, DIMS, { onProgress: (...r) => again.push(r) });
    expect(again).toEqual([]);
  }, 60_000);
});
