/**
 * Exact score ties in the PostgreSQL matrix cache (port-search.ts `cachedChunkSearch`), on a real
 * PostgreSQL (tooling/config startThrowawayPostgres): messages of one project whose chunks all carry
 * the SAME vector, so every score ties, spread over two roles (two cached segments), a delta tail
 * of rows embedded after the entry was built — rows of OLDER messages than cached ones — and
 * messages with three chunks planned in reverse chunk-index order (the lowest chunk id is the last
 * chunk, so a load in chunk-index order would cut it off at k = 2). The SQL exact scan (ChunkStore.search: `order by distance, message_id, chunk id`) is the
 * contract: for every limit (cuts inside the tie group), role filter and caller, the cache returns
 * the same messages in the same order with the same anchors, and that order is message id
 * ascending, each message anchored by its lowest chunk id.
 */
import { createHash } from 'node:crypto';
import type { ChunkHit, Storage } from '@recall/storage-ports';
import { describe, expect, it } from 'vitest';
import { seededUnitVector } from './support/seeded-vectors.js';
import { usePostgresSemantic } from './support/postgres-semantic.js';
import { MatrixCache } from '../src/index.js';
import { cachedChunkSearch, type CachedSearchCounters } from '../src/internal.js';

const DIMS = 8;
/** Load every miss inline (the test checks what the cache serves). */
const INLINE = 1_000_000;
const ENDPOINT = 'http://127.0.0.1/e';
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
/** The one vector every chunk carries. */
const SAME = seededUnitVector(11, DIMS);

let storage: Storage;
let fp = 0;
usePostgresSemantic(DIMS, ENDPOINT, (s, f) => {
  storage = s;
  fp = f;
});

type Message = { id: number; content: string; sessionId: string; role: 'user' | 'assistant' };

/**
 * Plans the chunks of `messages` — three for those in `threeChunks`, planned index 2, then 1, then 0
 * (the last range gets the lowest chunk id), one otherwise — and embeds them all with SAME (one addition).
 */
async function embed(projectId: string, messages: readonly Message[], threeChunks: ReadonlySet<number>) {
  const { chunks, claims } = storage.semantic!;
  const many = messages.filter((m) => threeChunks.has(m.id));
  for (const index of [2, 1]) if (many.length > 0) await chunks.plan(fp, many.map((m) => ({ messageId: m.id, chunkIndex: index, start: 4 * index, end: 4 * index + 4, contentHash: sha(m.content) })));
  await chunks.plan(fp, messages.map((m) => ({ messageId: m.id, chunkIndex: 0, start: 0, end: 4, contentHash: sha(m.content) })));
  const work = await claims.claim({ fingerprintId: fp, endpoint: ENDPOINT, owner: 't', limit: 100, leaseMs: 60_000, maxAttempts: 3, projectId });
  expect(work.length).toBe(messages.length + 2 * many.length);
  await claims.complete('t', work.map((chunk) => ({ chunk, vector: SAME })));
}

const anchors = (hits: readonly ChunkHit[]) => hits.map((h) => ({ id: h.messageId, session: h.sessionId, start: h.start, end: h.end }));

describe('PostgreSQL matrix cache: exact score ties', () => {
  it('rank as the SQL scan does (message id, then chunk id), across roles, cached rows and a delta tail', async () => {
    const projectId = (await storage.projects.create({ name: 'ties' })).id;
    await storage.semantic!.chunks.setConsent(projectId, ENDPOINT, true);
    const sessions = [(await storage.sessions.create({ projectId })).id, (await storage.sessions.create({ projectId })).id];
    const messages: Message[] = [];
    for (let i = 0; i < 10; i++) {
      const role = i % 3 === 1 ? 'assistant' : 'user';
      const sessionId = sessions[i % 2]!;
      const [m] = (await storage.messages.append(sessionId, [{ role, content: `tied message ${i}` }])).messages;
      messages.push({ id: m!.id, content: m!.content, sessionId, role });
    }
    // The cached entry: the newer messages, message 4 with three chunks (its index-2 chunk has the lowest id).
    await embed(projectId, messages.slice(4), new Set([messages[4]!.id]));
    const cache = new MatrixCache({ inlineRows: INLINE });
    const counters: CachedSearchCounters = { cached: 0, adapter: 0, stale: 0 };
    const chunks = storage.semantic!.chunks;
    const scope = (caller: string | null) => ({ kind: 'project' as const, projectId, currentSessionId: caller });
    expect((await cachedChunkSearch(chunks, cache, scope(null), fp, SAME, { limit: 3 }, counters)).length).toBe(3);
    expect(cache.snapshot().builds).toBe(1);
    // Then the older messages: an addition the cache catches up with as a tail (message 1 with three chunks).
    await embed(projectId, messages.slice(0, 4), new Set([messages[1]!.id]));

    let searches = 0;
    for (const query of [SAME, seededUnitVector(12, DIMS)]) {
      for (const roles of [undefined, ['user'], ['assistant']] as Array<Array<'user' | 'assistant'> | undefined>) {
        for (const caller of [null, ...sessions]) {
          // Allowed messages in the contract's order: every score ties, so message id ascending.
          const allowed = messages.filter((m) => (!roles || roles.includes(m.role)) && m.sessionId !== caller).sort((a, b) => a.id - b.id);
          for (let limit = 1; limit <= allowed.length + 1; limit++) {
            const options = { limit, ...(roles ? { roles } : {}) };
            const got = await cachedChunkSearch(chunks, cache, scope(caller), fp, query, options, counters);
            const want = await chunks.search(scope(caller), fp, query, options);
            searches++;
            expect(anchors(got)).toEqual(anchors(want));
            got.forEach((h, i) => expect(Math.abs(h.score - want[i]!.score)).toBeLessThan(1e-6));
            // The SQL scan's own order: message id ascending; a three-chunk message anchored by its lowest chunk id (index 2).
            expect(anchors(want)).toEqual(
              allowed.slice(0, limit).map((m) => ({ id: m.id, session: m.sessionId, ...(m.id === messages[1]!.id || m.id === messages[4]!.id ? { start: 8, end: 12 } : { start: 0, end: 4 }) })),
            );
          }
        }
      }
    }
    // Every search was served by the cache, from the entry caught up by one delta (a tail, not a rebuild).
    expect(counters).toEqual({ cached: searches + 1, adapter: 0, stale: 0 });
    const stats = cache.snapshot();
    expect({ builds: stats.builds, deltas: stats.deltas, deltaRows: stats.deltaRows }).toEqual({ builds: 1, deltas: 1, deltaRows: 6 });
  }, 120_000);
});
