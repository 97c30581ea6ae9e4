/**
 * The allowed-set load through a binary COPY (adapter/vector-load.ts, copy-binary.ts), on a real
 * PostgreSQL:
 * - it equals the previous cursor load (vector-load-cursor.ts) row for row and byte for byte —
 *   vectors, ids, anchors, live flags, each row's session, skipped — on a project with four roles,
 *   several chunks per message, rows physically out of order (rewritten), a hidden session, another
 *   project and a deleted message; inside the scoped (row-level security) transaction and as the owner;
 * - null over maxRows, an empty set, an aborted load rejects (before and during the COPY), rows
 *   committed between the count and the COPY are loaded too;
 * - the COPY decoder gives the same tuples however the stream is cut into messages (a tuple split
 *   across CopyData messages is carried over), and rejects a stream that ends inside a tuple.
 */
import { createHash } from 'node:crypto';
import { MESSAGE_ROLES } from '@recall/rpc-contract';
import type { AllowedSetRows, Storage } from '@recall/storage-ports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BinaryCopyOut } from '../src/adapter/copy-binary.js';
import { scopeOpening } from '../src/adapter/tx.js';
import { openPostgres, postgresStorage, type RecallPostgres } from '../src/index.js';
import { loadAllowedSet, loadAllowedSetByCursor } from '../src/internal.js';
import { useCluster } from './cluster.js';

const cluster = useCluster();
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const DIMS = 24;
const ENDPOINT = 'http://127.0.0.1/e';

/** Every row as comparable plain data: the session by id (numbering may differ), vectors as hex bytes. */
function flat(set: AllowedSetRows | null) {
  if (!set) return null;
  return {
    skipped: set.skipped,
    segments: set.segments.map((s) => ({
      role: s.role,
      rows: s.rows,
      lengths: [s.vectors.length, s.chunkIds.length, s.messageIds.length, s.sessionIdx.length, s.start.length, s.end.length, s.live.length],
      vectors: Buffer.from(s.vectors.buffer, s.vectors.byteOffset, s.vectors.byteLength).toString('hex'),
      chunkIds: [...s.chunkIds],
      messageIds: [...s.messageIds],
      sessions: [...s.sessionIdx].map((i) => set.sessions[i]),
      start: [...s.start],
      end: [...s.end],
      live: [...s.live],
    })),
    sessions: [...set.sessions].sort(),
  };
}

describe('the allowed-set load through a binary COPY', () => {
  let db: RecallPostgres;
  let storage: Storage;
  let fp = 0;
  let a = '';
  let b = '';

  /** A session of `projectId` with `n` messages of mixed roles, each with 1–3 chunks, all embedded with random vectors. */
  async function embedded(projectId: string, n: number) {
    const session = (await storage.sessions.create({ projectId })).id;
    const messages = (await storage.messages.append(session, Array.from({ length: n }, (_, i) => ({ role: MESSAGE_ROLES[i % MESSAGE_ROLES.length]!, content: `m ${session} ${i}` })))).messages;
    const chunks = storage.semantic!.chunks;
    await chunks.plan(
      fp,
      messages.flatMap((m, i) => Array.from({ length: 1 + (i % 3) }, (_, k) => ({ messageId: m.id, chunkIndex: k, start: k * 2, end: k * 2 + 2, contentHash: sha(m.content) }))),
    );
    for (;;) {
      const work = await storage.semantic!.claims.claim({ fingerprintId: fp, endpoint: ENDPOINT, owner: 't', limit: 500, leaseMs: 60_000, maxAttempts: 3, projectId });
      if (work.length === 0) break;
      await storage.semantic!.claims.complete('t', work.map((chunk) => ({ chunk, vector: Float32Array.from({ length: DIMS }, () => (Math.random() - 0.5) * 3) })));
    }
    return { session, messages };
  }

  beforeAll(async () => {
    db = await openPostgres(cluster.freshUrl());
    storage = postgresStorage(db, 'postgres://test');
    fp = await storage.semantic!.chunks.ensureFingerprint({ provider: 't', endpoint: ENDPOINT, model: 'm', dims: DIMS, normalization: 'l2', chunkerVersion: 1 });
    a = (await storage.projects.create({ name: 'a' })).id;
    b = (await storage.projects.create({ name: 'b' })).id;
    for (const p of [a, b]) await storage.semantic!.chunks.setConsent(p, ENDPOINT, true);
    for (let i = 0; i < 4; i++) await embedded(a, 60);
    await embedded(b, 30);
    const hidden = await embedded(a, 10);
    await db.pool.query('update sessions set hidden = true where id = $1', [hidden.session]);
    // Rewrite a scattered third of a's rows: their new versions go to the end of the heap, so the
    // COPY meets them out of (message, chunk) order and the load must sort.
    await db.pool.query("update semantic_chunks set start = start where project_id = $1 and id % 3 = 1", [a]);
    const gone = (await db.pool.query('select message_id from semantic_chunks where project_id = $1 order by id limit 1 offset 7', [a])).rows[0].message_id;
    await db.pool.query('delete from messages where id = $1', [gone]);
  }, 120_000);
  afterAll(async () => {
    await storage?.close();
    await db?.close();
  });

  it('equals the cursor load byte for byte, scoped and as the owner', async () => {
    let owner: AllowedSetRows | null = null;
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      owner = await loadAllowedSet(client, a, fp, DIMS, 1_000_000);
      const reference = await loadAllowedSetByCursor(client, a, fp, DIMS, 1_000_000);
      await client.query('rollback');
      expect(owner!.segments.map((s) => s.role)).toEqual(['user', 'assistant', 'system', 'tool']);
      expect(owner!.segments.reduce((n, s) => n + s.rows, 0)).toBeGreaterThan(400);
      expect(flat(owner)).toEqual(flat(reference));
      // the physical order really differs from (message, chunk) order, so the sort ran
      const physical = (await db.pool.query("select id from semantic_chunks where project_id = $1 and role = 'user'", [a])).rows.map((r) => Number(r.id));
      expect(physical).not.toEqual(owner!.segments[0]!.chunkIds.slice().sort((x, y) => x - y));
    } finally {
      client.release();
    }
    const scoped = await storage.semantic!.chunks.projectVectors!.withProject(a, (r) => r.load(fp, DIMS, 1_000_000));
    const c = await db.pool.connect();
    try {
      await c.query(scopeOpening(c, { projectId: a }));
      const inScope = await loadAllowedSet(c, a, fp, DIMS, 1_000_000);
      const scopedReference = await loadAllowedSetByCursor(c, a, fp, DIMS, 1_000_000);
      await c.query('rollback');
      expect(flat(scoped)).toEqual(flat(scopedReference));
      expect(flat(inScope)).toEqual(flat(scopedReference));
      expect(flat(scoped)).toEqual(flat(owner));
    } finally {
      c.release();
    }
    // sessions numbered by first appearance over the segments
    const order: number[] = [];
    for (const s of scoped!.segments) for (const i of s.sessionIdx) if (!order.includes(i)) order.push(i);
    expect(order).toEqual(scoped!.sessions.map((_, i) => i));
  });

  it.each([
    { name: 'over maxRows', project: () => a, maxRows: 10, expected: 'null' },
    { name: 'a project without vectors', project: () => 'p_none', maxRows: 10, expected: 'empty' },
  ])('$name', async ({ project, maxRows, expected }) => {
    const set = await storage.semantic!.chunks.projectVectors!.withProject(project(), (r) => r.load(fp, DIMS, maxRows));
    if (expected === 'null') expect(set).toBeNull();
    else expect(set).toEqual({ sessions: [], segments: [], skipped: 0, generationAfter: 0 }); // no generation row: 0, as plan reads it
  });

  it.each([
    { name: 'before the COPY', during: false },
    { name: 'during the COPY (the rest is drained)', during: true },
  ])('an aborted load rejects and leaves the client usable: $name', async ({ during }) => {
    const controller = new AbortController();
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      // the real client; the abort fires as the COPY is submitted, or right away
      const tx = {
        escapeLiteral: client.escapeLiteral.bind(client),
        query: (q: unknown, ...rest: unknown[]) => {
          if (during && q instanceof BinaryCopyOut) controller.abort(new Error('closing'));
          return (client.query as (...args: unknown[]) => unknown)(q, ...rest);
        },
      } as unknown as typeof client;
      if (!during) controller.abort(new Error('closing'));
      await expect(loadAllowedSet(tx, a, fp, DIMS, 1_000_000, controller.signal)).rejects.toThrow('closing');
      await client.query('rollback');
      expect((await client.query('select 1 as one')).rows[0].one).toBe(1);
    } finally {
      client.release();
    }
  });

  it('rows committed between the count and the COPY (read committed) are loaded: the arrays grow', async () => {
    const c = (await storage.projects.create({ name: 'c' })).id;
    await storage.semantic!.chunks.setConsent(c, ENDPOINT, true);
    await embedded(c, 3);
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      const tx = {
        escapeLiteral: client.escapeLiteral.bind(client),
        query: (q: unknown, ...rest: unknown[]) => {
          const run = (client.query as (...args: unknown[]) => unknown).bind(client);
          if (!(q instanceof BinaryCopyOut)) return run(q, ...rest);
          void embedded(c, 50).then(() => run(q, ...rest)); // committed on another connection first
          return q;
        },
      } as unknown as typeof client;
      const grown = await loadAllowedSet(tx, c, fp, DIMS, 1_000_000);
      const after = await loadAllowedSetByCursor(client, c, fp, DIMS, 1_000_000);
      await client.query('rollback');
      expect(grown!.segments.reduce((n, s) => n + s.rows, 0)).toBeGreaterThan(50);
      expect(flat(grown)).toEqual(flat(after));
    } finally {
      client.release();
    }
  });

  it('decodes the same tuples however the COPY stream is cut, and rejects a truncated stream', async () => {
    const chunks: Buffer[] = [];
    const rows: string[] = [];
    const client = await db.pool.connect();
    try {
      const copy = new BinaryCopyOut(`copy (select id, session_id, embedding, null::int from semantic_chunks order by id) to stdout (format binary)`, 4, (buf, at, len) =>
        rows.push([0, 1, 2, 3].map((i) => (len[i]! < 0 ? 'null' : buf.subarray(at[i]!, at[i]! + len[i]!).toString('hex'))).join(',')),
      );
      const record = copy.handleCopyData.bind(copy);
      copy.handleCopyData = (msg) => {
        chunks.push(Buffer.from(msg.chunk));
        record(msg);
      };
      client.query(copy as never);
      expect(await copy.done).toBe(rows.length);
    } finally {
      client.release();
    }
    expect(rows.length).toBeGreaterThan(400);
    const stream = Buffer.concat(chunks);
    for (const piece of [1, 7, 100, 4096]) {
      const again: string[] = [];
      const replay = new BinaryCopyOut('', 4, (buf, at, len) => again.push([0, 1, 2, 3].map((i) => (len[i]! < 0 ? 'null' : buf.subarray(at[i]!, at[i]! + len[i]!).toString('hex'))).join(',')));
      for (let o = 0; o < stream.length; o += piece) replay.handleCopyData({ chunk: stream.subarray(o, o + piece) });
      replay.handleReadyForQuery();
      expect(await replay.done).toBe(rows.length);
      expect(again).toEqual(rows);
    }
    const truncated = new BinaryCopyOut('', 4, () => {});
    truncated.handleCopyData({ chunk: stream.subarray(0, stream.length - 5) });
    truncated.handleReadyForQuery();
    await expect(truncated.done).rejects.toThrow('ended inside a tuple');
  });
});
