/**
 * recall_keyword_matches after migrations 0008 and 0010: one function (the dated twin of 0005 is gone) with
 * optional since (inclusive) / until (exclusive) bounds on created_at, applied before its LIMIT,
 * never leaving the scope; and the plan of its statement, logged by auto_explain as a NOTICE, still
 * takes project and match as one GIN index condition, with no join to messages when undated.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keywordQuery, postgresStorage, scopedRead, type RecallPostgres } from '../src/index.js';
import { partSizes } from '../src/adapter/keyword.js';
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
    expect(names).toEqual([{ proname: 'recall_keyword_matches', pronargs: 9 }]);
    expect((await db.pool.query("select count(*)::int as n from pg_proc where proname = 'recall_keyword_frequencies'")).rows[0].n).toBe(0);
    // Pinned settings: the search_path, and no JIT (compiling the counting statement cost more than running it).
    expect((await db.pool.query("select proconfig from pg_proc where proname = 'recall_keyword_matches'")).rows[0].proconfig).toEqual(['search_path=pg_catalog, public', 'jit=off']);
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

const WORDS = ['retry', 'backoff', 'cache', 'queue', 'deploy', '数据库', '迁移'];
const counting = 'select message_id, session_id, rank, frequencies from recall_keyword_matches($1::tsquery, $2::text[], $3::text[], $4, $5::bigint, $6::bigint, $7::tsquery, $8::tsquery[])';
const withSets = 'select leaf_sets, leaf_set_counts from recall_keyword_matches($1::tsquery, null, null, 0, null, null, $2::tsquery, $3::tsquery[], $4) where message_id is null';
const countOnly = 'select frequencies from recall_keyword_matches(null, null, null, 0, null, null, $1::tsquery, $2::tsquery[]) where message_id is null';

describe('recall_keyword_matches with counts (migration 0010): the candidates of 0008 and the counts of 0007 from one scan', () => {
  it('returns the same candidates as the call without counts, and a header with the scope-only counts', async () => {
    const url = cluster.freshUrl();
    const db = await cluster.open(url);
    const s = postgresStorage(db, url);
    await s.projects.create({ id: 'p_a', name: 'A' });
    await s.projects.create({ id: 'p_b', name: 'B' });
    const r = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed / 2147483648);
    const rnd = r(7);
    const text = () => Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
    for (const [id, project, hidden] of [['s1', 'p_a', false], ['s2', 'p_a', false], ['s3', 'p_a', true], ['s4', 'p_b', false]] as const) {
      await s.sessions.create({ id, projectId: project, messages: Array.from({ length: 12 }, (_, i) => ({ role: i % 2 ? ('assistant' as const) : ('user' as const), content: text(), createdAt: 1000 + i * 100 })) });
      if (hidden) await db.pool.query('update sessions set hidden = true where id = $1', [id]);
    }
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(WORDS, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        fc.constantFrom([], ['user'], ['assistant']),
        fc.constantFrom([], ['s1'], ['s1', 's2']),
        fc.integer({ min: 0, max: 30 }),
        fc.constantFrom([null, null], [1300, null], [null, 1800], [1200, 1900]),
        fc.constantFrom('p_a', 'p_b'),
        fc.boolean(),
        async (words, required, roles, exclude, limit, [since, until], project, itself) => {
          const kq = keywordQuery(required ? `"${words[0]}" ${words.slice(1).join(' ')}` : words.join(' '), { cjkUnigrams: true });
          const q = kq.tsquery!;
          const leaves = kq.leaves.map((l) => l.tsquery);
          // Without required terms the question itself is the OR of its leaves (the adapter passes it as is).
          const counted = itself && !required ? q : leaves.join(' | ');
          const [plain, both] = await scopedRead(db.pool, { projectId: project }, async (tx) => [
            (await tx.query(call.replace('message_id from', 'message_id, session_id, rank from'), [q, roles, exclude, limit, since, until])).rows,
            (await tx.query(counting, [q, roles, exclude, limit, since, until, counted, leaves])).rows,
          ]);
          const header = both.filter((x) => x.message_id === null);
          expect(header).toHaveLength(1);
          const candidates = both.filter((x) => x.message_id !== null).map(({ frequencies, ...rest }) => (expect(frequencies).toBeNull(), rest));
          expect(candidates).toEqual(plain);
          // The counts as 0007 made them: every visible row of the scope (any role, any session, hidden too).
          const want: number[] = [];
          for (const leaf of [...leaves, q]) {
            const n = await db.pool.query(
              "select count(*)::int as n from message_keywords where project_id = $1 and visibility in ('live', 'compacted') and document @@ $2::tsquery and document @@ $3::tsquery",
              [project, counted, leaf],
            );
            want.push(n.rows[0].n);
          }
          expect(header[0].frequencies).toEqual(want);
          expect(candidates.every((c) => (project === 'p_b') === (c.session_id === 's4'))).toBe(true);
          // The parts of the part reads (keyword-window.ts), sized from the leaf sets of the same
          // scan, as counting each part again would size them: for a shuffled leaf order.
          const order = leaves.map((_, i) => i).sort((a, b) => ((a * 7 + limit) % 5) - ((b * 7 + limit) % 5) || a - b);
          const parts = order.map((i, k) => (k === 0 ? leaves[i]! : `${leaves[i]} & !(${order.slice(0, k).map((j) => leaves[j]).join(' | ')})`));
          const [sets, recounted, none] = await scopedRead(db.pool, { projectId: project }, async (tx) => [
            (await tx.query(withSets, [q, counted, leaves, 1000])).rows[0],
            (await tx.query(countOnly, [q, parts])).rows[0].frequencies.slice(0, parts.length),
            (await tx.query(withSets, [q, counted, leaves, 0])).rows[0],
          ]);
          if (want[leaves.length] === 0) expect(sets.leaf_sets).toBeNull();
          else expect(partSizes({ sets: sets.leaf_sets, sizes: sets.leaf_set_counts }, order)).toEqual(recounted);
          // Above `sets_up_to` matches, no sets.
          if (want[leaves.length]! > 0) expect(none).toEqual({ leaf_sets: null, leaf_set_counts: null });
        },
      ),
      { numRuns: 40 },
    );
  });

  it('counts in the same GIN scan: one index condition on project and the counted query', async () => {
    const { db } = await seeded();
    const client = await db.pool.connect();
    const notices: string[] = [];
    client.on('notice', (n) => notices.push(String(n.message)));
    try {
      await client.query('begin');
      await client.query("load 'auto_explain'");
      for (const set of ['enable_seqscan = off', 'auto_explain.log_min_duration = 0', 'auto_explain.log_nested_statements = on', 'auto_explain.log_level = notice', 'client_min_messages = notice']) await client.query(`set local ${set}`);
      await client.query("select set_config('recall.project_id', 'p_a', true)");
      const kq = keywordQuery('retry other');
      await client.query(counting, [kq.tsquery!, [], [], 500, null, null, kq.tsquery!, kq.leaves.map((l) => l.tsquery)]);
      await client.query('rollback');
    } finally {
      client.release();
    }
    const plan = notices.find((n) => n.includes('from public.message_keywords k'));
    expect(plan, notices.join('\n---\n')).toBeDefined();
    // message_keywords is read once (the sessions lookup of the hidden check is the other index scan).
    expect(plan!.match(/Index Scan[^\n]* on message_keywords/g), plan).toHaveLength(1);
    expect(plan).toContain('CTE Scan on w');
    expect(plan).toMatch(/Index Cond: \(\(project_id = \$1\) AND \(document @@ \$9\)\)|Index Cond: \(\(project_id = 'p_a'::text\) AND \(document @@/);
  });
});
