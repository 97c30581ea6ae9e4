/**
 * PostgreSQL-only rules of team mode: row-level security backs every scoped read (a query that
 * forgot its WHERE, run in a scoped transaction, sees nothing of another project — and nothing at
 * all without a scope), and two gateways (two pools on one database) claiming embedding work at the
 * same time get every chunk exactly once.
 */
import { createHash } from 'node:crypto';
import type { Storage } from '@recall/storage-ports';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgres, openPostgresStorage, scopedRead } from '../src/index.js';
import { useCluster } from './cluster.js';

const cluster = useCluster();
const opened: Storage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});
async function open(url: string): Promise<Storage> {
  const s = await openPostgresStorage({ kind: 'postgres', url });
  opened.push(s);
  return s;
}

async function seed(s: Storage): Promise<void> {
  await s.projects.create({ id: 'p_a', name: 'A' });
  await s.projects.create({ id: 'p_b', name: 'B' });
  await s.sessions.create({ id: 'sa', projectId: 'p_a', messages: [{ role: 'user', content: 'alpha secret' }] });
  await s.sessions.create({ id: 'sb', projectId: 'p_b', messages: [{ role: 'user', content: 'bravo secret' }] });
  await s.sessions.create({ id: 'sn', messages: [{ role: 'user', content: 'no project secret' }] });
}

describe('row-level security', () => {
  it('a deliberately unscoped query inside a scoped transaction returns nothing of another project', async () => {
    const url = cluster.freshUrl();
    const s = await open(url);
    await seed(s);
    const db = await openPostgres(url, { migrate: false });
    try {
      const unscoped = async (scope: Parameters<typeof scopedRead>[1]) =>
        scopedRead(db.pool, scope, async (tx) => ({
          sessions: (await tx.query('select id from sessions order by id')).rows.map((r) => r.id),
          messages: (await tx.query('select content from messages order by id')).rows.map((r) => r.content),
          keywords: Number((await tx.query('select count(*) as n from message_keywords')).rows[0].n),
          joined: (await tx.query("select m.content from messages m join message_keywords k on k.message_id = m.id where k.document @@ 'secret'::tsquery order by m.id")).rows.map((r) => r.content),
        }));
      expect(await unscoped({ projectId: 'p_a' })).toEqual({ sessions: ['sa'], messages: ['alpha secret'], keywords: 1, joined: ['alpha secret'] });
      expect(await unscoped({ projectId: 'p_b' })).toEqual({ sessions: ['sb'], messages: ['bravo secret'], keywords: 1, joined: ['bravo secret'] });
      expect(await unscoped({ sessionIds: ['sn'] })).toEqual({ sessions: ['sn'], messages: ['no project secret'], keywords: 1, joined: ['no project secret'] });
      expect(await unscoped({ projectId: 'p_none' })).toEqual({ sessions: [], messages: [], keywords: 0, joined: [] });
      // Fail-closed: the role without any scope setting sees no row, and cannot write.
      const client = await db.pool.connect();
      try {
        await client.query('begin');
        await client.query('set local role recall_scoped');
        expect((await client.query('select count(*) as n from messages')).rows[0].n).toBe('0');
        await expect(client.query("update messages set content = 'x'")).rejects.toMatchObject({ code: '42501' });
        await client.query('rollback');
      } finally {
        client.release();
      }
      // The writer (owner) still sees everything: the policies bind only the scoped role.
      expect(Number((await db.pool.query('select count(*) as n from messages')).rows[0].n)).toBe(3);
    } finally {
      await db.close();
    }
  });
});

describe('two gateways, one database', () => {
  it('claims from two pools at once give every chunk to exactly one worker', async () => {
    const url = cluster.freshUrl();
    const g1 = await open(url);
    const g2 = await open(url);
    const endpoint = 'http://127.0.0.1:9/v1';
    await g1.projects.create({ id: 'p_a', name: 'A' });
    await g1.semantic!.chunks.setConsent('p_a', endpoint, true);
    await g1.sessions.create({ id: 's1', projectId: 'p_a' });
    const msgs = (await g1.messages.append('s1', Array.from({ length: 200 }, (_, i) => ({ role: 'user' as const, content: `text ${i}` })))).messages;
    const fp = await g1.semantic!.chunks.ensureFingerprint({ provider: 'p', endpoint, model: 'm', dims: 3, normalization: 'l2', chunkerVersion: 1 });
    expect(await g2.semantic!.chunks.ensureFingerprint({ provider: 'p', endpoint, model: 'm', dims: 3, normalization: 'l2', chunkerVersion: 1 })).toBe(fp);
    await g1.semantic!.chunks.plan(
      fp,
      msgs.map((m) => ({ messageId: m.id, chunkIndex: 0, start: 0, end: m.content.length, contentHash: createHash('sha256').update(m.content).digest('hex') })),
    );
    const worker = async (g: Storage, owner: string) => {
      const got: number[] = [];
      for (;;) {
        const work = await g.semantic!.claims.claim({ fingerprintId: fp, endpoint, owner, limit: 7, leaseMs: 60_000, maxAttempts: 3 });
        if (work.length === 0) return got;
        got.push(...work.map((w) => w.id));
        await g.semantic!.claims.complete(owner, work.map((chunk) => ({ chunk, vector: Float32Array.from([1, 0, 0]) })));
      }
    };
    const [a, b, c, d] = await Promise.all([worker(g1, 'w1'), worker(g2, 'w2'), worker(g1, 'w3'), worker(g2, 'w4')]);
    const all = [...a, ...b, ...c, ...d];
    expect(all.length).toBe(200);
    expect(new Set(all).size).toBe(200);
    expect([a, b, c, d].filter((x) => x.length > 0).length).toBeGreaterThan(1);
    expect(await g2.semantic!.chunks.counts(fp, 'p_a')).toEqual({ pending: 0, ready: 200, failed: 0 });
  });
});
