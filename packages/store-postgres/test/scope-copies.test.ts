/**
 * The scope copies of migrations 0003/0004 (message_keywords and semantic_chunks carry their
 * session's project and their message's role and visibility) and recall_keyword_matches, the
 * SECURITY DEFINER match function of scoped keyword reads:
 * - property: after any sequence of moves, rewinds, compactions, deletes and hides, every copy
 *   equals the truth (sessions.project_id, messages.visibility/role), and the function, inside a
 *   scoped transaction, returns exactly the visible messages of that scope containing the word —
 *   never a row of another project, of no project, of a hidden session or an invisible message;
 * - unscoped, the function returns nothing; only recall_scoped (and the owner) may call it;
 * - the GIN index over (project_id, document) can serve both conditions as one index condition;
 * - a database of the previous schema (migrations up to 0002) migrates, its rows get their copies.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import type { Storage } from '@recall/storage-ports';
import { afterEach, describe, expect, it } from 'vitest';
import { documentText, keywordQuery, migratePostgres, openPostgres, postgresStorage, scopedRead, tsvectorLiteral, type RecallPostgres } from '../src/index.js';
import { useCluster } from './cluster.js';

const cluster = useCluster();
const opened: Storage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

const WORDS = ['番茄', '炒蛋', 'retry', 'deploy', 'timeout'] as const;
const PROJECTS = ['p_a', 'p_b', 'p_c'] as const;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

async function storageOn(db: RecallPostgres, url: string): Promise<Storage> {
  const s = postgresStorage(db, url);
  opened.push(s);
  return s;
}

/** Rows whose copies disagree with messages/sessions (must always be 0). */
async function staleCopies(db: RecallPostgres): Promise<number> {
  const r = await db.pool.query(`select
      (select count(*) from message_keywords k join messages m on m.id = k.message_id join sessions s on s.id = m.session_id
        where k.session_id <> m.session_id or k.project_id is distinct from s.project_id or k.role <> m.role or k.visibility <> m.visibility)
    + (select count(*) from semantic_chunks c join messages m on m.id = c.message_id join sessions s on s.id = m.session_id
        where c.session_id <> m.session_id or c.project_id is distinct from s.project_id or c.role <> m.role or c.visibility <> m.visibility) as n`);
  return Number(r.rows[0].n);
}

/** recall_keyword_matches inside a scoped read of `scope`: message ids, sorted. */
async function matches(db: RecallPostgres, scope: { projectId: string } | { sessionIds: string[] }, word: string, roles: string[] = []): Promise<number[]> {
  const q = keywordQuery(word).tsquery!;
  return scopedRead(db.pool, scope, async (tx) =>
    (await tx.query('select message_id from recall_keyword_matches($1::tsquery, $2::text[], $3::text[], 500)', [q, roles, []])).rows.map((r) => Number(r.message_id)).sort((a, b) => a - b),
  );
}

const op = fc.oneof(
  fc.record({ kind: fc.constant('move' as const), session: fc.nat(), project: fc.option(fc.constantFrom(...PROJECTS), { nil: null }) }),
  fc.record({ kind: fc.constant('rewind' as const), session: fc.nat(), at: fc.nat() }),
  fc.record({ kind: fc.constant('compact' as const), session: fc.nat(), at: fc.nat() }),
  fc.record({ kind: fc.constant('delete' as const), session: fc.nat(), at: fc.nat() }),
  fc.record({ kind: fc.constant('hide' as const), session: fc.nat(), hidden: fc.boolean() }),
);

const world = fc.record({
  sessions: fc.array(
    fc.record({
      project: fc.option(fc.constantFrom(...PROJECTS), { nil: null }),
      messages: fc.array(fc.record({ words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }), assistant: fc.boolean() }), { minLength: 1, maxLength: 4 }),
    }),
    { minLength: 1, maxLength: 5 },
  ),
  ops: fc.array(op, { maxLength: 6 }),
  word: fc.constantFrom(...WORDS),
});

describe('scope copies and the keyword match function', () => {
  it('property: copies follow every move and visibility change; the function returns exactly its scope', async () => {
    const url = cluster.freshUrl();
    const db = await cluster.open(url);
    const s = await storageOn(db, url);
    for (const id of PROJECTS) await s.projects.create({ id, name: id });
    const fp = await s.semantic!.chunks.ensureFingerprint({ provider: 'p', endpoint: 'http://127.0.0.1:9', model: 'm', dims: 3, normalization: 'l2', chunkerVersion: 1 });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        run++;
        const sessionIds: string[] = [];
        const messageIds: number[][] = [];
        for (const [i, spec] of w.sessions.entries()) {
          const session = await s.sessions.create({
            id: `s_${run}_${i}`,
            projectId: spec.project,
            messages: spec.messages.map((m) => ({ role: m.assistant ? ('assistant' as const) : ('user' as const), content: m.words.join(' ') })),
          });
          sessionIds.push(session.id);
          const stored = await s.messages.list(session.id);
          messageIds.push(stored.map((m) => m.id));
          await s.semantic!.chunks.plan(fp, stored.map((m) => ({ messageId: m.id, chunkIndex: 0, start: 0, end: m.content.length, contentHash: sha(m.content) })));
        }
        for (const o of w.ops) {
          const i = o.session % sessionIds.length;
          const ids = messageIds[i]!;
          const at = 'at' in o ? ids[o.at % ids.length]! : 0;
          if (o.kind === 'move') await s.sessions.move(sessionIds[i]!, o.project);
          else if (o.kind === 'rewind') await s.messages.rewind(sessionIds[i]!, at);
          else if (o.kind === 'compact') await s.messages.compact(sessionIds[i]!, at);
          else if (o.kind === 'delete') await s.messages.delete(at);
          else await s.sessions.update(sessionIds[i]!, { hidden: o.hidden });
        }
        expect(await staleCopies(db)).toBe(0);
        // The truth, from messages and sessions (this run's sessions only: the property's scope).
        const truth = async (where: string, params: unknown[]) =>
          (
            await db.pool.query(
              `select m.id from messages m join sessions s on s.id = m.session_id
                where s.id = any($1) and not s.hidden and m.visibility in ('live', 'compacted') and m.content like '%' || $2 || '%' and ${where} order by m.id`,
              [sessionIds, w.word, ...params],
            )
          ).rows.map((r) => Number(r.id));
        const mine = (ids: number[]) => ids.filter((id) => messageIds.flat().includes(id));
        for (const project of PROJECTS) {
          expect(mine(await matches(db, { projectId: project }, w.word))).toEqual(await truth('s.project_id = $3', [project]));
          expect(mine(await matches(db, { projectId: project }, w.word, ['assistant']))).toEqual(await truth("s.project_id = $3 and m.role = 'assistant'", [project]));
        }
        const loose = (await db.pool.query('select id from sessions where id = any($1) and project_id is null', [sessionIds])).rows.map((r) => r.id as string);
        if (loose.length > 0) expect(await matches(db, { sessionIds: loose }, w.word)).toEqual(await truth('s.id = any($3)', [loose]));
      }),
      { numRuns: 12 },
    );
  });

  it('returns nothing without a scope, and only recall_scoped (and the owner) may call it', async () => {
    const url = cluster.freshUrl();
    const db = await cluster.open(url);
    const s = await storageOn(db, url);
    await s.projects.create({ id: 'p_a', name: 'A' });
    await s.sessions.create({ id: 'sa', projectId: 'p_a', messages: [{ role: 'user', content: 'retry secret' }] });
    const q = keywordQuery('secret').tsquery!;
    const call = 'select count(*)::int as n from recall_keyword_matches($1::tsquery, $2::text[], $3::text[], 500)';
    const client = await db.pool.connect();
    try {
      // Unscoped (no setting), as the scoped role and as the owner: nothing.
      await client.query('begin');
      await client.query('set local role recall_scoped');
      expect((await client.query(call, [q, [], []])).rows[0].n).toBe(0);
      await client.query("select set_config('recall.project_id', '', true)");
      expect((await client.query(call, [q, [], []])).rows[0].n).toBe(0);
      await client.query("select set_config('recall.project_id', 'p_a', true)");
      expect((await client.query(call, [q, [], []])).rows[0].n).toBe(1);
      await client.query('rollback');
      expect((await client.query(call, [q, [], []])).rows[0].n).toBe(0);
      // The counts of recall_keyword_matches (0010, its header row) follow the same rules: nothing
      // without a scope, the scope's counts only (per leaf, then the question's matches: none asked).
      await s.projects.create({ id: 'p_b', name: 'B' });
      await s.sessions.create({ id: 'sb', projectId: 'p_b', messages: [{ role: 'user', content: 'secret secret' }, { role: 'user', content: 'another secret' }] });
      const freq = 'select frequencies as df from recall_keyword_matches(null, null, null, 0, null, null, $1::tsquery, $2::tsquery[]) where message_id is null';
      const leaves = keywordQuery('secret retry').leaves.map((l) => l.tsquery);
      const or = keywordQuery('secret retry').tsquery!;
      await client.query('begin');
      await client.query('set local role recall_scoped');
      expect((await client.query(freq, [or, leaves])).rows).toEqual([]);
      await client.query("select set_config('recall.project_id', 'p_a', true)");
      expect((await client.query(freq, [or, leaves])).rows[0].df).toEqual([1, 1, 0]);
      await client.query("select set_config('recall.project_id', 'p_b', true)");
      expect((await client.query(freq, [or, leaves])).rows[0].df).toEqual([2, 0, 0]);
      await client.query('rollback');
      // A role that was not granted EXECUTE cannot call either function at all.
      for (const [sql, args] of [
        [call, [q, [], []]],
        [freq, [or, leaves]],
      ] as const) {
        await client.query('begin');
        await client.query('create role recall_test_other nologin');
        await client.query('set local role recall_test_other');
        await expect(client.query(sql, [...args])).rejects.toMatchObject({ code: '42501' });
        await client.query('rollback');
      }
    } finally {
      client.release();
    }
  });

  it('the GIN index over (project_id, document) takes both conditions as one index condition', async () => {
    const db = await cluster.open();
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      await client.query('set local enable_seqscan = off');
      const plan = (await client.query("explain select message_id from message_keywords where project_id = 'p_a' and document @@ 'retry'::tsquery")).rows.map((r) => String(r['QUERY PLAN'])).join('\n');
      await client.query('rollback');
      expect(plan).toContain('message_keywords_project_document_gin');
      expect(plan).toMatch(/Index Cond: \(\(project_id = 'p_a'::text\) AND \(document @@ '''retry'''::tsquery\)\)/);
    } finally {
      client.release();
    }
  });

  it('a database of the previous schema migrates: existing keyword rows and chunks get their copies', async () => {
    const url = cluster.freshUrl();
    const old = await openPostgres(url, { migrate: false });
    try {
      await migratePostgres(old.pool, { upTo: '0002_team_rules' });
      await old.pool.query(`insert into projects (id, name, slug) values ('p_a', 'A', 'a'), ('p_b', 'B', 'b')`);
      await old.pool.query(`insert into sessions (id, project_id) values ('sa', 'p_a'), ('sb', 'p_b'), ('sn', null)`);
      await old.pool.query(`insert into messages (session_id, role, content, visibility) values ('sa', 'user', 'retry alpha', 'live'), ('sb', 'assistant', 'retry bravo', 'live'), ('sn', 'user', 'retry loose', 'rewound')`);
      for (const m of (await old.pool.query('select id, content from messages')).rows) {
        await old.pool.query('insert into message_keywords (message_id, document, tokenizer_version) values ($1, $2::tsvector, 1)', [m.id, tsvectorLiteral(documentText(m.content))]);
      }
      await old.pool.query(`insert into semantic_fingerprints (key, provider, endpoint, model, dims, chunker_version) values ('k', 'p', 'e', 'm', 3, 1)`);
      await old.pool.query(`insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, "end", content_hash, chunker_version, status, embedding)
        select 1, id, session_id, 0, 0, 5, 'h', 1, 'ready', '[1,0,0]' from messages`);
    } finally {
      await old.close();
    }
    const db = await cluster.open(url);
    const copies = await db.pool.query(`select m.content, k.session_id, k.project_id, k.role, k.visibility, c.project_id as chunk_project, c.role as chunk_role, c.visibility as chunk_visibility
      from messages m join message_keywords k on k.message_id = m.id join semantic_chunks c on c.message_id = m.id order by m.id`);
    expect(copies.rows).toEqual([
      { content: 'retry alpha', session_id: 'sa', project_id: 'p_a', role: 'user', visibility: 'live', chunk_project: 'p_a', chunk_role: 'user', chunk_visibility: 'live' },
      { content: 'retry bravo', session_id: 'sb', project_id: 'p_b', role: 'assistant', visibility: 'live', chunk_project: 'p_b', chunk_role: 'assistant', chunk_visibility: 'live' },
      { content: 'retry loose', session_id: 'sn', project_id: null, role: 'user', visibility: 'rewound', chunk_project: null, chunk_role: 'user', chunk_visibility: 'rewound' },
    ]);
    const s = await storageOn(db, url);
    const found = async (projectId: string) => (await s.keyword.search({ kind: 'project', projectId }, 'retry')).hits.map((h) => h.sessionId);
    expect(await found('p_a')).toEqual(['sa']);
    await s.sessions.move('sb', 'p_a');
    expect((await found('p_a')).sort()).toEqual(['sa', 'sb']);
    expect(await found('p_b')).toEqual([]);
    const vector = async (projectId: string) => (await s.semantic!.chunks.search({ kind: 'project', projectId, currentSessionId: null }, 1, Float32Array.from([1, 0, 0]), { limit: 5 })).map((h) => h.sessionId).sort();
    expect(await vector('p_a')).toEqual(['sa', 'sb']);
    expect(await vector('p_b')).toEqual([]);
    expect(await staleCopies(db)).toBe(0);
  });
});
