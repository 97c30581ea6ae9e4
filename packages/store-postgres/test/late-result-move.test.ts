/**
 * A late embedding result that meets a move still being committed, on a real PostgreSQL (the
 * conformance suite covers a move committed before the result; SQLite serialises the two). The
 * move's trigger (migration 0004) rewrites the chunk rows' project copy and so holds their row
 * locks until it commits; ClaimQueue.complete waits for them and then re-checks the newer rows.
 * Whatever the target project, the outcome is the one of the serial order "result, then move": the
 * vector is written and travels with the session (as every vector of a moved conversation does) —
 * so the old project's searches, counts and cached reads never see the chunk, the new project
 * finds it, and nothing is embedded twice.
 */
import { createHash } from 'node:crypto';
import type { Storage } from '@recall/storage-ports';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { openPostgres, postgresStorage } from '../src/index.js';
import { useCluster } from './cluster.js';

const cluster = useCluster();
const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const s of opened.splice(0).reverse()) await s.close();
});

const ENDPOINT = 'http://127.0.0.1:9/v1';
const SPEC = { provider: 'openai-compatible', endpoint: ENDPOINT, model: 'm3', dims: 3, normalization: 'l2' as const, chunkerVersion: 1 };
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function semanticOf(s: Storage) {
  if (!s.semantic) throw new Error('no semantic rows');
  return s.semantic;
}

/** Waits until some backend of the database waits for a lock (the result's write behind the move). */
async function untilBlocked(client: pg.Client): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const n = Number((await client.query("select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'")).rows[0].n);
    if (n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the late result never waited for the move');
}

it.each([
  { target: 'p_b', consent: true },
  { target: 'p_off', consent: false },
])('a late result meeting an uncommitted move to $target (switched on: $consent) waits for it and follows the session; the old project never sees it', async ({ target, consent }) => {
  const url = cluster.freshUrl();
  const db = await openPostgres(url);
  const s = postgresStorage(db, url);
  opened.push(db, s);
  const { chunks, claims } = semanticOf(s);
  for (const id of ['p_a', 'p_b', 'p_off']) await s.projects.create({ id, name: id });
  await chunks.setConsent('p_a', ENDPOINT, true);
  await chunks.setConsent('p_b', ENDPOINT, true);
  const fp = await chunks.ensureFingerprint(SPEC);
  await s.sessions.create({ id: 's1', projectId: 'p_a' });
  await s.sessions.create({ id: 's2', projectId: 'p_a' });
  const [moved] = (await s.messages.append('s1', [{ role: 'user', content: 'text of the moved session' }])).messages;
  await s.messages.append('s2', [{ role: 'user', content: 'text of the other session' }]);
  for (let i = 0; i < 10; i++) {
    const r = await chunks.planWork({ fingerprintId: fp, endpoint: ENDPOINT, roles: ['user'], split: (c) => [{ start: 0, end: c.length }], hash: sha });
    if (!r.more) break;
  }
  const work = await claims.claim({ fingerprintId: fp, endpoint: ENDPOINT, owner: 'w', limit: 10, leaseMs: 60_000, maxAttempts: 3 });
  expect(work.map((w) => w.sessionId).sort()).toEqual(['s1', 's2']);

  // The move, on its own connection, left uncommitted: its trigger holds s1's chunk row locked.
  const mover = new pg.Client({ connectionString: url });
  await mover.connect();
  opened.push({ close: () => mover.end() });
  await mover.query('begin');
  await mover.query('update sessions set project_id = $1 where id = $2', [target, 's1']);
  const watcher = new pg.Client({ connectionString: url });
  await watcher.connect();
  opened.push({ close: () => watcher.end() });

  const completing = claims.complete('w', work.map((chunk) => ({ chunk, vector: Float32Array.from([1, 0, 0]) })));
  await untilBlocked(watcher);
  await mover.query('commit');
  expect(await completing).toEqual({ written: 2, dropped: 0 });

  const query = Float32Array.from([1, 0, 0]);
  const found = async (projectId: string) => (await chunks.search({ kind: 'project', projectId, currentSessionId: null }, fp, query, { limit: 10 })).map((h) => h.sessionId).sort();
  expect(await found('p_a')).toEqual(['s2']);
  expect(await found(target)).toEqual(['s1']);
  expect(await chunks.counts(fp, 'p_a')).toEqual({ pending: 0, ready: 1, failed: 0 });
  expect(await chunks.counts(fp, target)).toEqual({ pending: 0, ready: 1, failed: 0 });
  // The row's project copy followed the session (the scoped reads and the cache select on it).
  const copy = (await db.pool.query('select project_id from semantic_chunks where message_id = $1', [moved!.id])).rows.map((r) => r.project_id);
  expect(copy).toEqual([target]);
  const cachedRead = (projectId: string) =>
    chunks.projectVectors!.withProject(projectId, async (r) => [...(await r.read(fp, work.map((w) => w.id), { currentSessionId: null })).values()].map((row) => row.sessionId));
  expect(await cachedRead('p_a')).toEqual(['s2']);
  expect(await claims.leased(fp)).toBe(0);
  // Nothing to embed again: the chunk is ready where the session is now.
  expect(await claims.claim({ fingerprintId: fp, endpoint: ENDPOINT, owner: 'w2', limit: 10, leaseMs: 60_000, maxAttempts: 3 })).toEqual([]);
});
