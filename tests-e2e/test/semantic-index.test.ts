/**
 * Issue 10's browser proof, through the UI against a real `recall serve` whose semantic index uses
 * a loopback OpenAI-compatible embeddings server (deterministic TEST vectors — not a model, never a
 * quality figure): the index panel shows project P off; switching it on opens a consent dialog
 * naming the endpoint and saying new messages go there too; coverage climbs to 100 %; a hybrid
 * search from P shows semantic/both badges and a truthful status line; after the conversation is
 * moved to Q the same query from P finds nothing of it. Q, never switched on, sends nothing.
 */
import { startScriptedEmbeddings, testVector, type ScriptedEmbeddings } from '@recall/config/scripted-embeddings';
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { DESKTOP, launchBrowser, openPage, type AppPage } from './support/browser.js';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer, type RecallServer } from './support/gateway.js';
import type { Project, Session } from './support/rpc.js';
import { indexPanel, openApp, renderedHits, searchInPanel, searchPanel, waitForOpenSession } from './support/ui.js';
import { saveScreenshot } from './support/screenshots.js';
import { eventually } from './support/wait.js';

/**
 * TEST-ONLY vectors: the hashed bag of words plus one shared "furniture" direction, so a message
 * about oak shelves is near a query about furniture without sharing a word with it (a semantic-only
 * match) — a stand-in for meaning, never a model and never a quality figure.
 */
const FURNITURE = /\b(cabinet|walnut|furniture|shelves|oak|doors)\b/i;
const furnitureVector = (text: string, dims: number): number[] => {
  const v = testVector(text, dims);
  if (FURNITURE.test(text)) v[0] = (v[0] ?? 0) + 5;
  return v;
};

describe('semantic index through the UI (loopback embeddings)', () => {
  const cleanup = new Cleanup();
  let embeddings: ScriptedEmbeddings;
  let server: RecallServer;
  let browser: Browser;
  let app: AppPage;
  let p: Project;
  let q: Project;
  let history: Session;
  let shelves: Session;
  let current: Session;

  beforeAll(async () => {
    embeddings = await startScriptedEmbeddings({ dims: 64, model: 'test-embed', vectorFor: furnitureVector });
    cleanup.add('close embeddings server', () => embeddings.close());
    server = await startRecallServer(cleanup, {
      config: { semantic: { enabled: true, provider: 'openai-compatible', endpoint: embeddings.url, model: 'test-embed', dims: 64 } },
    });
    p = await server.rpc.call<Project>('projects.create', { name: 'Workshop' });
    q = await server.rpc.call<Project>('projects.create', { name: 'Garden' });
    history = await server.rpc.call<Session>('session.create', {
      projectId: p.id,
      title: 'Cabinet build',
      messages: [
        { role: 'user', content: 'Which hinges for the walnut cabinet doors?' },
        { role: 'assistant', content: 'Soft close hinges, 35 mm cup, suit walnut doors well.' },
        { role: 'user', content: 'The cabinet needs varnish on the oak shelves too.' },
      ],
    });
    shelves = await server.rpc.call<Session>('session.create', {
      projectId: p.id,
      title: 'Shelf finish',
      messages: [{ role: 'user', content: 'Oak shelves get two coats of oil.' }],
    });
    current = await server.rpc.call<Session>('session.create', { projectId: p.id, title: 'Today', messages: [{ role: 'user', content: 'Planning the next piece.' }] });
    browser = await launchBrowser(cleanup);
    app = await openPage(browser, cleanup, DESKTOP);
    await openApp(app.page, server.url, `#/s/${current.id}`);
    await waitForOpenSession(app.page, current.id);
  });

  afterAll(async () => {
    await cleanup.run();
  });

  const row = (projectId: string) => indexPanel(app.page).locator(`li.index-project[data-project-id="${projectId}"]`);

  it('switching P on asks for consent naming the endpoint; coverage reaches 100 %', async () => {
    const { page } = app;
    await page.getByRole('tab', { name: 'Index' }).click();
    await row(p.id).waitFor({ state: 'visible' });
    assert.include(await row(p.id).textContent(), 'Off — nothing of this project is sent.');
    assert.equal(embeddings.requests.length, 0, 'nothing is sent before consent');
    await row(p.id).getByRole('switch', { name: 'Semantic search for Workshop' }).click();
    const dialog = page.getByRole('dialog', { name: /Switch on semantic search for “Workshop”/ });
    await dialog.waitFor({ state: 'visible' });
    assert.equal(await dialog.getByTestId('consent-endpoint').textContent(), embeddings.url);
    assert.include(await dialog.getByTestId('consent-text').textContent(), 'every new message of this project');
    await dialog.getByRole('button', { name: /^Switch on and send to 127\.0\.0\.1:/ }).click();
    await dialog.waitFor({ state: 'detached' });
    await saveScreenshot(page, 'index-filling.png');
    await eventually(
      'coverage of P to reach 100 %',
      async () => {
        assert.equal((await row(p.id).getByTestId('index-project-percent').textContent())?.trim(), '100%');
        assert.match((await row(p.id).getByTestId('index-project-state').textContent()) ?? '', /Ready — \d+ of \d+ chunks/);
      },
      { timeoutMs: 30_000 },
    );
    assert.equal(await row(p.id).getByRole('switch').getAttribute('aria-checked'), 'true');
    assert.include(await row(q.id).textContent(), 'Off — nothing of this project is sent.');
    const sent = embeddings.requests.flatMap((r) => r.inputs);
    assert.isAbove(sent.length, 0);
    app.assertNoProblems();
  });

  it('hybrid search from P shows semantic/both badges and the semantic status line; after a move to Q, nothing of it', async () => {
    const { page } = app;
    await page.getByRole('tab', { name: 'Search' }).click();
    const s = await searchInPanel(page, 'furniture walnut', 'hybrid');
    assert.equal(s.result.used_mode, 'hybrid');
    const sourceOf = new Map((s.result.results ?? []).map((h) => [h.session_id, h.match_source]));
    // The walnut conversation matches by its words and by meaning; the oak shelves only by meaning.
    assert.equal(sourceOf.get(history.id), 'both');
    assert.equal(sourceOf.get(shelves.id), 'semantic');
    const sources = new Set(sourceOf.values());
    const badges = await searchPanel(page).getByTestId('match-source').allTextContents();
    for (const src of sources) if (src) assert.include(badges, src);
    assert.equal((await searchPanel(page).getByTestId('semantic-status').textContent())?.trim(), 'ready');
    assert.match((await searchPanel(page).getByTestId('semantic-coverage').textContent()) ?? '', /(\d[\d,]*) of \1 indexed/);
    assert.isTrue((await renderedHits(page)).some((h) => h.sessionId === history.id));
    await saveScreenshot(page, 'semantic-search.png');

    await server.rpc.call('session.project.set', { sessionId: history.id, projectId: q.id });
    const after = await searchInPanel(page, 'furniture walnut', 'hybrid');
    assert.isFalse((after.result.results ?? []).some((h) => h.session_id === history.id), 'the moved conversation is still found from P');
    assert.isTrue((after.result.results ?? []).some((h) => h.session_id === shelves.id), 'what stayed in P is still found');
    assert.isFalse((await renderedHits(page)).some((h) => h.sessionId === history.id));
    app.assertNoProblems();
  });
});
