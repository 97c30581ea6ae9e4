/**
 * The bench's bulk writer of ready chunk rows (adapter/bulk-ready.ts, `insertReadyChunks`) against
 * the path it stands in for — ChunkStore.plan, then ClaimQueue.claim / complete — on a real
 * PostgreSQL: two fresh databases get the same projects, sessions, messages (all roles, 1–3 chunks
 * each, unit and non-unit vectors) and the same vectors, one through the ports, one through the
 * bulk writer, in two phases each. Then:
 * - the chunk rows are equal column by column (all but the row id and the timestamps; vectors byte
 *   for byte through vector_send, the generated halfvec copy too), and the bulk database has no
 *   other rows (nothing for a hidden session, a project not switched on, a stale content hash);
 * - ChunkStore.search answers the same in both, per project, role filter and caller;
 * - the MatrixCache's reads see the rows: the full allowed-set load is equal in both, and the
 *   second phase reaches a cache entry built after the first as a logged ADDITION (migration
 *   0014: additionsFrom not raised, loadAdded returns exactly the second phase's chunks);
 * - a second call inserts nothing; vectors of the wrong dimensions are refused.
 */
import { createHash } from 'node:crypto';
import { MESSAGE_ROLES } from '@recall/rpc-contract';
import type { AllowedSetRows, ChunkScope, Storage } from '@recall/storage-ports';
import { seededRng } from '@recall/config/seeded-random';
import { describe, expect, it } from 'vitest';
import { postgresStorage, type RecallPostgres } from '../src/index.js';
import { insertReadyChunks, projectVectorReads } from '../src/internal.js';
import { useCluster } from './cluster.js';

const cluster = useCluster();
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const DIMS = 16;
const ENDPOINT = 'http://127.0.0.1/e';

/** Message i's vector for chunk k: unit length, except every seventh chunk (no halfvec copy then). */
function vectorOf(i: number, k: number): Float32Array {
  const r = seededRng(1 + i * 7 + k);
  const v = Float32Array.from({ length: DIMS }, () => r() - 0.5);
  const norm = Math.hypot(...v);
  const scale = (i + k) % 7 === 0 ? 3 / norm : 1 / norm;
  return v.map((x) => x * scale);
}

interface Chunk {
  messageId: number;
  chunkIndex: number;
  start: number;
  end: number;
  contentHash: string;
  vector: Float32Array;
}

type Seed = (storage: Storage, db: RecallPostgres, fp: number, projectId: string, chunks: Chunk[]) => Promise<void>;

/** Through the ports: plan, then claim and complete until nothing is left (what the index worker does). */
const viaPorts: Seed = async (storage, _db, fp, projectId, chunks) => {
  const semantic = storage.semantic!;
  await semantic.chunks.plan(fp, chunks.map(({ vector: _, ...c }) => c));
  const byKey = new Map(chunks.map((c) => [`${c.messageId}/${c.chunkIndex}`, c.vector]));
  for (;;) {
    const work = await semantic.claims.claim({ fingerprintId: fp, endpoint: ENDPOINT, owner: 'w', limit: 7, leaseMs: 60_000, maxAttempts: 3, projectId });
    if (work.length === 0) break;
    await semantic.claims.complete('w', work.map((chunk) => ({ chunk, vector: byKey.get(`${chunk.messageId}/${chunk.chunkIndex}`)! })));
  }
};

/** The chunks as insertReadyChunks' parallel columns. */
function columnsOf(chunks: readonly Chunk[]) {
  return {
    messageIds: chunks.map((c) => c.messageId),
    chunkIndexes: chunks.map((c) => c.chunkIndex),
    starts: chunks.map((c) => c.start),
    ends: chunks.map((c) => c.end),
    contentHashes: chunks.map((c) => c.contentHash),
    vectors: chunks.map((c) => c.vector),
  };
}

/** Through the bulk writer: one statement. */
const viaBulk: Seed = async (_storage, db, fp, _projectId, chunks) => {
  await insertReadyChunks(db.pool, fp, columnsOf(chunks));
};

/** Every chunk row, comparable across the two databases (project by name; no row ids, no timestamps). */
async function chunkRows(db: RecallPostgres) {
  return (
    await db.pool.query(
      `select p.name as project, c.session_id, c.message_id::int as message_id, c.chunk_index, c.start, c."end", c.content_hash, c.chunker_version,
              c.fingerprint_id::int as fingerprint_id, c.status, c.attempts, c.last_error, c.lease_owner, c.lease_until, c.next_attempt_at,
              c.role, c.visibility, encode(vector_send(c.embedding), 'hex') as vector, c.embedding_half::text as half,
              c.created_at <= c.updated_at as ordered
         from semantic_chunks c left join projects p on p.id = c.project_id
        order by c.message_id, c.chunk_index`,
    )
  ).rows;
}

/**
 * An allowed-set read as plain data without chunk ids, each role's rows in (message id, start)
 * order: the planner's insert numbers a message's chunks in the order its join emits them, so
 * chunk ids — and the (message id, chunk id) order of the load — may differ within a message.
 */
function flat(set: AllowedSetRows | null) {
  if (!set) return null;
  return set.segments.map((s) => {
    const order = Array.from({ length: s.rows }, (_, i) => i).sort((x, y) => s.messageIds[x]! - s.messageIds[y]! || s.start[x]! - s.start[y]!);
    const bytes = Buffer.from(s.vectors.buffer, s.vectors.byteOffset, s.vectors.byteLength);
    const width = bytes.length / Math.max(1, s.rows);
    return {
      role: s.role,
      rows: order.map((i) => ({
        vector: bytes.subarray(i * width, (i + 1) * width).toString('hex'),
        messageId: s.messageIds[i],
        session: set.sessions[s.sessionIdx[i]!],
        start: s.start[i],
        end: s.end[i],
        live: s.live[i],
      })),
    };
  });
}

/** The same world in a fresh database, its vectors written by `seed`; returns what the checks read. */
async function build(seed: Seed) {
  const db = await cluster.open();
  const storage = postgresStorage(db, 'postgres://test');
  const chunks = storage.semantic!.chunks;
  const fp = await chunks.ensureFingerprint({ provider: 't', endpoint: ENDPOINT, model: 'm', dims: DIMS, normalization: 'l2', chunkerVersion: 3 });
  const projects: Record<string, string> = {};
  for (const name of ['p', 'q', 'off']) projects[name] = (await storage.projects.create({ name })).id;
  await chunks.setConsent(projects.p!, ENDPOINT, true);
  await chunks.setConsent(projects.q!, ENDPOINT, true);
  await chunks.setConsent(projects.off!, 'http://127.0.0.1/another', true);
  let counter = 0;
  /** `n` messages in a new session `id` of `project`, every chunk of each (one with a stale hash when `stale`). */
  async function session(id: string, project: string, n: number, stale = false): Promise<Chunk[]> {
    await storage.sessions.create({ id, projectId: projects[project]!, title: id });
    const inputs = Array.from({ length: n }, (_, i) => ({ role: MESSAGE_ROLES[(counter + i) % MESSAGE_ROLES.length]!, content: `message ${counter + i} of ${id} with some words` }));
    counter += n;
    const messages = (await storage.messages.append(id, inputs)).messages;
    return messages.flatMap((m, i) =>
      Array.from({ length: 1 + ((m.id + i) % 3) }, (_, k) => ({
        messageId: m.id,
        chunkIndex: k,
        start: k * 5,
        end: k * 5 + 5,
        contentHash: stale && i === 0 ? sha('edited meanwhile') : sha(m.content),
        vector: vectorOf(m.id, k),
      })),
    );
  }
  const p1 = [...(await session('s_p1', 'p', 12, true)), ...(await session('s_p2', 'p', 9))];
  const q1 = await session('s_q1', 'q', 8);
  const hidden = await session('s_hidden', 'p', 4);
  await db.pool.query("update sessions set hidden = true where id = 's_hidden'");
  const off = await session('s_off', 'off', 3);
  await seed(storage, db, fp, projects.p!, [...p1, ...hidden]);
  await seed(storage, db, fp, projects.q!, q1);
  await seed(storage, db, fp, projects.off!, off);
  // A cache entry of project p built now, then a second phase of appends and vectors.
  const source = chunks.projectVectors!;
  const at = (await source.withProject(projects.p!, (r) => r.plan(fp)))!;
  const p2 = await session('s_p3', 'p', 10);
  await seed(storage, db, fp, projects.p!, p2);
  const now = (await source.withProject(projects.p!, (r) => r.plan(fp)))!;
  const added = await source.withProject(projects.p!, (r) => r.loadAdded!(fp, DIMS, at.generation, now.generation, 1000));
  const full = await source.withProject(projects.p!, (r) => r.load(fp, DIMS, 10_000));
  const searches: unknown[] = [];
  for (const name of ['p', 'q']) {
    for (let i = 0; i < 6; i++) {
      const scope: ChunkScope = { kind: 'project', projectId: projects[name]!, currentSessionId: i % 3 === 2 ? 's_p2' : null };
      const roles = i % 2 === 1 ? (['user', 'assistant'] as const) : undefined;
      searches.push(await chunks.search(scope, fp, vectorOf(1000 + i, 0), { limit: 5, roles }));
    }
  }
  return { db, fp, projects, rows: await chunkRows(db), at, now, added, full: flat(full), searches, p2, all: [...p1, ...hidden, ...q1, ...off, ...p2] };
}

describe('insertReadyChunks (the bench seed) against plan + claim + complete', () => {
  it('writes the same rows, answers the same searches, and reaches the cache as an addition', async () => {
    const ports = await build(viaPorts);
    const bulk = await build(viaBulk);
    const ready = ports.rows.filter((r) => r.status === 'ready');
    // The ports path left pending rows for the hidden session and the project switched on for another endpoint.
    expect(ports.rows.length).toBeGreaterThan(ready.length);
    expect(ready.length).toBeGreaterThan(60);
    expect(bulk.rows).toEqual(ready);
    expect(new Set(bulk.rows.map((r) => r.project))).toEqual(new Set(['p', 'q']));
    expect(bulk.rows.some((r) => r.half === null) && bulk.rows.some((r) => r.half !== null)).toBe(true);
    expect(bulk.rows.every((r) => r.ordered && r.attempts === 1 && r.chunker_version === 3)).toBe(true);

    expect(bulk.searches).toEqual(ports.searches);
    expect((bulk.searches as unknown[][]).every((hits) => hits.length > 0)).toBe(true);
    expect(bulk.full).toEqual(ports.full);

    for (const side of [ports, bulk]) {
      expect(side.now.additionsFrom).toBeLessThanOrEqual(side.at.generation);
      expect(side.now.generation).toBeGreaterThan(side.at.generation);
      const keys = (side.added?.segments ?? []).flatMap((s) => [...s.messageIds].map((m, i) => `${m}/${s.start[i]}`)).sort();
      expect(keys).toEqual(side.p2.map((c) => `${c.messageId}/${c.start}`).sort());
    }
    expect(flat(bulk.added)).toEqual(flat(ports.added));
  });

  it('inserts nothing twice (no bump), refuses vectors of other dimensions and columns of other lengths', async () => {
    const bulk = await build(viaBulk);
    // Row ids follow the order given (ready rows only: the hidden session, the other endpoint and the stale hash got none).
    const byId = (await bulk.db.pool.query('select message_id, chunk_index from semantic_chunks order by id')).rows.map((r) => `${r.message_id}/${r.chunk_index}`);
    const written = new Set(byId);
    expect(byId).toEqual(bulk.all.map((c) => `${c.messageId}/${c.chunkIndex}`).filter((k) => written.has(k)));
    expect(await insertReadyChunks(bulk.db.pool, bulk.fp, columnsOf(bulk.all))).toBe(0);
    const short = { ...columnsOf(bulk.p2), vectors: bulk.p2.map((c) => c.vector.subarray(0, DIMS - 1)) };
    await expect(insertReadyChunks(bulk.db.pool, bulk.fp, short)).rejects.toThrow(RangeError);
    await expect(insertReadyChunks(bulk.db.pool, bulk.fp, { ...columnsOf(bulk.p2), starts: [] })).rejects.toThrow(RangeError);
    expect(await insertReadyChunks(bulk.db.pool, bulk.fp + 1, columnsOf(bulk.p2))).toBe(0);
    // As the owner, without row-level security: the calls that inserted nothing bumped nothing.
    const client = await bulk.db.pool.connect();
    try {
      const plan = (await projectVectorReads(client, bulk.projects.p!).plan(bulk.fp))!;
      expect(plan.generation).toBe(bulk.now.generation);
    } finally {
      client.release();
    }
  });
});
