/**
 * The semantic index through the gateway: `index.status` per project, the consent RPCs
 * (`index.project.enable` names the endpoint and says new messages are sent too), `index.run`
 * (backfill, progress as index.changed events), `index.pause`, `index.rebuild`, the worker started
 * with the gateway and indexing new messages by itself, `unavailable` with keyword search still
 * answering, the key never in an answer, `semantic_disabled` (-32033) without configuration, and
 * the `recall index` CLI (enable/run/status) as a child process. Real gateway, real SQLite, a real
 * loopback embeddings server.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startScriptedEmbeddings, type ScriptedEmbeddings } from '@recall/config/scripted-embeddings';
import { createSessionSearchTool } from '@recall/search-tool';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { GatewayEvent } from '@recall/rpc-contract';
import { assertCliBuilt, cleanupTemp, json, runCli, tempDir } from './cli-helpers.js';
import { cleanup, startTestGateway, tempHome, type TestGateway } from './helpers.js';
import { semanticPlugin } from '../src/semantic-wiring.js';

const KEY = 'sk-embed-SECRET-77aa11';
let server: ScriptedEmbeddings;
beforeAll(async () => {
  server = await startScriptedEmbeddings({ dims: 8 });
});
afterAll(async () => {
  await server.close();
  cleanupTemp();
});
afterEach(cleanup);

const semanticConfig = (over: Record<string, unknown> = {}) => ({ enabled: true, provider: 'openai-compatible', endpoint: server.url, model: 'scripted', dims: 8, maxRetries: 0, timeoutMs: 2_000, ...over });

async function gateway(over: Record<string, unknown> = {}, options: Parameters<typeof startTestGateway>[0] & { pollMs?: number } = {}): Promise<TestGateway> {
  const { pollMs, ...rest } = options;
  return startTestGateway({ semantic: semanticPlugin({ config: semanticConfig(over), keys: { embeddingApiKey: KEY, openaiApiKey: null }, ...(pollMs ? { pollMs } : {}) }), ...rest });
}

async function seed(gw: TestGateway) {
  const on = (await gw.call('projects.create', { name: 'Indexed' })) as { id: string };
  const off = (await gw.call('projects.create', { name: 'Private' })) as { id: string };
  const s = (await gw.call('session.create', { projectId: on.id, title: 'a' })) as { id: string };
  const t = (await gw.call('session.create', { projectId: off.id, title: 'b' })) as { id: string };
  for (let i = 0; i < 4; i++) {
    await gw.call('session.append', { sessionId: s.id, role: 'user', content: `deploy pipeline question ${i}` });
    await gw.call('session.append', { sessionId: t.id, role: 'user', content: `SECRET private note ${i}` });
  }
  return { on: on.id, off: off.id, s: s.id, t: t.id };
}

const rpcError = async (p: Promise<unknown>) => p.then(
  () => null,
  (e: { rpcError: { code: number; data: { code: string } } }) => e.rpcError,
);

describe('index.* over the gateway', () => {
  test('with semantic.rerank: index.status and the consent name the reranker endpoint and model', async () => {
    const gw = await gateway({ rerank: { endpoint: 'http://127.0.0.1:9/v1', model: 'bge-reranker-v2-m3' } }, { pollMs: 60_000 });
    const f = await seed(gw);
    const status = (await gw.call('index.status', {})) as any;
    expect(status.semantic.provider.reranker).toEqual({ endpoint: 'http://127.0.0.1:9/v1', model: 'bge-reranker-v2-m3' });
    const enabled = (await gw.call('index.project.enable', { projectId: f.on })) as any;
    expect(enabled.reranker).toEqual({ endpoint: 'http://127.0.0.1:9/v1', model: 'bge-reranker-v2-m3' });
    expect(enabled.notice).toContain('reranker at http://127.0.0.1:9/v1 (model bge-reranker-v2-m3)');
  });

  test.each([
    { name: 'the endpoints shown', shown: (u: string) => ({ endpoint: u, rerankEndpoint: 'http://127.0.0.1:9/v1' }), refused: false },
    { name: 'nothing shown (older clients)', shown: () => ({}), refused: false },
    { name: 'no reranker shown while one is configured', shown: (u: string) => ({ endpoint: u, rerankEndpoint: null }), refused: true },
    { name: 'another reranker shown', shown: (u: string) => ({ endpoint: u, rerankEndpoint: 'http://127.0.0.1:9/old' }), refused: true },
    { name: 'another embedding endpoint shown', shown: () => ({ endpoint: 'http://127.0.0.1:9/elsewhere' }), refused: true },
  ])('index.project.enable with $name → refused: $refused; the consent records the reranker', async ({ shown, refused }) => {
    const gw = await gateway({ rerank: { endpoint: 'http://127.0.0.1:9/v1', api: 'tei' } }, { pollMs: 60_000 });
    const f = await seed(gw);
    const call = gw.call('index.project.enable', { projectId: f.on, ...shown(server.url) });
    const consentOf = async () => ((await gw.call('index.status', { projectId: f.on })) as any).semantic.projects[0].consent;
    if (refused) {
      const error = await rpcError(call);
      expect(error).toMatchObject({ code: -32039, data: { code: 'consent_endpoint_changed' } });
      expect((error as unknown as { message: string }).message).toContain('reranker at http://127.0.0.1:9/v1');
      expect(await consentOf()).toMatchObject({ enabled: false, rerankEndpoint: null });
    } else {
      await call;
      expect(await consentOf()).toMatchObject({ enabled: true, endpoint: server.url, rerankEndpoint: 'http://127.0.0.1:9/v1' });
    }
  });

  test('status → enable (consent names the endpoint) → run → ready; the private project sends nothing; the key is never answered', async () => {
    const gw = await gateway({}, { pollMs: 60_000 });
    const f = await seed(gw);
    const before = (await gw.call('index.status', {})) as any;
    expect(before.semantic).toMatchObject({ status: 'disabled', reason: 'no_project_enabled', configured: true, enabled: true });
    expect(before.semantic.provider).toMatchObject({ provider: 'openai-compatible', endpoint: server.url, model: 'scripted', dims: 8, remote: true });
    expect(before.semantic.projects.map((p: any) => [p.name, p.status, p.reason])).toEqual([
      ['Indexed', 'disabled', 'project_not_enabled'],
      ['Private', 'disabled', 'project_not_enabled'],
    ]);
    const events: GatewayEvent[] = [];
    gw.events.subscribe((e) => {
      if (e.type === 'index.changed') events.push(e as GatewayEvent);
    });
    const enabled = (await gw.call('index.project.enable', { projectId: f.on })) as any;
    expect(enabled).toMatchObject({ projectId: f.on, enabled: true, endpoint: server.url, remote: true, includesNewMessages: true });
    expect(enabled.notice).toContain(server.url);
    expect(enabled.notice).toMatch(/new ones/);
    const run = (await gw.call('index.run', { projectId: f.on, wait: true })) as any;
    expect(run).toMatchObject({ started: true, completed: true, reason: 'done' });
    const after = (await gw.call('index.status', { projectId: f.on })) as any;
    expect(after.semantic).toMatchObject({ status: 'ready', coverage: { indexed: 4, total: 4 } });
    expect(after.semantic.projects).toEqual([expect.objectContaining({ projectId: f.on, status: 'ready', eligible: 4, ready: 4, pending: 0, failed: 0, consent: expect.objectContaining({ enabled: true, endpoint: server.url }) })]);
    expect(events.some((e) => e.projectIds?.includes(f.on))).toBe(true);
    expect([...server.embedded.keys()].some((t) => t.includes('SECRET'))).toBe(false);
    expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify([before, enabled, run, after])).not.toContain(KEY);
  });

  test('the worker started with the gateway indexes new messages by itself', async () => {
    const gw = await gateway();
    const f = await seed(gw);
    await gw.call('index.project.enable', { projectId: f.on });
    await gw.call('session.append', { sessionId: f.s, role: 'assistant', content: 'answer written while serving' });
    const deadline = Date.now() + 10_000;
    let status: any;
    do {
      await new Promise((r) => setTimeout(r, 100));
      status = ((await gw.call('index.status', { projectId: f.on })) as any).semantic.projects[0];
    } while (status.status !== 'ready' && Date.now() < deadline);
    expect(status).toMatchObject({ status: 'ready', ready: 5 });
    expect(server.embedded.get('answer written while serving')).toBeGreaterThanOrEqual(1);
  });

  test('pause, rebuild (derived rows only), disable', async () => {
    const gw = await gateway({}, { pollMs: 60_000 });
    const f = await seed(gw);
    await gw.call('index.project.enable', { projectId: f.on });
    await gw.call('index.run', { projectId: f.on, wait: true });
    expect(await gw.call('index.pause', {})).toEqual({ state: 'paused' });
    const rebuilt = (await gw.call('index.rebuild', { projectId: f.on })) as any;
    expect(rebuilt).toEqual({ projectId: f.on, chunksDeleted: 4 });
    expect(((await gw.call('index.status', { projectId: f.on })) as any).semantic.projects[0]).toMatchObject({ status: 'partial', eligible: 'unknown', ready: 0 });
    expect(((await gw.call('session.messages', { sessionId: f.s })) as { messages: unknown[] }).messages).toHaveLength(4);
    await gw.call('index.run', { projectId: f.on, wait: true });
    expect(((await gw.call('index.status', { projectId: f.on })) as any).semantic.projects[0]).toMatchObject({ status: 'ready', ready: 4 });
    expect(await gw.call('index.project.disable', { projectId: f.on })).toEqual({ projectId: f.on, enabled: false });
    expect(((await gw.call('index.status', { projectId: f.on })) as any).semantic.projects[0]).toMatchObject({ status: 'disabled', reason: 'project_not_enabled', ready: 4 });
  });

  test('provider down: status unavailable with the error, keyword search still answers', async () => {
    const gw = await gateway({}, { searchTool: (db) => createSessionSearchTool({ db }), pollMs: 60_000 });
    const f = await seed(gw);
    await gw.call('index.project.enable', { projectId: f.on });
    server.setDown(true);
    try {
      const run = (await gw.call('index.run', { projectId: f.on, wait: true })) as any;
      expect(run).toMatchObject({ completed: false, reason: 'unavailable' });
      const status = ((await gw.call('index.status', {})) as any).semantic;
      expect(status).toMatchObject({ status: 'unavailable', reason: 'provider_unavailable', worker: { providerAvailable: false, lastError: { code: 'embedding_unavailable' } } });
      expect(JSON.stringify(status)).not.toContain(KEY);
      // asked from another conversation of the project (the caller's own live messages are excluded)
      const caller = (await gw.call('session.create', { projectId: f.on, title: 'caller' })) as { id: string };
      const search = (await gw.call('search.session_search', { sessionId: caller.id, query: 'deploy pipeline', search_mode: 'keyword' })) as any;
      expect(search.results.length).toBeGreaterThan(0);
    } finally {
      server.setDown(false);
    }
  });

  test.each([
    ['index.project.enable', (f: { on: string }) => ({ projectId: f.on })],
    ['index.run', () => ({})],
    ['index.pause', () => ({})],
    ['index.rebuild', () => ({})],
  ])('%s without semantic configuration → semantic_disabled (-32033)', async (method, params) => {
    const gw = await startTestGateway();
    const f = await seed(gw);
    expect(await rpcError(gw.call(method, params(f)))).toMatchObject({ code: -32033, data: { code: 'semantic_disabled' } });
    expect(((await gw.call('index.status', {})) as any).semantic).toMatchObject({ status: 'disabled', reason: 'not_configured', configured: false });
  });

  test('unknown project → project_not_found; invalid semantic config fails the start', async () => {
    const gw = await gateway();
    expect(await rpcError(gw.call('index.project.enable', { projectId: 'p_nope' }))).toMatchObject({ data: { code: 'project_not_found' } });
    expect(await rpcError(gw.call('index.status', { projectId: 'p_nope' }))).toMatchObject({ data: { code: 'project_not_found' } });
    await expect(startTestGateway({ semantic: semanticPlugin({ config: { enabled: true, provider: 'openai-compatible', model: 'm' } }) })).rejects.toMatchObject({ code: 'invalid_config' });
  });

  test('the built-in model: enabling says nothing leaves the machine', async () => {
    const gw = await startTestGateway({ semantic: semanticPlugin({ config: { enabled: true, provider: 'use-lite' } }) });
    const p = (await gw.call('projects.create', { name: 'Local' })) as { id: string };
    const enabled = (await gw.call('index.project.enable', { projectId: p.id })) as any;
    expect(enabled).toMatchObject({ endpoint: 'local:use-lite', remote: false });
    expect(enabled.notice).toMatch(/nothing leaves the machine/);
    expect(enabled.notice).toMatch(/English only/);
  });
});

describe('recall index (CLI)', () => {
  test('enable --project SLUG, run, status', async () => {
    assertCliBuilt();
    const home = tempDir();
    writeFileSync(join(home, 'config.json'), JSON.stringify({ semantic: semanticConfig() }));
    const gw = await startTestGateway({ home });
    await seed(gw);
    await gw.close();
    const enable = await runCli(['index', 'enable', '--project', 'indexed', '--home', home]);
    expect(enable.code, enable.stderr).toBe(0);
    expect(enable.stdout).toContain(server.url);
    const run = await runCli(['index', 'run', '--project', 'indexed', '--home', home, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(json(run)).toMatchObject({ completed: true, ready: 4, pending: 0, failed: 0 });
    const status = json<any>(await runCli(['index', 'status', '--home', home, '--json']));
    expect(status.semantic.projects.find((p: any) => p.slug === 'indexed')).toMatchObject({ status: 'ready', ready: 4 });
    const text = await runCli(['index', 'status', '--home', home]);
    expect(text.stdout).toMatch(/indexed\s+ready\s+4/);
    const missing = await runCli(['index', 'enable', '--home', home]);
    expect(missing.code).toBe(2);
  });

  test('recall index: a reranker added after the consent is named as not used until enable runs again', async () => {
    assertCliBuilt();
    const home = tempDir();
    const withConfig = (over: Record<string, unknown>) => writeFileSync(join(home, 'config.json'), JSON.stringify({ semantic: semanticConfig(over) }));
    withConfig({});
    const gw = await startTestGateway({ home });
    await seed(gw);
    await gw.close();
    expect((await runCli(['index', 'enable', '--project', 'indexed', '--home', home])).code).toBe(0);
    const rerank = { endpoint: 'http://127.0.0.1:9/rerank', api: 'tei' };
    withConfig({ rerank });
    const consentOf = async () => json<any>(await runCli(['index', 'status', '--home', home, '--json'])).semantic.projects.find((p: any) => p.slug === 'indexed').consent;
    expect(await consentOf()).toMatchObject({ enabled: true, rerankEndpoint: null });
    const before = await runCli(['index', 'status', '--home', home]);
    expect(before.stdout).toContain(`Reranker: ${rerank.endpoint}`);
    expect(before.stdout).toMatch(/Not used for indexed: switched on without this reranker/);
    const again = await runCli(['index', 'enable', '--project', 'indexed', '--home', home]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`reranker at ${rerank.endpoint}`);
    expect(await consentOf()).toMatchObject({ enabled: true, rerankEndpoint: rerank.endpoint });
    expect((await runCli(['index', 'status', '--home', home])).stdout).not.toMatch(/Not used for/);
  });
});
void tempHome;
