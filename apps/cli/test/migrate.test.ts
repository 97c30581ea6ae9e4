/**
 * `recall migrate` end to end: a real SQLite profile (written through the SQLite adapter's ports),
 * a real throwaway PostgreSQL, the built CLI as a real child process — one killed with SIGKILL in
 * the middle of the copy and then re-run to completion, a second re-run copying nothing, counts and
 * rows compared, the password never printed; the per-project semantic consent copied and never
 * overriding a later change on the team database; and the commands that copy a profile's file (backup,
 * restore) refusing a PostgreSQL storage with `storage_unsupported` before connecting.
 */
import { spawn } from 'node:child_process';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import { openDatabase, profileDatabasePath } from '@recall/schema';
import { sqliteSemanticStorage } from '@recall/semantic/sqlite';
import { sqliteStorage } from '@recall/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareCounts } from '../src/commands/migrate.js';
import { assertCliBuilt, childEnv, CLI_PATH, cleanupTemp, PACKAGE_DIR, REPO_ROOT, runCli, runNode, tempDir } from './cli-helpers.js';

/**
 * Reads the team database in a child process (the PostgreSQL adapter's built entry point): the
 * vitest config of this package resolves pg's CJS/ESM pair wrongly in-process.
 */
async function inPostgres<T>(url: string, body: string): Promise<T> {
  const script = `import { openPostgresStorage } from '@recall/store-postgres';
const pg = await openPostgresStorage({ kind: 'postgres', url: process.env.TEST_PG_URL });
try { const out = await (async () => { ${body} })(); process.stdout.write(JSON.stringify(out)); } finally { await pg.close(); }`;
  const r = await runNode(['--input-type=module', '-e', script], { cwd: PACKAGE_DIR, env: { TEST_PG_URL: url }, timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`postgres check failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

const SECRET = 's3cret-Pw9';
let cluster: ThrowawayPostgres;
const withPassword = (url: string) => url.replace('postgresql://postgres@', `postgresql://postgres:${SECRET}@`);

beforeAll(async () => {
  assertCliBuilt();
  cluster = await startThrowawayPostgres();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
  cleanupTemp();
});

interface Fixture {
  home: string;
  ids: { projectA: string; continued: string; delegate: string; deletedMessage: number; rewoundMessage: number; loose: string };
}

async function makeProfile(sessions: number, perSession: number): Promise<Fixture> {
  const home = tempDir('recall-migrate-');
  const storage = sqliteStorage(openDatabase(profileDatabasePath(home, 'default')), { ownsDatabase: true });
  const a = await storage.projects.create({ name: 'Alpha', folders: [`${home}/alpha`] });
  const b = await storage.projects.create({ name: 'Beta' });
  const first = await storage.sessions.create({ projectId: a.id, title: '数据库迁移', messages: [{ role: 'user', content: '我们讨论了数据库迁移的问题' }, { role: 'assistant', content: 'use pg_dump first' }, { role: 'user', content: 'delete me' }, { role: 'user', content: 'rewind me' }] });
  const msgs = await storage.messages.list(first.id);
  await storage.messages.delete(msgs[2]!.id);
  await storage.messages.rewind(first.id, msgs[1]!.id);
  const continued = await storage.sessions.continueCompressed(first.id);
  const delegate = await storage.sessions.delegate(continued.session.id);
  const loose = await storage.sessions.create({ title: 'no project', messages: [{ role: 'user', content: 'loose end' }] });
  for (let s = 0; s < sessions; s++) {
    const session = await storage.sessions.create({ projectId: s % 2 ? a.id : b.id });
    await storage.messages.append(session.id, Array.from({ length: perSession }, (_, i) => ({ role: i % 2 ? ('assistant' as const) : ('user' as const), content: `message ${s}.${i} about retries`, createdAt: 1_700_000_000_000 + s * 1000 + i })));
  }
  await storage.close();
  return { home, ids: { projectA: a.id, continued: continued.session.id, delegate: delegate.id, deletedMessage: msgs[2]!.id, rewoundMessage: msgs[3]!.id, loose: loose.id } };
}

/** Runs migrate and SIGKILLs it at its first progress line on stderr. */
function migrateKilledMidRun(home: string, url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, 'migrate', '--from', home], { env: childEnv({ RECALL_DATABASE_URL: url }), cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (/sessions, [\d,]+ messages copied/.test(stderr)) child.kill('SIGKILL');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`migrate finished before it was killed:\n${stderr}`));
      else resolve(stderr);
    });
  });
}

describe('recall migrate', () => {
  it('copies a profile (ids, lineage, visibility), survives kill -9 mid-run, re-runs copy nothing, counts verified, password never shown', async () => {
    const { home, ids } = await makeProfile(80, 150);
    const url = withPassword(cluster.createDatabase('migrate'));
    const killedErr = await migrateKilledMidRun(home, url);
    expect(killedErr).not.toContain(SECRET);

    const partialCount = await inPostgres<number>(url, 'return (await pg.bulk.counts()).messages;');
    expect(partialCount).toBeLessThan(80 * 150);

    const resumed = await runCli(['migrate', '--from', home, '--json'], { env: { RECALL_DATABASE_URL: url }, timeoutMs: 120_000 });
    expect(resumed.stderr + resumed.stdout).not.toContain(SECRET);
    expect(resumed.code, resumed.stderr).toBe(0);
    const report = JSON.parse(resumed.stdout) as { verified: boolean; copied: { messages: number }; counts: { profile: { messages: number; sessions: number } } };
    expect(report.verified).toBe(true);
    expect(report.counts.profile.messages).toBe(80 * 150 + 5);
    expect(report.copied.messages).toBe(report.counts.profile.messages - partialCount);
    expect(resumed.stdout).toContain('postgres:***@');

    const again = await runCli(['migrate', '--from', home], { env: { RECALL_DATABASE_URL: url }, timeoutMs: 120_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^Nothing new to copy/);

    const seen = await inPostgres<Record<string, unknown>>(
      url,
      `const appended = await pg.messages.append(${JSON.stringify(ids.loose)}, [{ role: 'user', content: 'after the copy' }]);
       return {
         delegate: await pg.sessions.get(${JSON.stringify(ids.delegate)}),
         continued: (await pg.sessions.get(${JSON.stringify(ids.continued)})).lineage,
         loose: (await pg.sessions.get(${JSON.stringify(ids.loose)})).projectId,
         deleted: (await pg.messages.get(${ids.deletedMessage})).visibility,
         rewound: (await pg.messages.get(${ids.rewoundMessage})).visibility,
         chinese: (await pg.keyword.search({ kind: 'project', projectId: ${JSON.stringify(ids.projectA)} }, '数据库')).hits.length,
         newId: appended.messages[0].id,
       };`,
    );
    expect(seen.delegate).toMatchObject({ lineage: 'delegation', parentSessionId: ids.continued, hidden: true, projectId: ids.projectA });
    expect(seen).toMatchObject({ continued: 'compression', loose: null, deleted: 'deleted', rewound: 'rewound' });
    expect(seen.chinese).toBeGreaterThan(0);
    // New ids continue after the imported ones.
    expect(seen.newId).toBeGreaterThan(ids.rewoundMessage + 80 * 150);
  }, 240_000);

  it('copies the semantic consent (switched on and off projects); a re-run never overrides a change made on the team database', async () => {
    const home = tempDir('recall-migrate-consent-');
    const db = openDatabase(profileDatabasePath(home, 'default'));
    const storage = sqliteStorage(db, { ownsDatabase: true });
    const on = await storage.projects.create({ name: 'grepline-rust-cli' });
    const cn = await storage.projects.create({ name: '家常菜谱小程序' });
    const off = await storage.projects.create({ name: 'Switched off' });
    await storage.projects.create({ name: 'Never asked' });
    for (const p of [on, cn, off]) await storage.sessions.create({ projectId: p.id, messages: [{ role: 'user', content: `about ${p.name}` }] });
    const chunks = sqliteSemanticStorage(db).chunks;
    await chunks.setConsent(on.id, 'http://127.0.0.1:9/v1/embeddings', true, 'http://127.0.0.1:9/v1/rerank');
    await chunks.setConsent(cn.id, 'http://127.0.0.1:9/v1/embeddings', true);
    await chunks.setConsent(off.id, 'http://127.0.0.1:9/v1/embeddings', true, 'http://127.0.0.1:9/v1/rerank');
    await chunks.setConsent(off.id, 'http://127.0.0.1:9/v1/embeddings', false);
    const expected = await storage.transfer!.consents!();
    expect(expected.map((c) => c.enabled).sort()).toEqual([false, true, true]);
    // What the profile's ports answer (the reranker and status read this): the team database must answer the same.
    const records: Record<string, unknown> = {};
    for (const p of await storage.projects.list({ includeArchived: true })) records[p.id] = await chunks.consentRecord(p.id);
    expect(records[off.id]).toMatchObject({ enabled: false, rerankEndpoint: 'http://127.0.0.1:9/v1/rerank' });
    await storage.close();

    const url = cluster.createDatabase('migrate_consent');
    const first = await runCli(['migrate', '--from', home, '--json'], { env: { RECALL_DATABASE_URL: url }, timeoutMs: 120_000 });
    expect(first.code, first.stderr).toBe(0);
    expect((JSON.parse(first.stdout) as { copied: { consents: number } }).copied.consents).toBe(3);
    expect(await inPostgres(url, 'return await pg.transfer.consents();')).toEqual(expected);
    expect(
      await inPostgres(url, `const out = {}; for (const p of await pg.projects.list({ includeArchived: true })) out[p.id] = await pg.semantic.chunks.consentRecord(p.id); return out;`),
    ).toEqual(records);

    // Switched off on the team database, then migrated again: it stays off.
    await inPostgres(url, `await pg.semantic.chunks.setConsent(${JSON.stringify(on.id)}, 'http://127.0.0.1:9/v1/embeddings', false); return null;`);
    const again = await runCli(['migrate', '--from', home], { env: { RECALL_DATABASE_URL: url }, timeoutMs: 120_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^Nothing new to copy/);
    const after = await inPostgres<Array<{ projectId: string; enabled: boolean }>>(url, 'return await pg.transfer.consents();');
    expect(after.find((c) => c.projectId === on.id)?.enabled).toBe(false);
    expect(after.find((c) => c.projectId === cn.id)).toEqual(expected.find((c) => c.projectId === cn.id));
  }, 240_000);

  it('names the projects switched on when it copies their consent', async () => {
    const home = tempDir('recall-migrate-consent-text-');
    const db = openDatabase(profileDatabasePath(home, 'default'));
    const storage = sqliteStorage(db, { ownsDatabase: true });
    const a = await storage.projects.create({ name: 'grepline-rust-cli' });
    const b = await storage.projects.create({ name: '家常菜谱小程序' });
    await sqliteSemanticStorage(db).chunks.setConsent(a.id, 'http://127.0.0.1:9/v1/embeddings', true);
    await sqliteSemanticStorage(db).chunks.setConsent(b.id, 'http://127.0.0.1:9/v1/embeddings', true);
    await storage.close();
    const r = await runCli(['migrate', '--from', home], { env: { RECALL_DATABASE_URL: cluster.createDatabase('migrate_consent_text') }, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Semantic indexing was switched on for 2 projects (');
    expect(r.stdout).toContain('grepline-rust-cli');
    expect(r.stdout).toContain('家常菜谱小程序');
    expect(r.stdout).toContain('recall index run');
  }, 120_000);

  it('never shows the password when the database cannot be reached', async () => {
    const { home } = await makeProfile(1, 1);
    const r = await runCli(['migrate', '--from', home, '--to', `postgresql://postgres:${SECRET}@127.0.0.1:1/none`], { timeoutMs: 60_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('[storage_unavailable]');
    expect(r.stderr + r.stdout).not.toContain(SECRET);
  }, 90_000);

  it.each([
    ['differences by project', { projects: 1, sessions: 2, messages: 3, perProject: { p_a: { sessions: 2, messages: 3 } } }, { projects: 1, sessions: 2, messages: 2, perProject: { p_a: { sessions: 2, messages: 2 } } }, 1],
    ['a missing group', { projects: 0, sessions: 1, messages: 1, perProject: { '': { sessions: 1, messages: 1 } } }, { projects: 0, sessions: 0, messages: 0, perProject: {} }, 2],
    ['equal', { projects: 1, sessions: 1, messages: 1, perProject: { p_a: { sessions: 1, messages: 1 } } }, { projects: 2, sessions: 1, messages: 1, perProject: { p_a: { sessions: 1, messages: 1 } } }, 0],
  ])('compareCounts: %s', (_name, source, target, expected) => {
    expect(compareCounts(source, target)).toHaveLength(expected);
  });
});

describe('a PostgreSQL storage on commands that do not serve it yet', () => {
  it.each([
    ['--database flag', ['backup'], 'flag', 'pg_dump'],
    ['RECALL_DATABASE_URL', ['restore', '/nonexistent/recall.db'], 'env', 'pg_restore'],
    ['config.json storage', ['backup', '--json'], 'file', 'pg_dump'],
  ])('%s → storage_unsupported, nothing opened', async (_name, args, how, why) => {
    const home = tempDir('recall-unsupported-');
    const url = `postgresql://postgres:${SECRET}@127.0.0.1:1/none`;
    if (how === 'file') {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(`${home}/config.json`, JSON.stringify({ storage: { kind: 'postgres', url } }));
    }
    const r = await runCli([...args, '--home', home, ...(how === 'flag' ? ['--database', url] : [])], how === 'env' ? { env: { RECALL_DATABASE_URL: url } } : {});
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(why);
    expect(r.stderr).toContain('[storage_unsupported]');
    expect(r.stderr).not.toContain(SECRET);
  });

  it('rejects a --database that is not a postgres URL without echoing it', async () => {
    const r = await runCli(['projects', '--home', tempDir(), '--database', `mysql://u:${SECRET}@h/db`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('[invalid_config]');
    expect(r.stderr).not.toContain(SECRET);
  });
});
