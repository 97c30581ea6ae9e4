/**
 * scopedWith (adapter/tx.ts): the first reads of a scoped transaction go out in the round trip that
 * opens the scope, and still run under it. Deliberately unscoped statements (no project filter at
 * all) sent that way see only the scope's rows through row-level security, inside withReadScope as
 * well; a failing one throws and leaves the pool usable; values written in as literals
 * (inlineParameters) come back exactly, whatever quotes, backslashes or placeholders they hold.
 * KeywordIndex.search sends its matches call and titles that way: two statements per call (the
 * opening with its first reads, then COMMIT), also when a word matches more messages than one
 * call's candidates (migration 0012 returns them all in the first call).
 */
import { describe, expect, it } from 'vitest';
import { postgresStorage, type RecallPostgres } from '../src/index.js';
import { inlineParameters, scopedPool, scopedWith, type RlsScope } from '../src/adapter/tx.js';
import { useCluster } from './cluster.js';

const cluster = useCluster();

async function seeded(): Promise<RecallPostgres> {
  const url = cluster.freshUrl();
  const db = await cluster.open(url);
  const s = postgresStorage(db, url);
  await s.projects.create({ id: 'p_a', name: 'A' });
  await s.projects.create({ id: 'p_b', name: 'B' });
  await s.sessions.create({ id: 's_a1', projectId: 'p_a', title: 'a', messages: [{ role: 'user', content: 'retry in a', createdAt: 1 }] });
  await s.sessions.create({ id: 's_b1', projectId: 'p_b', title: 'b', messages: [{ role: 'user', content: 'retry in b', createdAt: 2 }] });
  return db;
}

/** Unscoped reads: every session, every message, every keyword row the role may see. */
const UNSCOPED = ['select id from sessions order by id', 'select session_id from messages order by id', 'select session_id from message_keywords order by message_id'];

const CASES: Array<[string, RlsScope, string[]]> = [
  ['project p_a', { projectId: 'p_a' }, ['s_a1']],
  ['project p_b', { projectId: 'p_b' }, ['s_b1']],
  ['own sessions s_b1', { sessionIds: ['s_b1'] }, ['s_b1']],
  ['a project with nothing', { projectId: 'p_none' }, []],
];

describe('scopedWith: first reads sent with the scope opening', () => {
  it.each(CASES)('%s: unscoped statements see only the scope (opened here, and inside an open scope)', async (_name, scope, want) => {
    const db = await seeded();
    const ids = (rs: Array<{ rows: Array<Record<string, unknown>> }>) => rs.map((r) => [...new Set(r.rows.map((x) => String(x.id ?? x.session_id)))]);
    const opened = await scopedWith(db.pool, scope, () => UNSCOPED, async (tx, results) => {
      // A later statement of the same transaction is scoped as well.
      const later = (await tx.query('select id from sessions order by id')).rows.map((r) => r.id);
      return [...ids(results), later];
    });
    expect(opened).toEqual([want, want, want, want]);
    // Inside an already open scope (withReadScope's bound client): the same statements, one round trip.
    const nested = await scopedWith(db.pool, scope, () => [], (client) => scopedWith(scopedPool(client, db.pool), { projectId: 'p_b' }, () => UNSCOPED, async (_tx, results) => ids(results)));
    expect(nested).toEqual([want, want, want]);
  });

  it('a failing first read throws and nothing stays open: the next scoped read works', async () => {
    const db = await seeded();
    await expect(scopedWith(db.pool, { projectId: 'p_a' }, () => ['select 1', 'select * from no_such_table'], async () => 'ran')).rejects.toThrow(/no_such_table/);
    // Writing is refused in the read-only transaction, before fn runs.
    await expect(scopedWith(db.pool, { projectId: 'p_a' }, () => ["update sessions set title = 'x'"], async () => 'ran')).rejects.toThrow(/read-only/);
    for (let i = 0; i < 3; i++) {
      const got = await scopedWith(db.pool, { projectId: 'p_b' }, () => ['select id from sessions'], async (_tx, [r]) => r!.rows.map((x) => x.id));
      expect(got).toEqual(['s_b1']);
    }
    expect((await db.pool.query("select title from sessions where id = 's_a1'")).rows[0].title).toBe('a');
  });

  it.each([
    ['a word in 30 messages (fewer than the candidates)', 30],
    ['a word in 150 messages (more than the candidates, one call)', 150],
  ])('KeywordIndex.search of %s sends two statements', async (_name, count) => {
    const url = cluster.freshUrl();
    const db = await cluster.open(url);
    const s = postgresStorage(db, url);
    await s.projects.create({ id: 'p_a', name: 'A' });
    await s.sessions.create({ id: 's_a1', projectId: 'p_a', title: 'kubernetes notes', messages: Array.from({ length: 200 }, (_, i) => ({ role: 'user' as const, content: i < count ? `kubernetes ${'pod '.repeat(i % 7)}` : 'other', createdAt: i + 1 })) });
    const sent: string[] = [];
    db.pool.on('acquire', (client) => {
      const c = client as unknown as { query: (...a: unknown[]) => unknown; counted?: boolean };
      if (c.counted) return;
      c.counted = true;
      const query = c.query.bind(client);
      c.query = (...a: unknown[]) => (sent.push(String(a[0])), query(...a));
    });
    const answer = await s.keyword.search({ kind: 'project', projectId: 'p_a' }, 'kubernetes', { limit: 20 });
    await new Promise((resolve) => setTimeout(resolve, 50)); // the COMMIT is sent after the answer
    expect(answer.hits).toHaveLength(20);
    expect(answer.titleHits.map((t) => t.sessionId)).toEqual(['s_a1']);
    expect(sent, sent.join('\n---\n')).toHaveLength(2);
    expect(sent[1]).toBe('commit');
  });

  it.each([
    ['quotes', "it's 'quoted'"],
    ['backslashes', 'C:\\path\\n \\\\ end'],
    ['placeholders in a value', '$1 $2 $$ $fn$'],
    ['CJK and emoji', '数据库 迁移 🙂'],
    ['empty', ''],
  ])('inlineParameters writes %s as a literal that reads back exactly', async (_name, text) => {
    const db = await seeded();
    const client = await db.pool.connect();
    try {
      const sql = inlineParameters(client, 'select $1::text as t, $2::text[] as a, $3::text[] as e, $4::int as n, $5::bigint as z, $6::boolean as b', [text, [text, 'x'], [], 42, null, true]);
      const row = (await client.query(sql)).rows[0];
      expect(row).toEqual({ t: text, a: [text, 'x'], e: [], n: 42, z: null, b: true });
    } finally {
      client.release();
    }
  });

  it.each([
    ['a number that is not finite', [Number.NaN]],
    ['an object', [{ a: 1 }]],
    ['a missing value', []],
  ])('inlineParameters refuses %s', async (_name, values) => {
    expect(() => inlineParameters({ escapeLiteral: (s: string) => `'${s}'` }, 'select $1', values)).toThrow();
  });
});
