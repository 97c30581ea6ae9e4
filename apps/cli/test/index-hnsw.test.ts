/**
 * `recall index hnsw --project P [--off]` through the real `recall` (child processes), a throwaway
 * PostgreSQL cluster and the loopback scripted embeddings server: on a project with a few hundred
 * indexed chunks the measured recall@10 reaches 0.98 and the gate opens (recorded in semantic_ann,
 * searches still answer), `--off` closes it, a project without vectors gets a clear typed error, and
 * a SQLite home says the HNSW index is a team-database feature (typed error, nothing opened).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import { startScriptedEmbeddings, type ScriptedEmbeddings } from '@recall/config/scripted-embeddings';
import { openPostgres, type RecallPostgres } from '@recall/store-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt, cleanupTemp, json, runCli, tempDir } from './cli-helpers.js';

const SECRET = 'hNsw-Pw7';
const WORDS = ['kernel', 'ladder', 'mango', 'nickel', 'orbit', 'pepper', 'quartz', 'rivet', 'saddle', 'tundra', 'velvet', 'walnut', 'yodel', 'zephyr', 'anchor', 'bramble'];
let cluster: ThrowawayPostgres;
let server: ScriptedEmbeddings;
let db: RecallPostgres;
let url = '';
let home = '';

const team = (args: readonly string[]) => runCli([...args, '--home', home, '--database', url]);
const gateRows = async (projectId: string): Promise<number> => Number((await db.pool.query('select count(*) as n from semantic_ann where project_id = $1', [projectId])).rows[0].n);

/** 300 messages in 6 sessions of p_hnsw (distinct word triples), 2 in p_plain (never indexed). */
function fixture(): string {
  const lines: unknown[] = [
    { kind: 'project', id: 'p_hnsw', name: 'HNSW sample', folders: ['/srv/hnsw'] },
    { kind: 'project', id: 'p_plain', name: 'Plain project', folders: ['/srv/plain'] },
  ];
  for (let s = 0; s < 6; s++) {
    lines.push({ kind: 'session', id: `hnsw-${s}`, project_id: 'p_hnsw', parent_session_id: null, lineage: 'root', source: 'import', title: `session ${s}`, cwd: '/srv/hnsw', started_at: '2026-11-01T09:00:00Z' });
    for (let m = 0; m < 50; m++) {
      const i = s * 50 + m;
      const text = `${WORDS[i % 16]} ${WORDS[Math.floor(i / 16) % 16]} ${WORDS[(i * 7) % 16]} note ${i}`;
      lines.push({ kind: 'message', session_id: `hnsw-${s}`, external_id: `hnsw-${s}:${m}`, role: m % 2 === 0 ? 'user' : 'assistant', content: text, created_at: `2026-11-01T${String(9 + Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}:00Z` });
    }
  }
  lines.push({ kind: 'session', id: 'plain-0', project_id: 'p_plain', parent_session_id: null, lineage: 'root', source: 'import', title: 'plain', cwd: '/srv/plain', started_at: '2026-11-01T09:00:00Z' });
  for (let m = 0; m < 2; m++) lines.push({ kind: 'message', session_id: 'plain-0', external_id: `plain-0:${m}`, role: 'user', content: `plain words ${m}`, created_at: `2026-11-01T09:0${m}:00Z` });
  const file = join(home, 'hnsw.jsonl');
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

beforeAll(async () => {
  assertCliBuilt();
  server = await startScriptedEmbeddings({ dims: 16 });
  cluster = await startThrowawayPostgres();
  url = cluster.createDatabase('recall').replace('postgresql://postgres@', `postgresql://postgres:${SECRET}@`);
  home = tempDir('recall-index-hnsw-');
  writeFileSync(join(home, 'config.json'), JSON.stringify({ semantic: { enabled: true, provider: 'openai-compatible', endpoint: server.url, model: 'scripted', dims: 16, maxRetries: 0, timeoutMs: 10_000 } }));
  const imported = await team(['import', fixture()]);
  expect(imported.code, imported.stderr).toBe(0);
  db = await openPostgres(url, { maxConnections: 1, migrate: false });
  for (const step of [['index', 'enable', '--project', 'p_hnsw'], ['index', 'run', '--project', 'p_hnsw']]) {
    const r = await team(step);
    expect(r.code, r.stderr).toBe(0);
  }
}, 120_000);
afterAll(async () => {
  await db?.close();
  cleanupTemp();
  await server?.close();
  await cluster?.stop();
});

describe('recall index hnsw', () => {
  it('opens the gate on a project with a few hundred indexed chunks; searches still answer; --off closes it', async () => {
    const status = json<{ semantic: { projects: Array<{ projectId: string; ready: number }> } }>(await team(['index', 'status', '--project', 'p_hnsw', '--json']));
    expect(status.semantic.projects.find((p) => p.projectId === 'p_hnsw')!.ready).toBeGreaterThanOrEqual(290);

    const built = await team(['index', 'hnsw', '--project', 'p_hnsw']);
    expect(built.code, built.stderr).toBe(0);
    expect(built.stdout).toMatch(/^Searches of "HNSW sample" now use the HNSW index \(recall@10 (0\.98|0\.99|1\.00) against the exact search, over \d+ chunks; ef_search \d+/);
    expect(built.stderr).toContain('Building the HNSW index');
    expect(built.stderr).toContain('Measuring recall@10');
    expect(await gateRows('p_hnsw')).toBe(1);
    const again = json<{ open: boolean; recallAt10: number; minimum: number }>(await team(['index', 'hnsw', '--project', 'HNSW sample', '--json']));
    expect(again.open).toBe(true);
    expect(again.recallAt10).toBeGreaterThanOrEqual(again.minimum);

    const found = json<{ used_mode: string; results: unknown[] }>(await team(['search', 'mango orbit', '--project', 'p_hnsw', '--mode', 'semantic', '--json']));
    expect(found.used_mode).toBe('semantic');
    expect(found.results.length).toBeGreaterThan(0);

    const off = await team(['index', 'hnsw', '--project', 'p_hnsw', '--off']);
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toContain('Searches of "HNSW sample" are exact again');
    expect(await gateRows('p_hnsw')).toBe(0);
    for (const r of [built, off]) expect(`${r.stdout}${r.stderr}`).not.toContain(SECRET);
  }, 120_000);

  it.each([
    { name: 'a project without vectors', args: ['index', 'hnsw', '--project', 'p_plain'], team: true, code: 'nothing_indexed', says: /no semantic index of the current model yet.*recall index enable --project p_plain/ },
    { name: 'a SQLite home', args: ['index', 'hnsw', '--project', 'p_hnsw'], team: false, code: 'team_database_only', says: /HNSW index is a team-database feature \(PostgreSQL\)/ },
  ])('$name: a typed error ($code)', async ({ args, team: onTeam, code, says }) => {
    const r = onTeam ? await team(args) : await runCli([...args, '--home', home]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`[${code}]`);
    expect(r.stderr).toMatch(says);
    expect(r.stderr).not.toContain(SECRET);
  }, 60_000);

  it('usage: --project is needed, --off only with hnsw, --help runs nothing', async () => {
    const missing = await team(['index', 'hnsw']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('"index hnsw" needs --project');
    const stray = await team(['index', 'status', '--off']);
    expect(stray.code).toBe(2);
    const help = await runCli(['index', '--help', '--home', home]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('hnsw');
    expect(help.stdout).toContain('--off');
    expect(await gateRows('p_hnsw')).toBe(0);
  }, 60_000);
});
