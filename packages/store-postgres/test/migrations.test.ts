import * as contract from '@recall/rpc-contract';
import * as sqlite from '@recall/schema';
import { getTableConfig as pgConfig } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteConfig } from 'drizzle-orm/sqlite-core';
import { sql } from 'drizzle-orm';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as tables from '../src/tables.js';
import { LINEAGE_KINDS, MESSAGE_ROLES, VISIBILITIES, VISIBLE_VISIBILITIES } from '../src/enums.js';
import { InvalidPostgresUrlError, openPostgres, openPostgresStorage, pgTables } from '../src/index.js';
import { EMBEDDED_MIGRATIONS } from '../src/migrations.generated.js';
import { useCluster } from './cluster.js';

const cluster = useCluster();

async function applied(db: Awaited<ReturnType<typeof cluster.open>>): Promise<number> {
  const r = await db.pool.query('select count(*)::int as n from drizzle.__drizzle_migrations');
  return r.rows[0].n as number;
}

describe('migrations', () => {
  it('apply to an empty database, and re-apply as a no-op that keeps the rows', async () => {
    const url = cluster.freshUrl();
    const first = await cluster.open(url);
    expect(await applied(first)).toBe(EMBEDDED_MIGRATIONS.length);
    const names = await first.pool.query("select tablename from pg_tables where schemaname = 'public' order by 1");
    expect(names.rows.map((r) => r.tablename)).toEqual(['message_keywords', 'messages', 'project_folders', 'projects', 'semantic_additions', 'semantic_ann', 'semantic_chunks', 'semantic_fingerprints', 'semantic_generation', 'semantic_plan_queue', 'semantic_planned_projects', 'semantic_projects', 'sessions']);
    await first.orm.insert(tables.projects).values({ id: 'p1', name: 'One', slug: 'one' });
    const again = await cluster.open(url);
    expect(await applied(again)).toBe(EMBEDDED_MIGRATIONS.length);
    expect((await again.orm.select().from(tables.projects)).map((p) => p.id)).toEqual(['p1']);
  });

  it('are applied once when several servers open a new database at the same time', async () => {
    const url = cluster.freshUrl();
    const dbs = await Promise.all([cluster.open(url), cluster.open(url), cluster.open(url)]);
    for (const db of dbs) expect(await applied(db)).toBe(EMBEDDED_MIGRATIONS.length);
  });

  it('embedded migrations match drizzle/ (tooling/scripts/embed-migrations.mjs --check)', () => {
    const script = fileURLToPath(new URL('../../../tooling/scripts/embed-migrations.mjs', import.meta.url));
    expect(() => execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe', cwd: fileURLToPath(new URL('..', import.meta.url)) })).not.toThrow();
  });

  it('rejects a URL that is not postgres:// before connecting', async () => {
    await expect(openPostgres('mysql://localhost/x')).rejects.toBeInstanceOf(InvalidPostgresUrlError);
    await expect(openPostgres('not a url')).rejects.toMatchObject({ code: 'invalid_postgres_url' });
  });
});

describe('foreign keys', () => {
  it('refuse deleting a project that has sessions; folders go with their project', async () => {
    const db = await cluster.open();
    await db.orm.insert(tables.projects).values({ id: 'p1', name: 'One', slug: 'one' });
    await db.orm.insert(tables.projectFolders).values({ projectId: 'p1', path: '/work/one', isPrimary: true });
    await db.orm.insert(tables.sessions).values({ id: 's1', projectId: 'p1' });
    await expect(db.pool.query("delete from projects where id = 'p1'")).rejects.toMatchObject({ code: '23503' });
    await db.pool.query("update sessions set project_id = null where id = 's1'");
    await db.pool.query("delete from projects where id = 'p1'");
    expect((await db.pool.query('select count(*)::int as n from project_folders')).rows[0].n).toBe(0);
    expect((await db.pool.query('select project_id from sessions')).rows).toEqual([{ project_id: null }]);
  });

  it('refuse a session of a project that does not exist, and deleting a session deletes its messages and index rows', async () => {
    const db = await cluster.open();
    await expect(db.orm.insert(tables.sessions).values({ id: 's1', projectId: 'nope' })).rejects.toMatchObject({ cause: { code: '23503' } });
    await db.orm.insert(tables.sessions).values({ id: 's2' });
    await db.pool.query(`insert into messages (session_id, role, content) values ('s2', 'user', 'hello')`);
    await db.pool.query(`insert into message_keywords (message_id, document, tokenizer_version, session_id, role, visibility) select id, to_tsvector('simple', 'hello'), 1, session_id, role, visibility from messages`);
    await db.pool.query("delete from sessions where id = 's2'");
    expect((await db.pool.query('select (select count(*) from messages)::int as m, (select count(*) from message_keywords)::int as k')).rows[0]).toEqual({ m: 0, k: 0 });
  });
});

describe('parity with @recall/schema', () => {
  it('mirrors the SQLite tables column for column, and the vocabularies', () => {
    const pairs = [
      [sqlite.projects, tables.projects],
      [sqlite.projectFolders, tables.projectFolders],
      [sqlite.sessions, tables.sessions],
      [sqlite.messages, tables.messages],
    ] as const;
    for (const [lite, pg] of pairs) {
      const a = sqliteConfig(lite);
      const b = pgConfig(pg);
      expect(b.name).toBe(a.name);
      expect(b.columns.map((c) => c.name).sort()).toEqual(a.columns.map((c) => c.name).sort());
      expect(b.indexes.map((i) => i.config.name).sort()).toEqual(a.indexes.map((i) => i.config.name).sort());
    }
    expect(MESSAGE_ROLES).toEqual(contract.MESSAGE_ROLES);
    expect(VISIBILITIES).toEqual(contract.VISIBILITIES);
    expect(VISIBLE_VISIBILITIES).toEqual(sqlite.VISIBLE_VISIBILITIES);
    expect(LINEAGE_KINDS).toEqual(contract.LINEAGE_KINDS);
    expect(pgTables.messages).toBe(tables.messages);
  });

  it('semantic consent keeps the same columns as SQLite (rerank_endpoint included; planned_fingerprint_id is SQLite-only)', () => {
    const lite = sqliteConfig(sqlite.semanticProjects).columns.map((c) => c.name).filter((n) => n !== 'planned_fingerprint_id');
    expect(pgConfig(tables.semanticProjects).columns.map((c) => c.name).sort()).toEqual(lite.sort());
  });

  it.each([
    { name: 'consent naming a reranker records it', rerank: 'http://127.0.0.1:9/rerank' as string | null | undefined, stored: 'http://127.0.0.1:9/rerank' },
    { name: 'consent without a reranker records none', rerank: null, stored: null },
    { name: 'a caller that does not pass one records none', rerank: undefined, stored: null },
  ])('setConsent: $name; switching off keeps the row as it was', async ({ rerank, stored }) => {
    const url = cluster.freshUrl();
    const storage = await openPostgresStorage({ kind: 'postgres', url });
    try {
      const db = await cluster.open(url);
      await storage.projects.create({ id: 'p_a', name: 'A' });
      await storage.semantic!.chunks.setConsent('p_a', 'http://127.0.0.1:9/other', true, 'http://127.0.0.1:9/old');
      await storage.semantic!.chunks.setConsent('p_a', 'http://127.0.0.1:9/v1', true, rerank);
      const row = () => db.pool.query('select enabled, endpoint, rerank_endpoint from semantic_projects');
      expect((await row()).rows).toEqual([{ enabled: true, endpoint: 'http://127.0.0.1:9/v1', rerank_endpoint: stored }]);
      await storage.semantic!.chunks.setConsent('p_a', 'http://127.0.0.1:9/v1', false);
      expect((await row()).rows).toEqual([{ enabled: false, endpoint: 'http://127.0.0.1:9/v1', rerank_endpoint: stored }]);
    } finally {
      await storage.close();
    }
  });

  it('the cluster offers pgvector (CREATE EXTENSION vector works in a new database)', async () => {
    const db = await cluster.open();
    await db.orm.execute(sql`create extension if not exists vector`);
    const r = await db.pool.query(`select '[1,2,3]'::vector <-> '[1,2,4]'::vector as d`);
    expect(Number(r.rows[0].d)).toBeCloseTo(1);
  });
});
