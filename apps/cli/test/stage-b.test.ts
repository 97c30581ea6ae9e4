/**
 * Stage B is optional: with config.json asking for semantic recall but `@recall/semantic` missing
 * (simulated by pointing the loader at a module that does not exist), the gateway still starts and
 * serves keyword search, `index.status` says unavailable with the reason — never
 * `providerAvailable: true` — the index controls refuse with `semantic_not_installed`, and a hybrid
 * `session_search` answers with keyword results and semantic unavailable. Installed, the same
 * settings give the real index. Without a `semantic` section nothing is loaded at all.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { openProfileDatabase } from '@recall/gateway-rpc';
import { appendMessage, createProject, createSession } from '@recall/store';
import { searchToolFor, semanticPluginFor, setStageBModuleForTests, SEMANTIC_NOT_INSTALLED } from '../src/stage-b.js';
import { cleanup, rpc, rpcError, startTestGateway, tempHome } from './helpers.js';

const MISSING = '/nonexistent/recall-semantic-wiring.js';

afterEach(async () => {
  setStageBModuleForTests(undefined);
  await cleanup();
});

describe('without a semantic section', () => {
  test('nothing is loaded: no plugin, and the tool is keyword-only ("disabled")', async () => {
    setStageBModuleForTests(MISSING); // would fail if it were loaded
    expect(await semanticPluginFor({ config: null })).toBeNull();
    const db = openProfileDatabase(tempHome(), 'default');
    try {
      const { tool } = await searchToolFor(db, { config: null });
      const s = createSession(db, {});
      expect((await tool.execute({ query: 'x' }, { profile: 'default', currentSessionId: s.id })).semantic_status).toBe('disabled');
    } finally {
      db.close();
    }
  });
});

describe('configured while @recall/semantic is not installed', () => {
  test.each([
    { enabled: true, status: 'unavailable', reason: 'provider_unavailable', providerAvailable: false },
    { enabled: false, status: 'disabled', reason: 'turned_off', providerAvailable: null },
  ])('enabled: $enabled → index.status $status ($reason)', async ({ enabled, status, reason, providerAvailable }) => {
    setStageBModuleForTests(MISSING);
    const plugin = await semanticPluginFor({ config: { enabled, provider: 'use-lite' } });
    const gw = await startTestGateway({ semantic: plugin });
    const project = await rpc(gw, 'projects.create', { name: 'P' });
    const answer = await rpc(gw, 'index.status', {});
    expect(answer.semantic).toMatchObject({ status, reason, configured: true, enabled, provider: null });
    expect(answer.semantic.worker?.providerAvailable ?? null).toBe(providerAvailable);
    if (enabled) expect(answer.semantic.worker.lastError).toMatchObject({ code: 'semantic_not_installed', message: SEMANTIC_NOT_INSTALLED });
    expect(answer.semantic.projects).toEqual([expect.objectContaining({ projectId: project.id, status, reason })]);
    for (const method of ['index.project.enable', 'index.project.disable', 'index.run', 'index.rebuild']) {
      const error = await rpcError(gw, method, method === 'index.run' || method === 'index.rebuild' ? {} : { projectId: project.id });
      expect(['semantic_not_installed', 'semantic_disabled'], `${method}: ${JSON.stringify(error)}`).toContain(error.data?.code);
    }
  });

  test('a hybrid session_search answers with keyword results and says semantic is unavailable', async () => {
    setStageBModuleForTests(MISSING);
    const db = openProfileDatabase(tempHome(), 'default');
    try {
      const p = createProject(db, { name: 'P' });
      const old = createSession(db, { projectId: p.id });
      appendMessage(db, old.id, { role: 'user', content: 'the quokka lives on Rottnest' });
      const now = createSession(db, { projectId: p.id });
      const { tool } = await searchToolFor(db, { config: { enabled: true, provider: 'use-lite' } });
      const found = await tool.execute({ query: 'quokka' }, { profile: 'default', currentSessionId: now.id });
      expect(found.semantic_status).toBe('unavailable');
      expect(found.results.map((r) => r.session_id)).toEqual([old.id]);
      expect(JSON.stringify(found.notes)).toContain('not installed');
    } finally {
      db.close();
    }
  });
});

describe('configured and installed', () => {
  test('the real index: configured, no project switched on yet, provider available', async () => {
    const plugin = await semanticPluginFor({ config: { enabled: true, provider: 'use-lite' } });
    const gw = await startTestGateway({ semantic: plugin });
    const answer = await rpc(gw, 'index.status', {});
    expect(answer.semantic).toMatchObject({ status: 'disabled', reason: 'no_project_enabled', configured: true, enabled: true });
    expect(answer.semantic.provider).toMatchObject({ provider: 'use-lite' });
    expect(answer.semantic.worker.providerAvailable).toBe(true);
  });
});
