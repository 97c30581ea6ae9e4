/**
 * The PostgreSQL search path through the matrix cache (port-search.ts `cachedChunkSearch` over
 * @recall/store-postgres's ChunkStore.projectVectors), on a real PostgreSQL (tooling/config
 * startThrowawayPostgres), with two "gateways" (two storages, two pools, one cache each):
 * - property: random appends, moves between projects, hides/unhides, deletes, edits, rewinds and
 *   compactions through either gateway, interleaved with searches through either (random project,
 *   query, limit, role filter, caller), always give the hits of the adapter's SQL exact scan
 *   (ChunkStore.search) — message, session and anchor; scores within float32 accumulation error —
 *   and nothing outside the project; every search is served by the cache (none stale, none
 *   falling back), so the generation triggers covered every change;
 * - the same searches through caches with default settings (misses answered by the SQL scan and
 *   rebuilt in the background, concurrently with the writes) give the same hits, never a stale one;
 * - concurrent searches of a cold project share one load; a write through the other gateway makes
 *   the next search rebuild;
 * - defence in depth: a cache entry of project A forged to hold project B's allowed set (vectors,
 *   chunk ids and anchors, at A's current generation) never returns B's messages: the rescore read
 *   re-checks the allowed set in SQL, the entry is found stale and rebuilt.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import type { ChunkHit, Storage } from '@recall/storage-ports';
import { openPostgres, openPostgresStorage, type RecallPostgres } from '@recall/store-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededUnitVector } from './support/seeded-vectors.js';
import { MatrixCache } from '../src/index.js';
import { cachedChunkSearch, type CachedSearchCounters } from '../src/internal.js';

const DIMS = 8;
/** Load every miss inline (these tests check what the cache serves; postgres-cache-background.test.ts the background rebuilds). */
const INLINE = 1_000_000;
const ENDPOINT = 'http://127.0.0.1/e';
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

const unitVector = (seed: number): Float32Array => seededUnitVector(seed, DIMS);

let cluster: ThrowawayPostgres | undefined;
let owner: RecallPostgres;
const gateways: Storage[] = [];
let fp = 0;
beforeAll(async () => {
  cluster = await startThrowawayPostgres();
  const url = cluster.createDatabase('recall');
  owner = await openPostgres(url);
  for (let i = 0; i < 2; i++) gateways.push(await openPostgresStorage({ kind: 'postgres', url }));
  fp = await gateways[0]!.semantic!.chunks.ensureFingerprint({ provider: 't', endpoint: ENDPOINT, model: 'm', dims: DIMS, normalization: 'l2', chunkerVersion: 1 });
}, 120_000);
afterAll(async () => {
  for (const g of gateways) await g.close();
  await owner?.close();
  await cluster?.stop();
});

/** Appends `n` messages through `storage` and embeds them (1–2 chunks each, vectors seeded by message id). */
async function appendEmbedded(storage: Storage, projectId: string | null, sessionId: string, n: number, role: 'user' | 'assistant') {
  const messages = (await storage.messages.append(sessionId, Array.from({ length: n }, (_, i) => ({ role, content: `text ${sessionId} ${i} ${Math.random()}` })))).messages;
  const chunks = storage.semantic!.chunks;
  await chunks.plan(fp, messages.flatMap((m) => [{ messageId: m.id, chunkIndex: 0, start: 0, end: 4, contentHash: sha(m.content) }, ...(m.id % 3 === 0 ? [{ messageId: m.id, chunkIndex: 1, start: 4, end: 8, contentHash: sha(m.content) }] : [])]));
  if (projectId === null) return messages;
  const work = await storage.semantic!.claims.claim({ fingerprintId: fp, endpoint: ENDPOINT, owner: 't', limit: 100, leaseMs: 60_000, maxAttempts: 3, projectId });
  await storage.semantic!.claims.complete('t', work.map((chunk) => ({ chunk, vector: unitVector(chunk.messageId * 2 + chunk.chunkIndex) })));
  return messages;
}

/** Same hits; where the order differs the two scores are within float32 accumulation error (a near-tie). */
function expectSameHits(got: ChunkHit[], want: ChunkHit[]) {
  expect(got.length).toBe(want.length);
  got.forEach((g, i) => {
    const w = want[i]!;
    expect(Math.abs(g.score - w.score)).toBeLessThan(1e-5);
    if (g.messageId !== w.messageId) expect(Math.abs(g.score - w.score)).toBeLessThan(1e-6);
    else expect({ s: g.sessionId, a: g.start, b: g.end }).toEqual({ s: w.sessionId, a: w.start, b: w.end });
  });
  expect(new Set(got.map((h) => h.messageId))).toEqual(new Set(want.map((h) => h.messageId)));
}

const op = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('append' as const), via: fc.nat(1), session: fc.nat(5), n: fc.integer({ min: 1, max: 4 }), role: fc.constantFrom('user' as const, 'assistant' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('move' as const), via: fc.nat(1), session: fc.nat(5), project: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('hide' as const), via: fc.nat(1), session: fc.nat(5), hidden: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('delete' as const, 'edit' as const, 'rewind' as const, 'compact' as const), via: fc.nat(1), pick: fc.nat(1000) }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('search' as const),
      via: fc.nat(1),
      project: fc.nat(2),
      q: fc.nat(1_000_000),
      limit: fc.integer({ min: 1, max: 8 }),
      roles: fc.constantFrom(undefined, ['user' as const], ['assistant' as const], ['user' as const, 'assistant' as const]),
      caller: fc.option(fc.nat(5), { nil: null }),
    }),
  },
);

describe('PostgreSQL exact search through the matrix cache', () => {
  it('equals the SQL exact scan under random interleaved writes through two gateways', async () => {
    // Inline loads (every miss waits for its rebuild), so every search is served by the cache and
    // checks the triggers; the default caches (misses answered by the SQL scan, rebuilt in the
    // background, concurrently with the writes) must give the same hits and never a stale one.
    const caches = [new MatrixCache({ inlineRows: INLINE }), new MatrixCache({ inlineRows: INLINE })];
    const background = [new MatrixCache(), new MatrixCache()];
    const counters: CachedSearchCounters = { cached: 0, adapter: 0, stale: 0 };
    const backgroundCounters: CachedSearchCounters = { cached: 0, adapter: 0, stale: 0 };
    let searches = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 18 }), async (ops) => {
        const g0 = gateways[0]!;
        const projects: string[] = [];
        for (let p = 0; p < 3; p++) {
          const id = (await g0.projects.create({ name: `p${p}` })).id;
          await g0.semantic!.chunks.setConsent(id, ENDPOINT, true);
          projects.push(id);
        }
        const sessions: string[] = [];
        for (let s = 0; s < 6; s++) {
          const id = (await g0.sessions.create({ projectId: projects[s % 3]! })).id;
          sessions.push(id);
          await appendEmbedded(g0, projects[s % 3]!, id, 3, s % 2 ? 'user' : 'assistant');
        }
        const messageIds = async () => (await owner.pool.query('select m.id, m.session_id from messages m where m.session_id = any($1) order by m.id', [sessions])).rows.map((r) => ({ id: Number(r.id), session: r.session_id as string }));
        for (const o of ops) {
          const storage = gateways[o.via]!;
          if (o.kind === 'append') {
            const session = sessions[o.session]!;
            await appendEmbedded(storage, await storage.sessions.projectId(session), session, o.n, o.role);
          } else if (o.kind === 'move') {
            await storage.sessions.move(sessions[o.session]!, projects[o.project]!);
          } else if (o.kind === 'hide') {
            await owner.pool.query('update sessions set hidden = $2 where id = $1', [sessions[o.session], o.hidden]);
          } else if (o.kind === 'search') {
            const projectId = projects[o.project]!;
            const scope = { kind: 'project' as const, projectId, currentSessionId: o.caller === null ? null : sessions[o.caller]! };
            const q = unitVector(o.q + 7_000_000);
            const options = { limit: o.limit, ...(o.roles ? { roles: o.roles } : {}) };
            const got = await cachedChunkSearch(storage.semantic!.chunks, caches[o.via]!, scope, fp, q, options, counters);
            const want = await storage.semantic!.chunks.search(scope, fp, q, options);
            searches++;
            expectSameHits(got, want);
            expectSameHits(await cachedChunkSearch(storage.semantic!.chunks, background[o.via]!, scope, fp, q, options, backgroundCounters), want);
            if (got.length > 0) {
              const inProject = (await owner.pool.query('select count(*)::int as n from messages m join sessions s on s.id = m.session_id where m.id = any($1) and s.project_id = $2 and not s.hidden', [got.map((h) => h.messageId), projectId])).rows[0].n;
              expect(inProject).toBe(got.length);
            }
          } else {
            const all = await messageIds();
            if (all.length === 0) continue;
            const m = all[o.pick % all.length]!;
            if (o.kind === 'delete') await storage.messages.delete(m.id).catch(() => undefined);
            else if (o.kind === 'edit') await storage.messages.edit(m.id, `edited ${o.pick}`).catch(() => undefined);
            else if (o.kind === 'rewind') await storage.messages.rewind(m.session, m.id).catch(() => undefined);
            else await storage.messages.compact(m.session, m.id).catch(() => undefined);
          }
        }
      }),
      { numRuns: 25 },
    );
    // Every search was served by the cache, none found stale: the triggers covered every change.
    expect(counters).toEqual({ cached: searches, adapter: 0, stale: 0 });
    for (const cache of background) await cache.close();
    expect(backgroundCounters.stale).toBe(0);
    expect(backgroundCounters.cached + backgroundCounters.adapter).toBe(searches);
    expect(backgroundCounters.cached).toBeGreaterThan(0);
    expect(background.map((c) => c.snapshot().backgroundLoads).reduce((a, b) => a + b)).toBeGreaterThan(0);
    expect(searches).toBeGreaterThan(20);
    expect(caches[0]!.snapshot().hits + caches[1]!.snapshot().hits).toBeGreaterThan(0);
  }, 240_000);

  it('concurrent searches of a cold project share one load; an append is caught up, another write makes the next search rebuild', async () => {
    const g = gateways[1]!;
    const chunks = g.semantic!.chunks;
    const p = (await g.projects.create({ name: 'cold' })).id;
    await chunks.setConsent(p, ENDPOINT, true);
    const s = (await g.sessions.create({ projectId: p })).id;
    await appendEmbedded(g, p, s, 8, 'user');
    const cache = new MatrixCache({ inlineRows: INLINE });
    const scope = { kind: 'project' as const, projectId: p, currentSessionId: null };
    const answers = await Promise.all([1, 2, 3].map((i) => cachedChunkSearch(chunks, cache, scope, fp, unitVector(i), { limit: 3 })));
    expect(cache.snapshot().builds).toBe(1);
    for (const [i, got] of answers.entries()) expectSameHits(got, await chunks.search(scope, fp, unitVector(i + 1), { limit: 3 }));
    // An append through the other gateway is caught up by a delta (postgres-cache-delta.property.test.ts)…
    const [added] = await appendEmbedded(gateways[0]!, p, s, 1, 'assistant');
    await cachedChunkSearch(chunks, cache, scope, fp, unitVector(9), { limit: 3 });
    expect(cache.snapshot()).toMatchObject({ builds: 1, deltas: 1, entries: 1 });
    // …any other write makes the next search rebuild.
    await gateways[0]!.messages.edit(added!.id, 'edited through the other gateway');
    await cachedChunkSearch(chunks, cache, scope, fp, unitVector(9), { limit: 3 });
    expect(cache.snapshot()).toMatchObject({ builds: 2, deltas: 1, entries: 1 });
  }, 60_000);

  it('a forged entry holding another project’s allowed set never returns that project’s messages', async () => {
    const g = gateways[0]!;
    const chunks = g.semantic!.chunks;
    const [a, b] = [(await g.projects.create({ name: 'A' })).id, (await g.projects.create({ name: 'B' })).id];
    for (const p of [a, b]) await chunks.setConsent(p, ENDPOINT, true);
    const sa = (await g.sessions.create({ projectId: a })).id;
    const sb = (await g.sessions.create({ projectId: b })).id;
    await appendEmbedded(g, a, sa, 6, 'assistant');
    const bMessages = await appendEmbedded(g, b, sb, 6, 'assistant');
    const source = chunks.projectVectors!;
    const cache = new MatrixCache({ inlineRows: INLINE });
    const counters: CachedSearchCounters = { cached: 0, adapter: 0, stale: 0 };
    const scope = { kind: 'project' as const, projectId: a, currentSessionId: null };
    // The query is one of B's vectors: B's chunk would be the best hit if the forged entry were believed.
    const q = unitVector(bMessages[0]!.id * 2);
    const want = await chunks.search(scope, fp, q, { limit: 5 });
    // Forge: A's key at A's current generation, with B's rows (vectors, chunk ids, anchors).
    const generation = (await source.withProject(a, (r) => r.plan(fp)))!.generation;
    const rowsOfB = (await source.withProject(b, (r) => r.load(fp, DIMS, 1000)))!;
    await cache.getAsync(
      {
        identity: source.identity,
        generation: async () => generation,
        load: async () => ({
          fingerprintId: fp,
          dims: DIMS,
          sessions: rowsOfB.sessions,
          segments: rowsOfB.segments.map((r) => ({ ...r, matrix: { dims: DIMS, rows: r.rows, data: r.vectors } })),
          rows: rowsOfB.segments.reduce((n, r) => n + r.rows, 0),
          bytes: 0,
          skipped: 0,
          readVectors: () => new Map(),
        }),
      },
      a,
      fp,
      DIMS,
    );
    const got = await cachedChunkSearch(chunks, cache, scope, fp, q, { limit: 5 }, counters);
    const bIds = new Set(bMessages.map((m) => m.id));
    expect(got.filter((h) => bIds.has(h.messageId) || h.sessionId === sb)).toEqual([]);
    expectSameHits(got, want);
    expect(counters).toEqual({ cached: 1, adapter: 0, stale: 1 });
    // The rebuilt entry is A's own: the next search is a cache hit with the same answer.
    expectSameHits(await cachedChunkSearch(chunks, cache, scope, fp, q, { limit: 5 }, counters), want);
    expect(counters.stale).toBe(1);
  }, 60_000);
});
