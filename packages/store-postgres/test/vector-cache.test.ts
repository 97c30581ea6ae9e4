/**
 * ChunkStore.projectVectors (adapter/vector-cache.ts) and migration 0013's generation triggers, on a
 * real PostgreSQL:
 * - table-driven: every change that can alter a project's allowed set bumps its generation (a move
 *   bumps both projects), and lease bookkeeping or unrelated edits do not;
 * - the rescore read re-checks the allowed set in SQL: run as the tables' owner (no row-level
 *   security at all) it still returns nothing of another project, of a hidden session, of a deleted
 *   message, of another role or of the caller's own live messages;
 * - load: the allowed set in (role, message id, chunk index) order with the stored vectors bit for bit.
 */
import { createHash } from 'node:crypto';
import { MESSAGE_ROLES } from '@recall/rpc-contract';
import type { Storage } from '@recall/storage-ports';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, postgresStorage, type RecallPostgres } from '../src/index.js';
import { projectVectorReads } from '../src/internal.js';
import { useCluster } from './cluster.js';

const cluster = useCluster();
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const DIMS = 4;
const ENDPOINT = 'http://127.0.0.1/e';

describe('projectVectors and the generation triggers', () => {
  let db: RecallPostgres;
  let storage: Storage;
  let fp = 0;
  let a = '';
  let b = '';

  beforeAll(async () => {
    db = await openPostgres(cluster.freshUrl());
    storage = postgresStorage(db, 'postgres://test');
    fp = await storage.semantic!.chunks.ensureFingerprint({ provider: 't', endpoint: ENDPOINT, model: 'm', dims: DIMS, normalization: 'l2', chunkerVersion: 1 });
    a = (await storage.projects.create({ name: 'a' })).id;
    b = (await storage.projects.create({ name: 'b' })).id;
    for (const p of [a, b]) await storage.semantic!.chunks.setConsent(p, ENDPOINT, true);
  }, 120_000);
  afterAll(async () => {
    await storage?.close();
    await db?.close();
  });

  const gen = async (projectId: string): Promise<number> => Number((await db.pool.query('select gen from semantic_generation where project_id = $1', [projectId])).rows[0]?.gen ?? 0);
  const rebuildGen = async (projectId: string): Promise<number> => Number((await db.pool.query('select rebuild_gen from semantic_generation where project_id = $1', [projectId])).rows[0]?.rebuild_gen ?? 0);

  /** A session of `projectId` with `n` embedded messages (vector i = unit e_(i mod 4) scaled by sign). */
  async function embedded(projectId: string, n: number, role: 'user' | 'assistant' = 'assistant') {
    const session = (await storage.sessions.create({ projectId })).id;
    const messages = (await storage.messages.append(session, Array.from({ length: n }, (_, i) => ({ role, content: `m ${projectId} ${session} ${i}` })))).messages;
    const chunks = storage.semantic!.chunks;
    await chunks.plan(fp, messages.map((m) => ({ messageId: m.id, chunkIndex: 0, start: 0, end: 3, contentHash: sha(m.content) })));
    const work = await storage.semantic!.claims.claim({ fingerprintId: fp, endpoint: ENDPOINT, owner: 't', limit: 100, leaseMs: 60_000, maxAttempts: 3, projectId });
    await storage.semantic!.claims.complete('t', work.map((chunk) => ({ chunk, vector: Float32Array.from({ length: DIMS }, (_, j) => (j === chunk.messageId % DIMS ? 0.8 : 0.2)) })));
    const ids = (await db.pool.query('select id from semantic_chunks where session_id = $1 order by id', [session])).rows.map((r) => Number(r.id));
    return { session, messages, chunkIds: ids };
  }

  const cases: Array<{ name: string; bumps: 'a' | 'b' | 'both' | 'none'; added?: boolean; run: (s: Awaited<ReturnType<typeof embedded>>) => Promise<unknown> }> = [
    { name: 'new ready vectors', bumps: 'a', added: true, run: async () => embedded(a, 2) },
    { name: 'ready copies inserted (a bulk import)', bumps: 'a', added: true, run: async (s) => db.pool.query(
      `insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, "end", content_hash, chunker_version, embedding, status, attempts, project_id, role, visibility)
       select fingerprint_id, message_id, session_id, chunk_index + 10, start, "end", content_hash, chunker_version, embedding, 'ready', 0, project_id, role, visibility from semantic_chunks where session_id = $1`, [s.session]) },
    { name: 'a vector rewritten', bumps: 'a', run: async (s) => db.pool.query("update semantic_chunks set embedding = '[1,0,0,0]' where id = $1", [s.chunkIds[0]]) },
    { name: 'a ready chunk deleted', bumps: 'a', run: async (s) => db.pool.query('delete from semantic_chunks where id = $1', [s.chunkIds[0]]) },
    { name: 'a message deleted (visibility)', bumps: 'a', run: async (s) => storage.messages.delete(s.messages[1]!.id) },
    { name: 'a message edited (its chunks go)', bumps: 'a', run: async (s) => storage.messages.edit(s.messages[1]!.id, 'new text') },
    { name: 'a rewind', bumps: 'a', run: async (s) => storage.messages.rewind(s.session, s.messages[0]!.id) },
    { name: 'a session moved a → b', bumps: 'both', run: async (s) => storage.sessions.move(s.session, b) },
    { name: 'a session hidden', bumps: 'a', run: async (s) => db.pool.query('update sessions set hidden = true where id = $1', [s.session]) },
    { name: 'a session deleted', bumps: 'a', run: async (s) => db.pool.query('delete from sessions where id = $1', [s.session]) },
    { name: 'the project switched off', bumps: 'a', run: async () => storage.semantic!.chunks.setConsent(a, ENDPOINT, false).then(() => storage.semantic!.chunks.setConsent(a, ENDPOINT, true)) },
    { name: 'lease bookkeeping only', bumps: 'none', run: async (s) => db.pool.query("update semantic_chunks set lease_owner = 'x', lease_until = 1 where id = $1", [s.chunkIds[0]]) },
    { name: 'a title change', bumps: 'none', run: async (s) => storage.sessions.setTitle(s.session, 'renamed') },
    { name: 'a pending chunk planned', bumps: 'none', run: async (s) => {
      const m = (await storage.messages.append(s.session, [{ role: 'assistant', content: 'later' }])).messages[0]!;
      return storage.semantic!.chunks.plan(fp, [{ messageId: m.id, chunkIndex: 0, start: 0, end: 2, contentHash: sha(m.content) }]);
    } },
  ];
  const logged = async (projectId: string, after: number): Promise<number[]> =>
    (await db.pool.query('select unnest(chunk_ids) as id from semantic_additions where project_id = $1 and gen > $2 order by 1', [projectId, after])).rows.map((r) => Number(r.id));
  // Migration 0014: an addition keeps rebuild_gen and logs the new ready ids under the new
  // generation; every other change sets rebuild_gen to it and empties the project's log.
  it.each(cases)('$name → bumps $bumps (addition: $added)', async ({ bumps, added, run }) => {
    const s = await embedded(a, 3);
    const before = { a: await gen(a), b: await gen(b), rebuildA: await rebuildGen(a) };
    await run(s);
    const after = { a: await gen(a), b: await gen(b) };
    expect(after.a !== before.a).toBe(bumps === 'a' || bumps === 'both');
    expect(after.b !== before.b).toBe(bumps === 'b' || bumps === 'both');
    if (bumps === 'none') return;
    if (added) {
      expect(await rebuildGen(a)).toBe(before.rebuildA);
      const ready = (await db.pool.query("select id from semantic_chunks where project_id = $1 and status = 'ready' and id > $2 order by id", [a, Math.max(...s.chunkIds)])).rows.map((r) => Number(r.id));
      expect(await logged(a, before.a)).toEqual(ready);
      expect(ready.length).toBeGreaterThan(0);
    } else {
      for (const p of bumps === 'both' ? [a, b] : bumps === 'a' ? [a] : [b]) {
        expect(await rebuildGen(p)).toBe(await gen(p));
        expect(await logged(p, 0)).toEqual([]);
      }
    }
  });

  it('generations never repeat a value (one sequence); plan reads it inside the scoped read', async () => {
    const seen = new Set<number>();
    for (let i = 0; i < 5; i++) {
      await embedded(a, 1);
      const g = await gen(a);
      expect(seen.has(g)).toBe(false);
      seen.add(g);
    }
    const plan = await storage.semantic!.chunks.projectVectors!.withProject(a, (r) => r.plan(fp));
    expect(plan).toEqual({ dims: DIMS, hnsw: false, generation: await gen(a), additionsFrom: await rebuildGen(a) });
  });

  it('the rescore read re-checks every allowed-set condition in SQL, even without row-level security', async () => {
    const own = await embedded(a, 4, 'user');
    const other = await embedded(b, 3);
    const hidden = await embedded(a, 2);
    await db.pool.query('update sessions set hidden = true where id = $1', [hidden.session]);
    await storage.messages.delete(own.messages[3]!.id);
    const client = await db.pool.connect(); // the owner: policies do not apply
    try {
      const reads = projectVectorReads(client, a);
      const all = [...own.chunkIds, ...other.chunkIds, ...hidden.chunkIds];
      const got = async (filter: Parameters<typeof reads.read>[2]) => [...(await reads.read(fp, all, filter)).keys()].sort((x, y) => x - y);
      expect(await got({ currentSessionId: null })).toEqual(own.chunkIds.slice(0, 3));
      expect(await got({ roles: ['assistant'], currentSessionId: null })).toEqual([]);
      expect(await got({ currentSessionId: own.session })).toEqual([]);
      expect(await projectVectorReads(client, b).read(fp, all, { currentSessionId: null }).then((m) => [...m.keys()].sort((x, y) => x - y))).toEqual(other.chunkIds);
      // Vectors come back bit for bit as stored (float32, little-endian) with their anchors.
      const row = (await reads.read(fp, [own.chunkIds[0]!], { currentSessionId: null })).get(own.chunkIds[0]!)!;
      const stored = (await db.pool.query('select embedding::text as e from semantic_chunks where id = $1', [own.chunkIds[0]])).rows[0].e as string;
      expect(Array.from(new Float32Array(new Uint8Array(row.vector).buffer))).toEqual(JSON.parse(stored).map((x: number) => Math.fround(x)));
      expect(row).toMatchObject({ messageId: own.messages[0]!.id, sessionId: own.session, start: 0, end: 3, live: true });
    } finally {
      client.release();
    }
  });

  it('loadAdded returns exactly the rows added since a generation, through the allowed set, in one snapshot; null after another change', async () => {
    const c = (await storage.projects.create({ name: 'delta' })).id;
    await storage.semantic!.chunks.setConsent(c, ENDPOINT, true);
    await embedded(c, 2);
    const source = storage.semantic!.chunks.projectVectors!;
    const at = (await source.withProject(c, (r) => r.plan(fp)))!;
    const full = (await source.withProject(c, (r) => r.load(fp, DIMS, 100)))!;
    expect(full.generationAfter).toBe(at.generation);
    expect(at.additionsFrom).toBeLessThanOrEqual(at.generation);
    const s1 = await embedded(c, 3, 'user');
    const hidden = await embedded(c, 2);
    await db.pool.query('update sessions set hidden = true where id = $1', [hidden.session]); // an other change…
    await db.pool.query('update sessions set hidden = false where id = $1', [hidden.session]);
    const afterHide = (await source.withProject(c, (r) => r.plan(fp)))!;
    expect(afterHide.additionsFrom).toBe(afterHide.generation); // …so a delta from `at` is refused:
    expect(await source.withProject(c, (r) => r.loadAdded!(fp, DIMS, at.generation, afterHide.generation, 100))).toBeNull();
    // From the generation after the hide: only additions since.
    const s2 = await embedded(c, 2, 'user');
    const other = await embedded(b, 2); // another project's additions are in its own log
    const now = (await source.withProject(c, (r) => r.plan(fp)))!;
    expect(now.additionsFrom).toBe(afterHide.generation);
    const added = (await source.withProject(c, (r) => r.loadAdded!(fp, DIMS, afterHide.generation, now.generation, 100)))!;
    expect(added.segments.map((seg) => [seg.role, Array.from(seg.chunkIds)])).toEqual([['user', s2.chunkIds]]);
    expect(added.sessions).toEqual([s2.session]);
    const stored = (await db.pool.query('select embedding::text as e from semantic_chunks where id = $1', [s2.chunkIds[0]])).rows[0].e as string;
    expect(Array.from(added.segments[0]!.vectors.subarray(0, DIMS))).toEqual(JSON.parse(stored).map((x: number) => Math.fround(x)));
    // Bounded: up to a generation, over maxRows → null, and a hidden session's additions are not rows.
    expect(await source.withProject(c, (r) => r.loadAdded!(fp, DIMS, afterHide.generation, now.generation, 1))).toBeNull();
    await db.pool.query('update sessions set hidden = true where id = $1', [s1.session]);
    expect(await source.withProject(c, (r) => r.loadAdded!(fp, DIMS, afterHide.generation, now.generation, 100))).toBeNull();
    const s3 = (await storage.sessions.create({ projectId: c })).id;
    await db.pool.query('update sessions set hidden = true where id = $1', [s3]);
    const base = (await source.withProject(c, (r) => r.plan(fp)))!;
    const m = (await storage.messages.append(s3, [{ role: 'user', content: 'in a hidden session' }])).messages[0]!;
    await db.pool.query(
      `insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, "end", content_hash, chunker_version, embedding, status, attempts, project_id, role, visibility)
       values ($1, $2, $3, 0, 0, 3, $4, 1, '[1,0,0,0]', 'ready', 0, $5, 'user', 'live')`,
      [fp, m.id, s3, sha(m.content), c],
    );
    const last = (await source.withProject(c, (r) => r.plan(fp)))!;
    expect(last.additionsFrom).toBe(base.additionsFrom);
    expect((await source.withProject(c, (r) => r.loadAdded!(fp, DIMS, base.generation, last.generation, 100)))!.segments).toEqual([]);
    // Run as the owner (no row-level security): the log is per project, another project's additions never come back.
    const client = await db.pool.connect();
    try {
      const bPlan = (await projectVectorReads(client, b).plan(fp))!;
      const mine = await projectVectorReads(client, c).loadAdded!(fp, DIMS, 0, bPlan.generation, 1000);
      const ids = (mine?.segments ?? []).flatMap((seg) => Array.from(seg.chunkIds));
      expect(ids.filter((id) => other.chunkIds.includes(id))).toEqual([]);
    } finally {
      client.release();
    }
  });

  it('a bump that waited for the project row draws its generation after the wait: values rise in commit order', async () => {
    // 0013 drew the value before the upsert waited for the row lock, so a value drawn meanwhile by
    // anyone could be lower than one committed after it; a cache would then miss a logged addition.
    const c = (await storage.projects.create({ name: 'order' })).id;
    await storage.semantic!.chunks.setConsent(c, ENDPOINT, true);
    const s = await embedded(c, 1);
    const m = s.messages[0]!;
    const insertReady = (client: pg.PoolClient, index: number) =>
      client.query(
        `insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, "end", content_hash, chunker_version, embedding, status, attempts, project_id, role, visibility)
         values ($1, $2, $3, $4, 0, 3, $5, 1, '[0,1,0,0]', 'ready', 0, $6, 'assistant', 'live') returning id`,
        [fp, m.id, s.session, index, sha(m.content), c],
      );
    const t0 = await db.pool.connect();
    const t1 = await db.pool.connect();
    try {
      await t0.query('begin');
      await insertReady(t0, 50); // holds the project's generation row
      await t1.query('begin');
      const t1pid = (await t1.query('select pg_backend_pid() as pid')).rows[0].pid;
      const waiting = insertReady(t1, 51);
      for (let i = 0; i < 200; i++) {
        const w = (await db.pool.query("select wait_event_type from pg_stat_activity where pid = $1", [t1pid])).rows[0];
        if (w?.wait_event_type === 'Lock') break;
        await new Promise((r) => setTimeout(r, 10));
      }
      const drawnMeanwhile = Number((await db.pool.query("select nextval('semantic_generation_seq') as v")).rows[0].v);
      await t0.query('commit');
      const id = Number((await waiting).rows[0].id);
      await t1.query('commit');
      const entry = (await db.pool.query('select gen from semantic_additions where project_id = $1 and $2 = any(chunk_ids)', [c, id])).rows[0];
      expect(Number(entry.gen)).toBeGreaterThan(drawnMeanwhile);
      expect(await gen(c)).toBe(Number(entry.gen));
    } finally {
      t0.release();
      t1.release();
    }
  });

  it('the log keeps 256 additions per project: an entry further behind must rebuild', async () => {
    const c = (await storage.projects.create({ name: 'long' })).id;
    await storage.semantic!.chunks.setConsent(c, ENDPOINT, true);
    const s = await embedded(c, 1);
    const first = await gen(c);
    const m = s.messages[0]!;
    for (let i = 1; i <= 260; i++) {
      await db.pool.query(
        `insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, "end", content_hash, chunker_version, embedding, status, attempts, project_id, role, visibility)
         values ($1, $2, $3, $4, 0, 3, $5, 1, '[1,0,0,0]', 'ready', 0, $6, 'assistant', 'live')`,
        [fp, m.id, s.session, i, sha(m.content), c],
      );
    }
    const rows = (await db.pool.query('select gen from semantic_additions where project_id = $1 order by gen', [c])).rows.map((r) => Number(r.gen));
    expect(rows.length).toBe(256);
    expect(await rebuildGen(c)).toBeGreaterThan(first);
    expect(await rebuildGen(c)).toBeLessThan(rows[0]!);
    const source = storage.semantic!.chunks.projectVectors!;
    expect(await source.withProject(c, (r) => r.loadAdded!(fp, DIMS, first, rows.at(-1)!, 1000))).toBeNull();
    const from = (await rebuildGen(c)) as number;
    const added = (await source.withProject(c, (r) => r.loadAdded!(fp, DIMS, from, rows.at(-1)!, 1000)))!;
    expect(added.segments[0]!.rows).toBe(256);
  });

  it('load returns the allowed set per role in (message, chunk) order, and null over maxRows', async () => {
    const c = (await storage.projects.create({ name: 'c' })).id;
    await storage.semantic!.chunks.setConsent(c, ENDPOINT, true);
    const s1 = await embedded(c, 3, 'user');
    const s2 = await embedded(c, 2);
    const set = await storage.semantic!.chunks.projectVectors!.withProject(c, (r) => r.load(fp, DIMS, 100));
    expect(set!.segments.map((seg) => [seg.role, Array.from(seg.messageIds)])).toEqual(
      expect.arrayContaining([
        ['user', s1.messages.map((m) => m.id)],
        ['assistant', s2.messages.map((m) => m.id)],
      ]),
    );
    // Segments in MESSAGE_ROLES order (the scan breaks exact ties by segment, as on SQLite).
    expect(set!.segments.map((seg) => seg.role)).toEqual(MESSAGE_ROLES.filter((r) => r === 'user' || r === 'assistant'));
    expect(await storage.semantic!.chunks.projectVectors!.withProject(c, (r) => r.load(fp, DIMS, 4))).toBeNull();
  });
});
