/**
 * The empty first run, "Load demo data", the search panel's mode switch (used_mode and
 * semantic_status shown as the tool returned them, its notes in words for people; Semantic disabled
 * with its reason while no index can answer) and the index panel with semantic search not
 * configured ("disabled" + how to configure). Also writes the README screenshots of the sidebar,
 * search results and index panel at 1280×800.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { DESKTOP, launchBrowser, openPage, SCREENSHOT_TIME, type AppPage } from './support/browser.js';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer, type RecallServer } from './support/gateway.js';
import { DEMO_JSONL } from './support/paths.js';
import type { Project, SearchResult } from './support/rpc.js';
import { saveScreenshot } from './support/screenshots.js';
import { dismissNotices, group, indexPanel, openApp, openFromSidebar, openMoveMenu, searchInPanel, searchPanel, sidebar, type Mode } from './support/ui.js';
import { eventually } from './support/wait.js';

interface DemoLine {
  kind: string;
  id?: string;
  name?: string;
  session_id?: string;
}

function statusText(s: unknown): string {
  if (typeof s === 'string') return s;
  if (s && typeof s === 'object' && 'status' in s) return String((s as { status: unknown }).status);
  return 'unknown';
}

describe('first run, demo data, search modes and index panel', () => {
  const cleanup = new Cleanup();
  let server: RecallServer;
  let browser: Browser;
  let app: AppPage;
  let demo: DemoLine[];

  beforeAll(async () => {
    server = await startRecallServer(cleanup);
    browser = await launchBrowser(cleanup);
    app = await openPage(browser, cleanup, DESKTOP, { fixedTime: SCREENSHOT_TIME });
    demo = (await readFile(DEMO_JSONL, 'utf8'))
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as DemoLine);
  });

  afterAll(async () => {
    await cleanup.run();
  });

  it('the empty first run explains what to do and "Load demo data" imports the shipped history', async () => {
    const { page } = app;
    await openApp(page, server.url);
    const welcome = page.getByRole('region', { name: 'Welcome' });
    await welcome.getByRole('heading', { name: 'Welcome to Recall' }).waitFor();
    await welcome.getByText('Create a project').waitFor();
    await sidebar(page).getByText('No projects yet.').waitFor();

    await welcome.getByRole('button', { name: 'Load demo data' }).click();
    const demoProjects = demo.filter((l) => l.kind === 'project');
    const demoSessions = demo.filter((l) => l.kind === 'session');
    const demoMessages = demo.filter((l) => l.kind === 'message');
    const status = welcome.getByRole('status');
    await status.getByText('Imported').waitFor({ timeout: 15_000 });
    assert.include(
      await status.textContent(),
      `Imported ${demoProjects.length} projects and ${demoMessages.length} messages`,
    );
    // Sessions are not announced as "conversations": the demo's continuation makes them one more
    // than the conversations the sidebar lists.
    assert.notInclude(await status.textContent(), `${demoSessions.length} conversations`);

    // Stored exactly as shipped, and shown by stored project id.
    const projects = await server.rpc.projects();
    assert.sameMembers(
      projects.map((p) => p.id),
      demoProjects.map((p) => p.id!),
    );
    for (const p of demoProjects) {
      await sidebar(page).getByRole('region', { name: `Project ${p.name}`, exact: true }).waitFor();
    }
    const noProject = demoSessions.find((s) => (s as { project_id?: string | null }).project_id === null);
    if (noProject) await group(page, null).locator(`li.conv[data-session-id="${noProject.id}"]`).waitFor();
    await page.getByRole('heading', { name: 'Pick a conversation' }).waitFor();

    // Loading again changes nothing (the import is idempotent) and says so.
    await welcome.getByRole('button', { name: 'Load demo data' }).click();
    await status.getByText('already imported').waitFor({ timeout: 15_000 });
    assert.equal((await server.rpc.sessions()).length, demoSessions.length);

    await openFromSidebar(page, 'demo-recipes-search');
    await dismissNotices(page);
    // The sidebar with a conversation's move menu open (right click): projects by stored id, "No project",
    // folder suggestions, and "Change working directory…" as a separate action that keeps the project.
    const menu = await openMoveMenu(page, { contextMenuOf: 'demo-grepline-perf' });
    await menu.getByRole('menuitem', { name: /Change working directory/ }).waitFor();
    await saveScreenshot(page, 'sidebar.png');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden' });
    app.assertNoProblems();
  });

  it('the mode switch searches in hybrid / keyword / semantic and shows used_mode, semantic_status and notes', async () => {
    const { page } = app;
    const asSession = 'demo-recipes-images';
    await openFromSidebar(page, asSession);
    const projects = await server.rpc.projects();
    const recipes = projects.find((p: Project) => p.id === 'p_demo_recipes')!;
    assert.equal((await page.getByTestId('search-scope').textContent())?.trim(), recipes.name);

    const shown: Record<string, SearchResult> = {};
    // No semantic index: the Semantic option is disabled and says why (issue 20), never offered to fail.
    const semanticRadio = searchPanel(page).getByRole('radio', { name: 'Semantic', exact: true });
    assert.isTrue(await semanticRadio.isDisabled(), 'Semantic is disabled without an index');
    assert.include(await searchPanel(page).getByTestId('semantic-off').textContent(), 'no embedding model is set up');
    shown.semantic = await server.rpc.search(asSession, '番茄', 'semantic', 20);
    for (const mode of ['keyword', 'hybrid'] as Mode[]) {
      const query = '番茄';
      const ui = await searchInPanel(page, query, mode);
      assert.equal(ui.params.search_mode, mode, 'the switch sets search_mode');
      const direct = await server.rpc.search(asSession, query, mode, 20);
      shown[mode] = direct;
      const meta = searchPanel(page).getByTestId('search-meta');
      assert.equal((await meta.getByTestId('used-mode').textContent())?.trim(), String(direct.used_mode), `${mode}: used_mode shown`);
      assert.equal((await meta.getByTestId('semantic-status').textContent())?.trim(), statusText(direct.semantic_status), `${mode}: semantic_status shown`);
      const notes = (await meta.getByRole('list', { name: 'Notes' }).count()) ? await meta.getByRole('list', { name: 'Notes' }).locator('li').allTextContents() : [];
      assert.isAtMost(notes.length, (direct.notes ?? []).length, `${mode}: no note made up`);
      for (const n of notes) assert.notMatch(n, /search_mode|your context|around_message_id|raise limit|\(\w+_\w+\)/, `${mode}: a note written for the model: ${n}`);
      if (direct.error) await meta.getByRole('alert').waitFor();
      if (direct.requested_mode && direct.requested_mode !== direct.used_mode) {
        assert.include(await meta.textContent(), `(asked ${direct.requested_mode})`);
      }
      // Same hits as the tool, all in this conversation's project.
      assert.deepEqual(
        ui.hits.map((h) => `${h.sessionId}#${h.messageId}`).sort(),
        (direct.results ?? []).map((h) => `${h.session_id}#${h.message_id}`).sort(),
      );
      for (const h of ui.hits) assert.match(h.sessionId, /^demo-recipes-/, `${mode}: a hit outside the project: ${h.sessionId}`);
      if (mode === 'hybrid') await saveScreenshot(page, 'search-results.png');
    }

    // Stage A (no embedding provider): keyword works fully; hybrid falls back to keyword and says why;
    // explicit semantic reports that it is unavailable instead of pretending.
    assert.equal(shown.keyword!.used_mode, 'keyword');
    assert.ok((shown.keyword!.results ?? []).some((h) => h.session_id === 'demo-recipes-search'), 'keyword finds 番茄 in the CJK history');
    assert.equal(statusText(shown.keyword!.semantic_status), 'disabled');
    assert.equal(shown.hybrid!.used_mode, 'keyword', 'hybrid degrades to keyword');
    assert.isAbove((shown.hybrid!.notes ?? []).length, 0, 'hybrid states the fallback reason in notes');
    assert.ok(shown.semantic!.error || shown.semantic!.used_mode !== 'semantic', 'explicit semantic does not pretend');
    app.assertNoProblems();
  });

  it('the index panel shows semantic "disabled" with how to configure it, and the keyword index size', async () => {
    const { page } = app;
    await page.getByRole('tab', { name: 'Index' }).click();
    const panel = indexPanel(page);
    await panel.getByRole('heading', { name: 'Index', exact: true }).waitFor();
    const status = await server.rpc.indexStatus();
    assert.equal(status.semantic.status, 'disabled');
    await eventually('the semantic status pill', async () => {
      assert.equal((await panel.getByTestId('index-semantic-status').textContent())?.trim(), 'disabled');
    });
    await panel.getByText('Disabled — no embedding provider is configured').waitFor();
    await panel.getByRole('heading', { name: 'How to turn it on' }).waitFor();
    if (status.semantic.howToConfigure) {
      // The gateway's text is the one explanation, with its real config path; `commands` show as code.
      assert.equal((await panel.locator('.howto-text').textContent())?.trim(), status.semantic.howToConfigure.replaceAll('`', '').trim());
      assert.include(await panel.locator('.howto-text').textContent(), `${server.home}/config.json`);
      assert.notInclude(await panel.locator('.howto').textContent(), 'as the gateway describes them', 'one explanation, not two');
    }
    await eventually('the keyword counts', async () => {
      assert.include(
        await panel.textContent(),
        `On — ${status.keyword.messages.toLocaleString('en-US')} messages in ${status.keyword.conversations.toLocaleString('en-US')} conversations`,
      );
      // The same count as the sidebar: its groups' conversations (a continuation is part of its conversation).
      const listed = await sidebar(page).locator('li.conv').count();
      assert.equal(status.keyword.conversations, listed, 'the Index panel counts the conversations the sidebar lists');
    });
    assert.equal(await panel.locator('progress').count(), 0, 'no progress bar while disabled');
    await saveScreenshot(page, 'index-panel.png');
    app.assertNoProblems();
  });
});
