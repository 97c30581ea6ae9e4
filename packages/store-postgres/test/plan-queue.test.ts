/**
 * The semantic planning queue (migration 0009) on a real PostgreSQL: an idle planning poll sends the
 * same two statements whatever the data size (counted at the pool's clients) and reads no message;
 * a burst written across many sessions is planned exactly once by two planners on two pools at
 * the same time (each session by one of them: FOR UPDATE SKIP LOCKED leases); a database of the
 * previous schema is backfilled by the migration (its switched-on projects' sessions are queued).
 */
import { createHash } from 'node:crypto';
import type { PlanWorkRequest, Storage } from '@recall/storage-ports';
import { afterEach, describe, expect, it } from 'vitest';
import { migratePostgres, openPostgres, postgresStorage, type RecallPostgres } from '../src/index.js';
import { useCluster } from './cluster.js';

const cluster = useCluster();
const opened: Storage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

const ENDPOINT = 'http://127.0.0.1:9/v1';
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const request = (fingerprintId: number): PlanWorkRequest => ({
  fingerprintId,
  endpoint: ENDPOINT,
  roles: ['user', 'assistant'],
  split: (content) => (content.trim() === '' ? [] : [{ start: 0, end: content.length }]),
  hash: sha,
});

async function storageOn(db: RecallPostgres, url: string): Promise<Storage> {
  const s = postgresStorage(db, url);
  opened.push(s);
  return s;
}

/** Counts (and keeps the text of) every query sent by the pool's clients from now on. */
function countStatements(db: RecallPostgres): { sent: string[] } {
  const log = { sent: [] as string[] };
  const marked = Symbol('counted');
  db.pool.on('acquire', (client) => {
    const c = client as unknown as { query: (...a: unknown[]) => unknown; [marked]?: boolean };
    if (c[marked]) return;
    c[marked] = true;
    const query = c.query.bind(client);
    c.query = (...a: unknown[]) => {
      const q = a[0];
      log.sent.push(typeof q === 'string' ? q : String((q as { text?: string })?.text ?? q));
      return query(...a);
    };
  });
  return log;
}

/** planWork until nothing is left; the summed counts and the number of steps. */
async function planAll(s: Storage, fp: number): Promise<{ sessionsPlanned: number; created: number; steps: number }> {
  const total = { sessionsPlanned: 0, created: 0, steps: 0 };
  for (;;) {
    const r = await s.semantic!.chunks.planWork(request(fp));
    total.steps++;
    total.sessionsPlanned += r.sessionsPlanned;
    total.created += r.created;
    if (!r.more) return total;
  }
}

async function seed(s: Storage, sessions: number, messagesEach: number): Promise<number> {
  await s.projects.create({ id: 'p_on', name: 'On' });
  await s.semantic!.chunks.setConsent('p_on', ENDPOINT, true);
  for (let i = 0; i < sessions; i++) {
    await s.sessions.create({ id: `s${i}`, projectId: 'p_on' });
    await s.messages.append(`s${i}`, Array.from({ length: messagesEach }, (_, j) => ({ role: 'user' as const, content: j % 10 === 9 ? ' ' : `session ${i} message ${j}` })));
  }
  return s.semantic!.chunks.ensureFingerprint({ provider: 'openai-compatible', endpoint: ENDPOINT, model: 'm', dims: 3, normalization: 'l2', chunkerVersion: 1 });
}

const queued = async (db: RecallPostgres) => Number((await db.pool.query('select count(*) as n from semantic_plan_queue')).rows[0].n);

describe('the semantic planning queue on PostgreSQL', () => {
  it.each([
    { sessions: 1, messagesEach: 10 },
    { sessions: 20, messagesEach: 100 },
  ])('an idle poll sends two statements and reads no message ($sessions sessions × $messagesEach messages)', async ({ sessions, messagesEach }) => {
    const url = cluster.freshUrl();
    const db = await cluster.open(url);
    const s = await storageOn(db, url);
    const fp = await seed(s, sessions, messagesEach);
    const first = await planAll(s, fp);
    expect(first.created).toBe(sessions * messagesEach * 0.9);
    expect(first.sessionsPlanned).toBe(sessions);
    expect(await queued(db)).toBe(0);
    const log = countStatements(db);
    for (let poll = 0; poll < 3; poll++) expect(await s.semantic!.chunks.planWork(request(fp))).toEqual({ sessionsPlanned: 0, created: 0, reused: 0, removed: 0, more: false });
    expect(log.sent.length).toBe(6);
    expect(log.sent.some((q) => /from messages/i.test(q))).toBe(false);
  }, 60_000);

  it('a burst over many sessions is planned exactly once by two planners on two pools at the same time', async () => {
    const url = cluster.freshUrl();
    const db = await cluster.open(url);
    const other = await cluster.open(url);
    const a = await storageOn(db, url);
    const b = await storageOn(other, url);
    const fp = await seed(a, 40, 1);
    await planAll(a, fp);
    // The burst: one append per session, and one session written by a single large append.
    for (let i = 0; i < 40; i++) await a.messages.append(`s${i}`, [{ role: 'assistant', content: `burst ${i}` }]);
    await a.messages.append('s0', Array.from({ length: 600 }, (_, j) => ({ role: 'user' as const, content: `long burst ${j}` })));
    expect(await queued(db)).toBe(41);
    const [ra, rb] = await Promise.all([planAll(a, fp), planAll(b, fp)]);
    // A session both planners stepped back from at the same moment is left for the next poll.
    const rest = await planAll(a, fp);
    expect(ra.created + rb.created + rest.created).toBe(640);
    expect(ra.sessionsPlanned + rb.sessionsPlanned + rest.sessionsPlanned).toBe(40);
    expect(await queued(db)).toBe(0);
    expect(Number((await db.pool.query("select count(*) as n from semantic_chunks where status = 'pending'")).rows[0].n)).toBe(640 + 40);
  }, 60_000);

  it('migrating a database of the previous schema queues the sessions of switched-on projects for the fingerprints it has', async () => {
    const url = cluster.freshUrl();
    const old = await openPostgres(url, { migrate: false });
    try {
      await migratePostgres(old.pool, { upTo: '0008_keyword_matches_one' });
      await old.pool.query(`insert into projects (id, name, slug) values ('p_on', 'On', 'on'), ('p_off', 'Off', 'off')`);
      await old.pool.query(`insert into sessions (id, project_id) values ('s_on', 'p_on'), ('s_off', 'p_off')`);
      await old.pool.query(`insert into semantic_projects (project_id, enabled, endpoint) values ('p_on', true, $1), ('p_off', false, $1)`, [ENDPOINT]);
      await old.pool.query(`insert into messages (session_id, role, content) values ('s_on', 'user', 'planned before'), ('s_on', 'user', 'never planned'), ('s_off', 'user', 'not switched on')`);
      await old.pool.query(`insert into semantic_fingerprints (key, provider, endpoint, model, dims, chunker_version) values ('k', 'openai-compatible', $1, 'm', 3, 1)`, [ENDPOINT]);
      await old.pool.query(
        `insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, "end", content_hash, chunker_version, status, project_id, role, visibility)
         select 1, id, session_id, 0, 0, length(content), $1, 1, 'pending', 'p_on', role, visibility from messages where content = 'planned before'`,
        [sha('planned before')],
      );
    } finally {
      await old.close();
    }
    const db = await cluster.open(url);
    const s = await storageOn(db, url);
    expect((await db.pool.query('select session_id from semantic_plan_queue')).rows).toEqual([{ session_id: 's_on' }]);
    expect((await db.pool.query('select project_id, fingerprint_id::int as fp from semantic_planned_projects')).rows).toEqual([{ project_id: 'p_on', fp: 1 }]);
    expect(await planAll(s, 1)).toMatchObject({ sessionsPlanned: 1, created: 1 });
    expect(await planAll(s, 1)).toMatchObject({ sessionsPlanned: 0, created: 0 });
  }, 60_000);
});
