/**
 * recall_keyword_matches after migration 0008: one function (the dated twin of 0005 is gone) with
 * optional since (inclusive) / until (exclusive) bounds on created_at, applied before its LIMIT,
 * never leaving the scope; and the plan of its statement, logged by auto_explain as a NOTICE, still
 * takes project and match as one GIN index condition, with no join to messages when undated.
 */
import { describe, expect, it } from 'vitest';
import { keywordQuery, postgresStorage, scopedRead, type RecallPostgres } from '../src/index.js';
import { useCluster } from './cluster.js';

const cluster = useCluster();

/** Project p_a: "retry" at t = 1000, 2000, 3000 (and "other" at 2500); p_b: "retry" at 2000. */
async function seeded(): Promise<{ db: RecallPostgres; ids: Map<number, number> }> {
  const url = cluster.freshUrl();
  const db = await cluster.open(url);
  const s = postgresStorage(db, url);
  await s.projects.create({ id: 'p_a', name: 'A' });
  await s.projects.create({ id: 'p_b', name: 'B' });
  const a = await s.sessions.create({
    id: 'sa',
    projectId: 'p_a',
    messages: [1000, 2000, 2500, 3000].map((t) => ({ role: 'user' as const, content: t === 2500 ? 'other words' : `retry at ${t}`, createdAt: t })),
  });
  await s.sessions.create({ id: 'sb', projectId: 'p_b', messages: [{ role: 'user', content: 'retry elsewhere', createdAt: 2000 }] });
  const ids = new Map<number, number>();
  for (const m of await s.messages.list(a.id)) ids.set(m.createdAt, m.id);
  return { db, ids };
}

const call = 'select message_id from recall_keyword_matches($1::tsquery, $2::text[], $3::text[], $4, $5::bigint, $6::bigint)';

describe('recall_keyword_matches with optional date bounds (migration 0008)', () => {
  it.each([
    ['no bounds', null, null, 500, [1000, 2000, 3000]],
    ['since only (inclusive)', 2000, null, 500, [2000, 3000]],
    ['until only (exclusive)', null, 2000, 500, [1000]],
    ['both', 1500, 3000, 500, [2000]],
    ['an empty range', 3000, 3000, 500, []],
    ['the range before the limit (1 newest-ranked of an older range)', null, 2500, 1, [2000]],
  ] as const)('%s', async (_name, since, until, limit, want) => {
    const { db, ids } = await seeded();
    const q = keywordQuery('retry').tsquery!;
    const got = await scopedRead(db.pool, { projectId: 'p_a' }, async (tx) => (await tx.query(call, [q, [], [], limit, since, until])).rows.map((r) => Number(r.message_id)));
    // Equal ranks are ordered by id descending, so a limit keeps the newest of the range.
    expect(got.sort((x, y) => x - y)).toEqual(want.map((t) => ids.get(t)!));
    expect(got.length).toBeLessThanOrEqual(limit);
  });

  it('is one function: the dated twin is gone, the four-argument call still works', async () => {
    const { db } = await seeded();
    const names = (await db.pool.query("select proname, pronargs from pg_proc where proname like 'recall_keyword_matches%' order by 1")).rows;
    expect(names).toEqual([{ proname: 'recall_keyword_matches', pronargs: 6 }]);
    const q = keywordQuery('retry').tsquery!;
    const n = await scopedRead(db.pool, { projectId: 'p_b' }, async (tx) => (await tx.query('select count(*)::int as n from recall_keyword_matches($1::tsquery, $2::text[], $3::text[], 500)', [q, [], []])).rows[0].n);
    expect(n).toBe(1);
  });

  it.each([
    ['undated', null, null, false],
    ['dated', 1500, null, true],
  ] as const)('%s: the statement inside takes project and match as one GIN index condition', async (_name, since, until, joinsMessages) => {
    const { db } = await seeded();
    const client = await db.pool.connect();
    const notices: string[] = [];
    client.on('notice', (n) => notices.push(String(n.message)));
    try {
      await client.query('begin');
      await client.query("load 'auto_explain'");
      for (const set of ['enable_seqscan = off', 'auto_explain.log_min_duration = 0', 'auto_explain.log_nested_statements = on', 'auto_explain.log_level = notice', 'client_min_messages = notice']) await client.query(`set local ${set}`);
      await client.query("select set_config('recall.project_id', 'p_a', true)");
      await client.query(call, [keywordQuery('retry').tsquery!, [], [], 500, since, until]);
      await client.query('rollback');
    } finally {
      client.release();
    }
    const plan = notices.find((n) => n.includes('from public.message_keywords k'));
    expect(plan, notices.join('\n---\n')).toBeDefined();
    expect(plan).toContain('message_keywords_project_document_gin');
    expect(plan).toMatch(/Index Cond: \(\(project_id = \$1\) AND \(document @@ \$3\)\)|Index Cond: \(\(project_id = 'p_a'::text\) AND \(document @@/);
    expect(/messages_pkey|Seq Scan on messages/.test(plan!)).toBe(joinsMessages);
  });
});
