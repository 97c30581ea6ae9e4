/**
 * Statements (round trips) one `session_search` sends to PostgreSQL, per shape: every query of every
 * pooled client is counted while one call runs, and the count must not exceed the shape's budget —
 * a change that adds a statement to the search path fails here (lower the budget when it shrinks).
 * The same calls on SQLite give the same answers (browse) and the same hit sets (keyword), so the
 * merged statements changed no answer; row-level security stays on (a read of another project's
 * session inside a scope sees nothing).
 */
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import type { Storage } from '@recall/storage-ports';
import { openSqliteStorage } from '@recall/store';
import { openPostgres, postgresStorage, type RecallPostgres } from '@recall/store-postgres';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSessionSearchTool } from '../src/index.js';

const T0 = Date.UTC(2026, 2, 1);
const MIN = 60_000;

async function seed(s: Storage): Promise<void> {
  await s.projects.create({ id: 'p_a', name: 'A' });
  await s.projects.create({ id: 'p_b', name: 'B' });
  let t = T0;
  const say = (role: 'user' | 'assistant', content: string) => ({ role, content, createdAt: (t += MIN) });
  await s.sessions.create({ id: 's_a1', projectId: 'p_a', title: 'Retry policy', startedAt: T0, messages: [say('user', 'retry with backoff please'), say('assistant', 'backoff with jitter, 数据库 超时')] });
  await s.sessions.continueCompressed('s_a1', { id: 's_a2' });
  await s.messages.append('s_a2', [say('user', 'and the 数据库 timeout?'), say('assistant', 'raise busy_timeout to 5s')]);
  await s.sessions.create({ id: 's_a3', projectId: 'p_a', title: 'Deploy', startedAt: T0 + 100 * MIN, messages: [say('user', 'deploy jitter backoff notes'), say('assistant', 'deploy done')] });
  await s.sessions.create({ id: 's_b1', projectId: 'p_b', title: 'Retry secrets', startedAt: T0, messages: [say('user', 'secret retry backoff 数据库')] });
  await s.sessions.create({ id: 's_caller', projectId: 'p_a', startedAt: T0 + 200 * MIN, messages: [say('user', 'what about backoff?')] });
}

/** Counts (and keeps the text of) every query sent by the pool's clients. */
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

const SINCE = new Date(T0 + 3 * MIN).toISOString().slice(0, 16) + 'Z';
const UNTIL = new Date(T0 + 300 * MIN).toISOString().slice(0, 16) + 'Z';

/** Shape, arguments, most statements one call may send on PostgreSQL (before the one-round-trip scope opening and the merged lineage reads: 17, 16, 14, 10, 10). */
// Discover counts the scope's document frequencies (FTS5's statistics, for the same ranking as
// SQLite: store-postgres keyword.ts) in the scan of its matches call (migration 0010), no longer in
// a statement of its own (13 / 12 / 11 before).
const SHAPES: Array<[string, Record<string, unknown>, number]> = [
  ['discover keyword', { query: 'backoff', search_mode: 'keyword' }, 12],
  ['discover keyword, dated', { query: 'backoff', search_mode: 'keyword', since: SINCE, until: UNTIL }, 11],
  ['discover keyword CJK', { query: '数据库', search_mode: 'keyword' }, 10],
  ['browse', {}, 8],
  ['browse, dated', { since: SINCE, until: UNTIL }, 8],
];

describe('session_search round trips on PostgreSQL', () => {
  let cluster: ThrowawayPostgres | undefined;
  let pgdb: RecallPostgres;
  let pg: Storage;
  let sqlite: Storage;
  let log: { sent: string[] };
  const dir = mkdtempSync(join(tmpdir(), 'recall-trips-'));

  beforeAll(async () => {
    cluster = await startThrowawayPostgres();
    const url = cluster.createDatabase('trips');
    pgdb = await openPostgres(url, { maxConnections: 2 });
    pg = postgresStorage(pgdb, url);
    sqlite = await openSqliteStorage({ kind: 'sqlite', path: join(dir, 'recall.db') });
    await seed(pg);
    await seed(sqlite);
    log = countStatements(pgdb);
  }, 120_000);

  afterAll(async () => {
    await sqlite?.close();
    await pg?.close();
    await pgdb?.close();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test.each(SHAPES)('%s sends at most its budget of statements', async (_name, args, budget) => {
    const tool = createSessionSearchTool({ storage: pg });
    const ctx = { currentSessionId: 's_caller' };
    await tool.execute(args, ctx); // warm: the scope-size cache and prepared state are per pool
    const before = log.sent.length;
    const out = await tool.execute(args, ctx);
    const sent = log.sent.slice(before);
    if (process.env.RECALL_TRACE_STATEMENTS) console.log(_name, sent.length, '\n  ' + sent.map((s) => s.replace(/\s+/g, ' ').slice(0, 160)).join('\n  '));
    expect(sent.length, sent.join('\n---\n')).toBeLessThanOrEqual(budget);
    const onSqlite = await createSessionSearchTool({ storage: sqlite }).execute(args, ctx);
    const ids = (o: unknown) => JSON.stringify(o).match(/"messageId":\d+|"sessionId":"[^"]+"/g)?.sort() ?? [];
    expect(JSON.stringify(out)).not.toMatch(/s_b1/); // never another project's session
    expect(ids(out).filter((x) => x.startsWith('"sessionId"'))).toEqual(ids(onSqlite).filter((x) => x.startsWith('"sessionId"')));
  });

  test('a read inside a scope still sees only that scope (row-level security)', async () => {
    const seen = await pg.withReadScope!({ kind: 'project', projectId: 'p_a' }, (s) => s.sessions.findRecords(['s_a1', 's_b1']));
    expect([...seen.keys()]).toEqual(['s_a1']);
    const own = await pg.withReadScope!({ kind: 'sessions', sessionIds: ['s_b1'] }, (s) => s.sessions.findRecords(['s_a1', 's_b1']));
    expect([...own.keys()]).toEqual(['s_b1']);
  });
});
