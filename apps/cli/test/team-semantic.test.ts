/**
 * The semantic index on a PostgreSQL team database through the real `recall` (child processes), a
 * throwaway cluster and a real loopback OpenAI-compatible embeddings server that records what it
 * embeds: `recall index status|enable|run|rebuild|disable --database URL` run the index.* methods
 * over the storage ports (consent per project: nothing of a project is sent before it is switched
 * on), `recall search --mode semantic` answers from pgvector in the caller's project, and
 * `recall serve --database URL` runs the embedding worker: a project switched on while it runs is
 * embedded in the background and its status turns ready. The password never shows.
 */
import { join } from 'node:path';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import { startScriptedEmbeddings, type ScriptedEmbeddings } from '@recall/config/scripted-embeddings';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt, cleanupTemp, json, PACKAGE_DIR, runCli, startCli, tempDir } from './cli-helpers.js';

const DEMO = join(PACKAGE_DIR, 'ui', 'demo', 'recall-demo.jsonl');
const SECRET = 'sEm-Pw9';
let cluster: ThrowawayPostgres;
let server: ScriptedEmbeddings;
let url = '';
let home = '';

const team = (args: readonly string[]) => runCli([...args, '--home', home, '--database', url]);

interface StatusJson {
  semantic: { configured: boolean; enabled: boolean; provider: { model: string } | null; projects: Array<{ projectId: string; status: string; reason: string; ready: number; eligible: number | 'unknown' }> };
}
const projectStatus = (s: StatusJson, id: string) => s.semantic.projects.find((p) => p.projectId === id)!;

beforeAll(async () => {
  assertCliBuilt();
  server = await startScriptedEmbeddings({ dims: 16 });
  cluster = await startThrowawayPostgres();
  url = cluster.createDatabase('recall').replace('postgresql://postgres@', `postgresql://postgres:${SECRET}@`);
  home = tempDir('recall-team-semantic-');
  writeFileSync(join(home, 'config.json'), JSON.stringify({ semantic: { enabled: true, provider: 'openai-compatible', endpoint: server.url, model: 'scripted', dims: 16, maxRetries: 0, timeoutMs: 10_000 } }));
  const imported = await team(['import', DEMO]);
  expect(imported.code, imported.stderr).toBe(0);
}, 120_000);
afterAll(async () => {
  cleanupTemp();
  await server?.close();
  await cluster?.stop();
});

describe('recall index on a team database', () => {
  it('status, enable, run, search by meaning, rebuild, disable — and nothing of a project is sent before its consent', async () => {
    const before = json<StatusJson>(await team(['index', 'status', '--json']));
    expect(before.semantic).toMatchObject({ configured: true, enabled: true, provider: { model: 'scripted' } });
    expect(projectStatus(before, 'p_demo_recipes')).toMatchObject({ status: 'disabled', reason: 'project_not_enabled' });
    expect(server.requests.length).toBe(0);

    const enabled = await team(['index', 'enable', '--project', 'p_demo_recipes']);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(enabled.stdout).toContain(server.url);
    const run = await team(['index', 'run', '--project', 'p_demo_recipes', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(json(run)).toMatchObject({ completed: true });
    const after = json<StatusJson>(await team(['index', 'status', '--project', 'p_demo_recipes', '--json']));
    const recipes = projectStatus(after, 'p_demo_recipes');
    expect(recipes).toMatchObject({ status: 'ready', reason: 'complete' });
    expect(recipes.ready).toBeGreaterThan(0);
    expect(recipes.eligible).toBe(recipes.ready);
    const embeddedDocs = server.embedded.size;
    expect(embeddedDocs).toBe(recipes.ready);

    const found = await team(['search', 'egg', '--project', 'p_demo_recipes', '--mode', 'semantic', '--json']);
    expect(found.code, found.stderr).toBe(0);
    const result = json<{ used_mode: string; semantic_status: string; results: Array<{ session_id: string; match_source: string }> }>(found);
    expect(result).toMatchObject({ used_mode: 'semantic', semantic_status: 'ready' });
    expect(result.results.length).toBeGreaterThan(0);
    expect(result.results.every((r) => r.match_source === 'semantic')).toBe(true);
    // another project, never switched on, answers keyword-only and sent nothing (the question included)
    const sent = server.embedded.size;
    expect(sent).toBe(embeddedDocs + 1); // + the question "egg"
    const other = json<{ semantic_status: string }>(await team(['search', 'tidy', '--project', 'p_demo_tidy', '--json']));
    expect(other.semantic_status).toBe('disabled');
    expect(server.embedded.size).toBe(sent);

    const rebuilt = await team(['index', 'rebuild', '--project', 'p_demo_recipes', '--json']);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(json(rebuilt)).toMatchObject({ chunksDeleted: recipes.ready });
    const off = await team(['index', 'disable', '--project', 'p_demo_recipes']);
    expect(off.code, off.stderr).toBe(0);
    expect(projectStatus(json<StatusJson>(await team(['index', 'status', '--json'])), 'p_demo_recipes')).toMatchObject({ status: 'disabled', reason: 'project_not_enabled' });
    for (const r of [before, after]) expect(JSON.stringify(r)).not.toContain(SECRET);
  }, 120_000);

  it('recall serve --database runs the embedding worker: a project switched on meanwhile is embedded in the background', async () => {
    const served = startCli(['serve', '--port', '0', '--no-ui', '--home', home, '--database', url]);
    const launch = await served.firstLine;
    const base = new URL(launch).origin;
    const token = (await import('node:fs')).readFileSync(join(home, 'gateway.token'), 'utf8').trim();
    const rpc = async (method: string, params: Record<string, unknown> = {}) => {
      const r = await fetch(`${base}/rpc`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
      return ((await r.json()) as { result: unknown }).result;
    };
    const enabled = (await rpc('index.project.enable', { projectId: 'p_demo_grepline' })) as { endpoint: string };
    expect(enabled.endpoint).toBe(server.url);
    let status: StatusJson | null = null;
    for (let i = 0; i < 100; i++) {
      status = (await rpc('index.status', { projectId: 'p_demo_grepline' })) as StatusJson;
      if (projectStatus(status, 'p_demo_grepline').status === 'ready') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(projectStatus(status!, 'p_demo_grepline')).toMatchObject({ status: 'ready' });
    expect(projectStatus(status!, 'p_demo_grepline').ready).toBeGreaterThan(0);
    served.child.kill('SIGINT');
    const exit = await served.exit;
    expect(exit.stderr).toMatch(/Semantic search: +(on|configured)/);
    expect(exit.stderr).not.toMatch(/Semantic search: +not available/);
    expect(`${exit.stdout}${exit.stderr}`).not.toContain(SECRET);
  }, 120_000);
});
