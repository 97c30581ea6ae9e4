/**
 * A project's index counts on PostgreSQL read the planning queue (migration 0009), not every
 * message: `queuedSessions` equals what the full anti-join over the project's messages (the
 * statement indexCounts sent before) counts, in every planning state — never planned, part-planned,
 * planned, then appends, a blank append, an unindexed role, an edit, a hidden session, a move — and
 * on a planned project with one new message the statement reads the messages (and their chunks) of
 * the queued session only (EXPLAIN ANALYZE row counts), where the old statement read all of them.
 */
import { createHash } from 'node:crypto';
import type { PlanWorkRequest, Storage } from '@recall/storage-ports';
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresStorage, type RecallPostgres } from '../src/index.js';
import { VISIBLE_SQL } from '../src/adapter/tx.js';
import { useCluster } from './cluster.js';

const cluster = useCluster();
const opened: Storage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

const ENDPOINT = 'http://127.0.0.1:9/v1';
const ROLES = ['user', 'assistant'] as const;
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const request = (fingerprintId: number): PlanWorkRequest => ({
  fingerprintId,
  endpoint: ENDPOINT,
  roles: ROLES,
  split: (content) => (content.trim() === '' ? [] : [{ start: 0, end: content.length }]),
  hash: sha,
});

/** The statement indexCounts sent before the queue was read: every eligible message of the project, anti-joined with its chunks. */
const OLD_QUEUED = `select count(distinct m.session_id) as n from messages m
   join sessions s on s.id = m.session_id
   join semantic_fingerprints f on f.id = $1
   join semantic_projects sp on sp.project_id = s.project_id and sp.enabled and sp.endpoint = f.endpoint
  where s.project_id = $3 and not s.hidden and m.visibility in ${VISIBLE_SQL} and m.role = any($2::text[]) and m.content ~ '\\S'
    and not exists (select 1 from semantic_chunks c where c.fingerprint_id = $1 and c.message_id = m.id)`;

async function oldQueued(db: RecallPostgres, fp: number, projectId = 'p_on'): Promise<number> {
  return Number((await db.pool.query(OLD_QUEUED, [fp, [...ROLES], projectId])).rows[0].n);
}

async function seed(db: RecallPostgres, url: string, sessions: number, messagesEach: number): Promise<{ s: Storage; fp: number }> {
  const s = postgresStorage(db, url);
  opened.push(s);
  await s.projects.create({ id: 'p_on', name: 'On' });
  await s.projects.create({ id: 'p_off', name: 'Off' });
  await s.semantic!.chunks.setConsent('p_on', ENDPOINT, true);
  for (let i = 0; i < sessions; i++) {
    await s.sessions.create({ id: `s${i}`, projectId: 'p_on' });
    await s.messages.append(`s${i}`, Array.from({ length: messagesEach }, (_, j) => ({ role: 'user' as const, content: `session ${i} message ${j}` })));
  }
  const fp = await s.semantic!.chunks.ensureFingerprint({ provider: 'openai-compatible', endpoint: ENDPOINT, model: 'm', dims: 3, normalization: 'l2', chunkerVersion: 1 });
  return { s, fp };
}

async function planAll(s: Storage, fp: number): Promise<void> {
  while ((await s.semantic!.chunks.planWork(request(fp))).more);
}

/** Captures the text and values of the next statement whose text matches `pattern`. */
function capture(db: RecallPostgres, pattern: RegExp): { text?: string; values?: unknown[] } {
  const seen: { text?: string; values?: unknown[] } = {};
  const marked = Symbol('captured');
  db.pool.on('acquire', (client) => {
    const c = client as unknown as { query: (...a: unknown[]) => unknown; [marked]?: boolean };
    if (c[marked]) return;
    c[marked] = true;
    const query = c.query.bind(client);
    c.query = (...a: unknown[]) => {
      if (typeof a[0] === 'string' && pattern.test(a[0]) && seen.text === undefined) Object.assign(seen, { text: a[0], values: a[1] as unknown[] });
      return query(...a);
    };
  });
  return seen;
}

/** Rows the plan read from `table` (actual rows × loops of every node on it, filtered-out rows included). */
async function rowsRead(pool: pg.Pool, table: string, text: string, values: unknown[]): Promise<number> {
  const plan = (await pool.query(`explain (analyze, format json) ${text}`, values)).rows[0]['QUERY PLAN'][0].Plan;
  let total = 0;
  const walk = (node: Record<string, unknown>) => {
    if (node['Relation Name'] === table) total += (Number(node['Actual Rows']) + Number(node['Rows Removed by Filter'] ?? 0) + Number(node['Rows Removed by Index Recheck'] ?? 0)) * Number(node['Actual Loops']);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk(plan);
  return total;
}

describe('indexCounts on PostgreSQL', () => {
  it('queuedSessions equals the full scan in every planning state', async () => {
    const url = cluster.freshUrl();
    const db = await cluster.open(url);
    const { s, fp } = await seed(db, url, 40, 3);
    const check = async (state: string, expected: number, projectId = 'p_on') => {
      const counts = await s.semantic!.chunks.indexCounts(fp, projectId, ROLES);
      expect({ state, queued: counts.queuedSessions, planned: counts.planned }).toEqual({ state, queued: await oldQueued(db, fp, projectId), planned: expected === 0 });
      expect({ state, queued: counts.queuedSessions }).toEqual({ state, queued: expected });
    };
    await check('never planned (project not queued yet)', 40);
    await s.semantic!.chunks.planWork(request(fp)); // one step: 32 sessions
    await check('one planning step', 8);
    await planAll(s, fp);
    await check('planned', 0);
    await s.messages.append('s1', [{ role: 'user', content: 'new words' }]);
    await s.messages.append('s2', [{ role: 'assistant', content: '   ' }]); // blank: never gets rows
    await s.messages.append('s3', [{ role: 'tool', content: 'tool output' }]); // not an indexed role
    await s.messages.append('s4', [{ role: 'user', content: 'soon hidden' }]);
    await s.messages.append('s5', [{ role: 'user', content: 'soon moved' }]);
    await check('appends', 3);
    await db.pool.query(`update sessions set hidden = true where id = 's4'`);
    await s.sessions.move('s5', 'p_off');
    await check('a hidden session and a moved one', 1);
    const [first] = await s.messages.list('s6');
    await s.messages.edit(first!.id, 'edited words');
    await check('an edit', 2);
    await planAll(s, fp);
    await check('planned again', 0);
    await db.pool.query(`update sessions set hidden = false where id = 's4'`);
    await check('shown again', 1);
    await s.semantic!.chunks.setConsent('p_on', ENDPOINT, false);
    await s.semantic!.chunks.setConsent('p_on', ENDPOINT, true);
    await check('switched off and on (queued whole again)', 1);
    // A project switched on after its conversations were written: nothing of it is in the queue
    // (the triggers queue only switched-on projects' writes), it is counted whole until planned.
    await s.messages.append('s5', [{ role: 'user', content: 'written while off' }]);
    await s.sessions.create({ id: 's_late', projectId: 'p_off' });
    await s.messages.append('s_late', [{ role: 'assistant', content: 'late words' }]);
    expect(Number((await db.pool.query(`select count(*) as n from semantic_plan_queue q join sessions s on s.id = q.session_id where s.project_id = 'p_off'`)).rows[0].n)).toBe(0);
    await check('not switched on', 0, 'p_off');
    await s.semantic!.chunks.setConsent('p_off', ENDPOINT, true);
    await check('switched on late, not queued yet', 2, 'p_off');
    await planAll(s, fp);
    await check('switched on late, planned', 0, 'p_off');
  }, 120_000);

  it('on a planned project a status call reads the queued session’s messages and chunks, not every one', async () => {
    const url = cluster.freshUrl();
    const db = await cluster.open(url);
    const { s, fp } = await seed(db, url, 50, 40);
    await planAll(s, fp);
    await s.messages.append('s7', [{ role: 'user', content: 'one new message' }]);
    await db.pool.query('analyze');
    const seen = capture(db, /semantic_plan_queue/);
    const counts = await s.semantic!.chunks.indexCounts(fp, 'p_on', ROLES);
    expect(counts).toMatchObject({ queuedSessions: 1, planned: false });
    expect(seen.text).toBeDefined();
    const read = async (table: string) => ({
      now: await rowsRead(db.pool, table, seen.text!, seen.values!),
      before: await rowsRead(db.pool, table, OLD_QUEUED, [fp, [...ROLES], 'p_on']),
    });
    // 50 sessions × 40 planned messages, one new message in s7: the old statement read every message
    // and chunk of the project; the queue-driven one the 41 messages of s7 and at most one chunk each.
    const messages = await read('messages');
    expect(messages.before).toBeGreaterThanOrEqual(2000);
    expect(messages.now).toBeLessThanOrEqual(41);
    const chunks = await read('semantic_chunks');
    expect(chunks.before).toBeGreaterThanOrEqual(2000);
    expect(chunks.now).toBeLessThanOrEqual(41);
  }, 120_000);
});
