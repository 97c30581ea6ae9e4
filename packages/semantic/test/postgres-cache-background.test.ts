/**
 * A miss of the PostgreSQL matrix cache never waits for a load (matrix-cache.ts getAsync with the
 * source's `loadDetached`, port-search.ts): on a real PostgreSQL (tooling/config
 * startThrowawayPostgres), with a cache whose inline threshold is below the fixture's size:
 * - a warm entry, then an append with ready vectors (the generation bumps): the next search is
 *   answered by the SQL exact scan with the current hits (the new message first) while the
 *   rebuild is held in the background (a gate on the background read: the search returned before
 *   it could finish), and once it has finished the next search is a cache hit again;
 * - a rebuild that finishes after a search saw a newer generation is dropped, never served;
 * - close() aborts a rebuild under way: it is counted as an error, nothing is rejected unhandled,
 *   and searches after it still answer (through the SQL scan).
 */
import { createHash } from 'node:crypto';
import type { ChunkHit, ChunkStore, ProjectVectorSource, Storage } from '@recall/storage-ports';
import { describe, expect, it } from 'vitest';
import { usePostgresSemantic } from './support/postgres-semantic.js';
import { seededUnitVector } from './support/seeded-vectors.js';
import { MatrixCache } from '../src/index.js';
import { cachedChunkSearch, type CachedSearchCounters } from '../src/internal.js';

const DIMS = 8;
const ENDPOINT = 'http://127.0.0.1/e';
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** The unit vector of a seed (support/seeded-vectors.ts; the same vectors as before it was shared). */
const unitVector = (seed: number): Float32Array => seededUnitVector(seed, DIMS);

let storage: Storage;
let fp = 0;
usePostgresSemantic(DIMS, ENDPOINT, (s, f) => {
  storage = s;
  fp = f;
});

/** Appends `n` messages and embeds them (one chunk each, the vector seeded by the message id). */
async function appendEmbedded(projectId: string, sessionId: string, n: number) {
  const messages = (await storage.messages.append(sessionId, Array.from({ length: n }, (_, i) => ({ role: 'user' as const, content: `text ${i} ${Math.random()}` })))).messages;
  await storage.semantic!.chunks.plan(fp, messages.map((m) => ({ messageId: m.id, chunkIndex: 0, start: 0, end: 4, contentHash: sha(m.content) })));
  const work = await storage.semantic!.claims.claim({ fingerprintId: fp, endpoint: ENDPOINT, owner: 't', limit: 100, leaseMs: 60_000, maxAttempts: 3, projectId });
  await storage.semantic!.claims.complete('t', work.map((chunk) => ({ chunk, vector: unitVector(chunk.messageId) })));
  return messages;
}

async function project(n: number) {
  const chunks = storage.semantic!.chunks;
  const id = (await storage.projects.create({ name: `p${Math.random()}` })).id;
  await chunks.setConsent(id, ENDPOINT, true);
  const session = (await storage.sessions.create({ projectId: id })).id;
  await appendEmbedded(id, session, n);
  return { id, session, scope: { kind: 'project' as const, projectId: id, currentSessionId: null } };
}

/** The storage's ChunkStore with background reads (those given an abort signal) held until `release()`. */
function gated(chunks: ChunkStore) {
  const source = chunks.projectVectors!;
  let open!: () => void;
  let gate = new Promise<void>((resolve) => (open = resolve));
  let waiting = 0;
  const projectVectors: ProjectVectorSource = {
    identity: source.identity,
    detached: source.detached === true,
    withProject: (projectId, fn) =>
      source.withProject(projectId, (reads) =>
        fn({
          ...reads,
          load: async (fingerprintId, dims, maxRows, signal) => {
            if (signal) {
              waiting++;
              await gate;
              waiting--;
            }
            return reads.load(fingerprintId, dims, maxRows, signal);
          },
        }),
      ),
  };
  return {
    chunks: { ...chunks, search: chunks.search.bind(chunks), projectVectors } as ChunkStore,
    waiting: () => waiting,
    release() {
      open();
      gate = new Promise<void>((resolve) => (open = resolve));
    },
  };
}

function expectSameHits(got: ChunkHit[], want: ChunkHit[]) {
  expect(got.map((h) => [h.messageId, h.sessionId, h.start, h.end])).toEqual(want.map((h) => [h.messageId, h.sessionId, h.start, h.end]));
  got.forEach((g, i) => expect(Math.abs(g.score - want[i]!.score)).toBeLessThan(1e-5));
}

/** Waits (bounded) until `cond()` holds: the background read reaching the gate. */
async function until(cond: () => boolean) {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
}

describe('a PostgreSQL matrix-cache miss never waits for the load', () => {
  it('after an append the next search is the SQL scan’s current answer, the rebuild runs in the background, then hits', async () => {
    const p = await project(12);
    const g = gated(storage.semantic!.chunks);
    // delta: false — an append is otherwise caught up by a delta without a miss (postgres-cache-delta.property.test.ts); this is the miss path.
    const cache = new MatrixCache({ inlineRows: 4, delta: false });
    const counters: CachedSearchCounters = { cached: 0, adapter: 0, stale: 0 };
    const q = unitVector(3);
    // Cold: 12 rows > 4 (counted by the bounded inline load), so the SQL scan answers and the load is deferred.
    expectSameHits(await cachedChunkSearch(g.chunks, cache, p.scope, fp, q, { limit: 5 }, counters), await storage.semantic!.chunks.search(p.scope, fp, q, { limit: 5 }));
    expect(counters).toEqual({ cached: 0, adapter: 1, stale: 0 });
    await until(() => g.waiting() === 1);
    g.release();
    await cache.settled();
    await cachedChunkSearch(g.chunks, cache, p.scope, fp, q, { limit: 5 }, counters);
    expect(counters).toEqual({ cached: 1, adapter: 1, stale: 0 });
    expect(cache.snapshot()).toMatchObject({ entries: 1, backgroundLoads: 1, deferred: 1, loadErrors: 0 });

    // An append with a ready vector bumps the generation; the query is the new message's own vector.
    const [added] = await appendEmbedded(p.id, p.session, 1);
    const q2 = unitVector(added!.id);
    const builds = cache.snapshot().builds;
    const got = await cachedChunkSearch(g.chunks, cache, p.scope, fp, q2, { limit: 5 }, counters);
    // Answered while the rebuild is held at the gate (closed: it cannot finish, so the search did not
    // wait for it). The background read reaches the gate after its own transaction opens, which may
    // be after the search has returned: waited for (bounded), as for the cold load above.
    await until(() => g.waiting() === 1);
    expect(cache.snapshot()).toMatchObject({ builds, backgroundLoads: 2, deferred: 2 });
    expect(counters).toEqual({ cached: 1, adapter: 2, stale: 0 });
    expect(got[0]!.messageId).toBe(added!.id);
    expectSameHits(got, await storage.semantic!.chunks.search(p.scope, fp, q2, { limit: 5 }));
    // A second search meanwhile neither waits nor starts another load.
    await cachedChunkSearch(g.chunks, cache, p.scope, fp, q2, { limit: 5 }, counters);
    expect(cache.snapshot()).toMatchObject({ backgroundLoads: 2, deferred: 3 });
    g.release();
    await cache.settled();
    const again = await cachedChunkSearch(g.chunks, cache, p.scope, fp, q2, { limit: 5 }, counters);
    expect(counters).toEqual({ cached: 2, adapter: 3, stale: 0 });
    expect(again[0]!.messageId).toBe(added!.id);
    expectSameHits(again, got);
    await cache.close();
  }, 60_000);

  it('a rebuild that finishes after a newer generation was seen is dropped', async () => {
    const p = await project(10);
    const g = gated(storage.semantic!.chunks);
    const cache = new MatrixCache({ inlineRows: 4 });
    const counters: CachedSearchCounters = { cached: 0, adapter: 0, stale: 0 };
    await cachedChunkSearch(g.chunks, cache, p.scope, fp, unitVector(1), { limit: 3 }, counters);
    await until(() => g.waiting() === 1);
    const [added] = await appendEmbedded(p.id, p.session, 1); // bumps while the load waits at the gate
    await cachedChunkSearch(g.chunks, cache, p.scope, fp, unitVector(2), { limit: 3 }, counters); // sees the bumped generation
    g.release();
    await cache.settled();
    // The load read its generation before the append, the second search the bumped one: dropped.
    expect(cache.snapshot()).toMatchObject({ backgroundLoads: 1, staleLoads: 1, entries: 0, loadErrors: 0 });
    // The next miss loads again (in the background); after it, hits with the current rows.
    await cachedChunkSearch(g.chunks, cache, p.scope, fp, unitVector(added!.id), { limit: 3 }, counters);
    await until(() => g.waiting() === 1);
    g.release();
    await cache.settled();
    const hits = await cachedChunkSearch(g.chunks, cache, p.scope, fp, unitVector(added!.id), { limit: 3 }, counters);
    expect(hits[0]!.messageId).toBe(added!.id);
    expect(counters).toMatchObject({ cached: 1, adapter: 3, stale: 0 });
    await cache.close();
  }, 60_000);

  it('close() aborts a rebuild under way without an unhandled rejection; later searches use the SQL scan', async () => {
    const p = await project(10);
    const g = gated(storage.semantic!.chunks);
    const cache = new MatrixCache({ inlineRows: 4 });
    const counters: CachedSearchCounters = { cached: 0, adapter: 0, stale: 0 };
    await cachedChunkSearch(g.chunks, cache, p.scope, fp, unitVector(1), { limit: 3 }, counters);
    await until(() => g.waiting() === 1);
    const closing = cache.close();
    g.release();
    await closing;
    expect(cache.snapshot()).toMatchObject({ backgroundLoads: 1, loadErrors: 1, entries: 0 });
    const want = await storage.semantic!.chunks.search(p.scope, fp, unitVector(5), { limit: 3 });
    expectSameHits(await cachedChunkSearch(g.chunks, cache, p.scope, fp, unitVector(5), { limit: 3 }, counters), want);
    expect(cache.snapshot()).toMatchObject({ backgroundLoads: 1 });
    expect(counters).toEqual({ cached: 0, adapter: 2, stale: 0 });
  }, 60_000);
});
