/**
 * The PostgreSQL matrix cache catching up with additions by a delta (matrix-cache.ts getAsync +
 * matrix-delta.ts tails, over @recall/store-postgres's `loadAdded` and migration 0014's log), on a
 * real PostgreSQL (tooling/config startThrowawayPostgres), two "gateways" (two storages, two pools):
 * - property: random appends (the common write, weighted), edits, deletes, rewinds, compactions,
 *   hides/unhides and moves between projects through either gateway; after EVERY step, a search of
 *   every project through each gateway's cache (random query, limit, role filter, caller) gives the
 *   hits of the adapter's SQL exact scan (ChunkStore.search), never a message outside the project or
 *   of a hidden session; every search is served by the cache, none stale; appends were caught up
 *   by deltas (not rebuilds), with tails of several appends requantised;
 * - table: which write is caught up by a delta and which forces the full rebuild (an edit, a hide,
 *   a move in or out, a delete, a tail past its limit, `delta: false`);
 * - a default cache (misses rebuilt in the background): the search right after an append is served
 *   by the cache through the delta, not by the SQL scan, and starts no background rebuild.
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
/** Load every miss inline (each search then checks what the cache serves). */
const INLINE = 1_000_000;
const ENDPOINT = 'http://127.0.0.1/e';
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

const unitVector = (seed: number, spread = 1): Float32Array => seededUnitVector(seed, DIMS, spread);

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

/**
 * Appends `n` messages through `storage` and embeds them (1–2 chunks each; vectors seeded by chunk,
 * some with a component far outside the others, so tails need their own scales). `completeIn`
 * splits the completion into that many statements (one addition each).
 */
async function appendEmbedded(storage: Storage, projectId: string | null, sessionId: string, n: number, role: 'user' | 'assistant', completeIn = 1) {
  const messages = (await storage.messages.append(sessionId, Array.from({ length: n }, (_, i) => ({ role, content: `text ${sessionId} ${i} ${Math.random()}` })))).messages;
  const chunks = storage.semantic!.chunks;
  await chunks.plan(fp, messages.flatMap((m) => [{ messageId: m.id, chunkIndex: 0, start: 0, end: 4, contentHash: sha(m.content) }, ...(m.id % 3 === 0 ? [{ messageId: m.id, chunkIndex: 1, start: 4, end: 8, contentHash: sha(m.content) }] : [])]));
  if (projectId === null) return messages;
  const work = await storage.semantic!.claims.claim({ fingerprintId: fp, endpoint: ENDPOINT, owner: 't', limit: 100, leaseMs: 60_000, maxAttempts: 3, projectId });
  const size = Math.max(1, Math.ceil(work.length / completeIn));
  for (let i = 0; i < work.length; i += size) {
    await storage.semantic!.claims.complete('t', work.slice(i, i + size).map((chunk) => ({ chunk, vector: unitVector(chunk.messageId * 2 + chunk.chunkIndex, 6) })));
  }
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

/** Every hit is a message of `projectId` in a visible session. */
async function expectInProject(hits: ChunkHit[], projectId: string) {
  if (hits.length === 0) return;
  const n = (await owner.pool.query('select count(*)::int as n from messages m join sessions s on s.id = m.session_id where m.id = any($1) and s.project_id = $2 and not s.hidden', [hits.map((h) => h.messageId), projectId])).rows[0].n;
  expect(n).toBe(hits.length);
}

const write = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('append' as const), via: fc.nat(1), session: fc.nat(5), n: fc.integer({ min: 1, max: 5 }), role: fc.constantFrom('user' as const, 'assistant' as const), statements: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('move' as const), via: fc.nat(1), session: fc.nat(5), project: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('hide' as const), via: fc.nat(1), session: fc.nat(5), hidden: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('delete' as const, 'edit' as const, 'rewind' as const, 'compact' as const), via: fc.nat(1), pick: fc.nat(1000) }) },
);
type Probe = { q: number; limit: number; roles: ('user' | 'assistant')[] | undefined; caller: number | null };
const probe: fc.Arbitrary<Probe> = fc.record({
  q: fc.nat(1_000_000),
  limit: fc.integer({ min: 1, max: 8 }),
  roles: fc.constantFrom(undefined, ['user' as const], ['assistant' as const], ['user' as const, 'assistant' as const]),
  caller: fc.option(fc.nat(5), { nil: null }),
});

describe('PostgreSQL matrix cache: catching up with additions by a delta', () => {
  it('equals the SQL exact scan after every random write, through two gateways', async () => {
    const caches = [new MatrixCache({ inlineRows: INLINE }), new MatrixCache({ inlineRows: INLINE })];
    const counters: CachedSearchCounters = { cached: 0, adapter: 0, stale: 0 };
    let searches = 0;
    let appends = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(write, probe), { minLength: 4, maxLength: 14 }), async (steps) => {
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
        const searchAll = async (p: Probe, salt: number) => {
          for (const [via, storage] of gateways.entries()) {
            for (const [pi, projectId] of projects.entries()) {
              const scope = { kind: 'project' as const, projectId, currentSessionId: p.caller === null ? null : sessions[p.caller]! };
              const q = unitVector(p.q * 7 + pi * 3 + via + salt * 11 + 7_000_000);
              const options = { limit: p.limit, ...(p.roles ? { roles: p.roles } : {}) };
              const got = await cachedChunkSearch(storage.semantic!.chunks, caches[via]!, scope, fp, q, options, counters);
              const want = await storage.semantic!.chunks.search(scope, fp, q, options);
              searches++;
              expectSameHits(got, want);
              await expectInProject(got, projectId);
            }
          }
        };
        await searchAll({ q: 1, limit: 5, roles: undefined, caller: null }, 0); // warm every entry
        for (const [i, [o, p]] of steps.entries()) {
          const storage = gateways[o.via]!;
          if (o.kind === 'append') {
            const session = sessions[o.session]!;
            await appendEmbedded(storage, await storage.sessions.projectId(session), session, o.n, o.role, o.statements);
            appends++;
          } else if (o.kind === 'move') {
            await storage.sessions.move(sessions[o.session]!, projects[o.project]!);
          } else if (o.kind === 'hide') {
            await owner.pool.query('update sessions set hidden = $2 where id = $1', [sessions[o.session], o.hidden]);
          } else {
            const all = await messageIds();
            if (all.length > 0) {
              const m = all[o.pick % all.length]!;
              if (o.kind === 'delete') await storage.messages.delete(m.id).catch(() => undefined);
              else if (o.kind === 'edit') await storage.messages.edit(m.id, `edited ${o.pick}`).catch(() => undefined);
              else if (o.kind === 'rewind') await storage.messages.rewind(m.session, m.id).catch(() => undefined);
              else await storage.messages.compact(m.session, m.id).catch(() => undefined);
            }
          }
          await searchAll(p, i + 1);
        }
      }),
      { numRuns: 12 },
    );
    // Every search served by the cache, none stale; appends were caught up by deltas.
    expect(counters).toEqual({ cached: searches, adapter: 0, stale: 0 });
    const stats = caches.map((c) => c.snapshot());
    const deltas = stats.reduce((n, s) => n + s.deltas, 0);
    expect(appends).toBeGreaterThan(10);
    expect(deltas).toBeGreaterThan(appends / 2);
    expect(stats.reduce((n, s) => n + s.deltaRows, 0)).toBeGreaterThan(deltas);
  }, 600_000);

  /** A project with two sessions of embedded messages, a warm inline cache on gateway 1, and a search helper. */
  async function fixture(options: ConstructorParameters<typeof MatrixCache>[0] = { inlineRows: INLINE }) {
    const g = gateways[1]!;
    const chunks = g.semantic!.chunks;
    const p = (await g.projects.create({ name: 'table' })).id;
    const other = (await g.projects.create({ name: 'other' })).id;
    for (const id of [p, other]) await chunks.setConsent(id, ENDPOINT, true);
    const s = [(await g.sessions.create({ projectId: p })).id, (await g.sessions.create({ projectId: p })).id];
    const elsewhere = (await g.sessions.create({ projectId: other })).id;
    await appendEmbedded(g, p, s[0]!, 6, 'user');
    await appendEmbedded(g, p, s[1]!, 4, 'assistant');
    await appendEmbedded(g, other, elsewhere, 4, 'user');
    const cache = new MatrixCache(options);
    const counters: CachedSearchCounters = { cached: 0, adapter: 0, stale: 0 };
    const scope = { kind: 'project' as const, projectId: p, currentSessionId: null };
    const search = async (q: Float32Array) => {
      const got = await cachedChunkSearch(chunks, cache, scope, fp, q, { limit: 5 }, counters);
      expectSameHits(got, await chunks.search(scope, fp, q, { limit: 5 }));
      await expectInProject(got, p);
      return got;
    };
    await search(unitVector(1));
    await cache.settled();
    await search(unitVector(2));
    return { p, other, s, elsewhere, cache, counters, search };
  }

  const cases: Array<{ name: string; then: 'delta' | 'rebuild' | 'hit'; options?: ConstructorParameters<typeof MatrixCache>[0]; run: (f: Awaited<ReturnType<typeof fixture>>) => Promise<unknown> }> = [
    { name: 'an append through the other gateway', then: 'delta', run: (f) => appendEmbedded(gateways[0]!, f.p, f.s[0]!, 3, 'user') },
    { name: 'an append completed in three statements', then: 'delta', run: (f) => appendEmbedded(gateways[0]!, f.p, f.s[1]!, 4, 'assistant', 3) },
    { name: 'an append to another project', then: 'hit', run: (f) => appendEmbedded(gateways[0]!, f.other, f.elsewhere, 3, 'user') },
    { name: 'an append with delta: false', then: 'rebuild', options: { inlineRows: INLINE, delta: false }, run: (f) => appendEmbedded(gateways[0]!, f.p, f.s[0]!, 2, 'user') },
    { name: 'an append past the tail limit', then: 'rebuild', options: { inlineRows: INLINE, maxTailRows: 2 }, run: (f) => appendEmbedded(gateways[0]!, f.p, f.s[0]!, 3, 'user') },
    { name: 'an edit', then: 'rebuild', run: async (f) => gateways[0]!.messages.edit((await gateways[0]!.messages.list(f.s[0]!))[1]!.id, 'changed') },
    { name: 'a delete', then: 'rebuild', run: async (f) => gateways[0]!.messages.delete((await gateways[0]!.messages.list(f.s[1]!))[0]!.id) },
    { name: 'a session hidden', then: 'rebuild', run: (f) => owner.pool.query('update sessions set hidden = true where id = $1', [f.s[1]]) },
    { name: 'a session moved out', then: 'rebuild', run: (f) => gateways[0]!.sessions.move(f.s[1]!, f.other) },
    { name: 'a session moved in', then: 'rebuild', run: (f) => gateways[0]!.sessions.move(f.elsewhere, f.p) },
  ];
  it.each(cases)('$name → $then', async ({ then, options, run }) => {
    const f = await fixture(options);
    const before = f.cache.snapshot();
    await run(f);
    // The best hit of a new vector: the newest message of the project when it was appended there.
    const newest = (await owner.pool.query("select c.message_id from semantic_chunks c where c.project_id = $1 and c.status = 'ready' order by c.id desc limit 1", [f.p])).rows[0];
    const q = unitVector(Number(newest.message_id) * 2, 6);
    await f.search(q);
    const after = f.cache.snapshot();
    expect({ deltas: after.deltas - before.deltas, builds: after.builds - before.builds }).toEqual({ deltas: then === 'delta' ? 1 : 0, builds: then === 'rebuild' ? 1 : 0 });
    expect(f.counters).toEqual({ cached: 3, adapter: 0, stale: 0 });
    await f.search(unitVector(5)); // a hit of the caught-up (or rebuilt) entry
    expect(f.cache.snapshot().hits).toBeGreaterThan(after.hits);
  });

  it('an entry whose rows were not read exactly at its generation (a write between plan and rows) is rebuilt, not caught up', async () => {
    const g = gateways[1]!;
    const real = g.semantic!.chunks;
    const source = real.projectVectors!;
    // The adapter as it would answer had a write committed between `plan` and the rows.
    const racing = { ...source, withProject: <T>(projectId: string, fn: (reads: Parameters<Parameters<typeof source.withProject>[1]>[0]) => Promise<T>) =>
      source.withProject(projectId, (reads) => fn({ ...reads, load: async (...args) => { const rows = await reads.load(...args); return rows && { ...rows, generationAfter: -1 }; } })) };
    const chunks = { ...real, projectVectors: racing };
    const p = (await g.projects.create({ name: 'racing' })).id;
    await real.setConsent(p, ENDPOINT, true);
    const s = (await g.sessions.create({ projectId: p })).id;
    await appendEmbedded(g, p, s, 4, 'user');
    const cache = new MatrixCache({ inlineRows: INLINE });
    const scope = { kind: 'project' as const, projectId: p, currentSessionId: null };
    await cachedChunkSearch(chunks, cache, scope, fp, unitVector(1), { limit: 3 });
    await appendEmbedded(gateways[0]!, p, s, 2, 'user');
    const got = await cachedChunkSearch(chunks, cache, scope, fp, unitVector(2), { limit: 3 });
    expectSameHits(got, await real.search(scope, fp, unitVector(2), { limit: 3 }));
    expect(cache.snapshot()).toMatchObject({ builds: 2, deltas: 0 });
  });

  it('with the default cache, the search right after an append is served by the delta, not the SQL scan', async () => {
    const f = await fixture({});
    expect(f.counters).toEqual({ cached: 1, adapter: 1, stale: 0 }); // cold: the SQL scan answered, then a hit
    const before = f.cache.snapshot();
    for (let i = 0; i < 5; i++) {
      const [m] = await appendEmbedded(gateways[0]!, f.p, f.s[i % 2]!, 1, 'user');
      const got = await f.search(unitVector(m!.id * 2, 6));
      expect(got[0]!.messageId).toBe(m!.id);
    }
    const after = f.cache.snapshot();
    expect(f.counters).toEqual({ cached: 6, adapter: 1, stale: 0 });
    expect({ deltas: after.deltas - before.deltas, backgroundLoads: after.backgroundLoads - before.backgroundLoads }).toEqual({ deltas: 5, backgroundLoads: 0 });
  });

  it('concurrent searches right after an append share one delta', async () => {
    const f = await fixture();
    const before = f.cache.snapshot();
    const [m] = await appendEmbedded(gateways[0]!, f.p, f.s[0]!, 1, 'assistant');
    const answers = await Promise.all([0, 1, 2].map(() => f.search(unitVector(m!.id * 2, 6))));
    for (const got of answers) expect(got[0]!.messageId).toBe(m!.id);
    const after = f.cache.snapshot();
    expect({ deltas: after.deltas - before.deltas, rows: after.deltaRows - before.deltaRows, builds: after.builds - before.builds }).toEqual({ deltas: 1, rows: m!.id % 3 === 0 ? 2 : 1, builds: 0 }); // appendEmbedded: 2 chunks for every third id
  });
});
