/**
 * A move that the gateway refuses is shown as an error and leaves everything as it was — never a
 * false success. The target changes under the UI's feet: another client archives (or deletes) the
 * target project *while the move request is on its way*, so the real gateway answers
 * `project_archived` (or `project_not_found`). The request is held in flight meanwhile, which also
 * shows the "Moving…" state. Then a move that does succeed (drag and drop) refreshes both groups.
 */
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import type { Browser, Route } from 'playwright-core';
import { DESKTOP, launchBrowser, openPage, type AppPage } from './support/browser.js';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer, type RecallServer } from './support/gateway.js';
import type { Project, Session } from './support/rpc.js';
import { chooseMoveTarget, convRow, dismissNotices, group, openApp, openMoveMenu, shownProject, sidebar, waitForNotice, waitForOpenSession } from './support/ui.js';
import { eventually } from './support/wait.js';

describe('moving a conversation: failure keeps the old state', () => {
  const cleanup = new Cleanup();
  let server: RecallServer;
  let browser: Browser;
  let app: AppPage;
  let alpha: Project;
  let beta: Project;
  let gamma: Project;
  let conv: Session;

  beforeAll(async () => {
    server = await startRecallServer(cleanup);
    browser = await launchBrowser(cleanup);
    app = await openPage(browser, cleanup, DESKTOP);
    alpha = await server.rpc.call<Project>('projects.create', { name: 'Alpha' });
    beta = await server.rpc.call<Project>('projects.create', { name: 'Beta' });
    gamma = await server.rpc.call<Project>('projects.create', { name: 'Gamma' });
    conv = await server.rpc.call<Session>('session.create', {
      projectId: alpha.id,
      title: 'Release checklist',
      cwd: '/srv/alpha',
      messages: [{ role: 'user', content: 'Release checklist: tag, build, sign, publish.' }],
    });
  });

  afterAll(async () => {
    await cleanup.run();
  });

  /**
   * Holds the next `session.project.set` request, runs `meanwhile` (the concurrent change by another
   * client), lets the test look at the in-flight state, then lets the request through to the gateway.
   */
  async function interceptNextMove(meanwhile: () => Promise<void>): Promise<{ held: Promise<void>; release: () => void }> {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let markHeld!: () => void;
    const held = new Promise<void>((r) => (markHeld = r));
    let taken = false;
    const handler = async (route: Route) => {
      if (taken || !(route.request().postData() ?? '').includes('"session.project.set"')) return route.continue();
      taken = true;
      await meanwhile();
      markHeld();
      // Bounded: never hold the request longer than 10 s even if the test forgets to release it.
      await Promise.race([released, new Promise((r) => setTimeout(r, 10_000))]);
      await route.continue();
      await app.page.unroute('**/rpc', handler);
    };
    await app.page.route('**/rpc', handler);
    return { held, release };
  }

  async function expectStillInAlpha(): Promise<void> {
    const { page } = app;
    assert.equal((await server.rpc.session(conv.id)).projectId, alpha.id, 'the stored project is unchanged');
    await eventually('the sidebar to keep it in Alpha', async () => {
      assert.equal(await group(page, alpha.id).locator(convRow(page, conv.id)).count(), 1);
      assert.equal(await sidebar(page).locator(convRow(page, conv.id)).count(), 1, 'listed exactly once');
    });
    assert.equal(await shownProject(page), 'Alpha', 'the header still shows Alpha');
    const moveBtn = page.locator('.conv-header').getByRole('button', { name: 'Move…', exact: true });
    assert.isTrue(await moveBtn.isEnabled(), 'the Move… button is usable again');
    assert.equal(await page.locator('.notices .notice.success').filter({ hasText: 'Moved' }).count(), 0, 'no success notice');
  }

  it('target archived meanwhile: error shown, conversation stays in Alpha', async () => {
    const { page } = app;
    await openApp(page, server.url, `#/s/${encodeURIComponent(conv.id)}`);
    await waitForOpenSession(page, conv.id);
    assert.equal(await shownProject(page), 'Alpha');

    const { held, release } = await interceptNextMove(async () => {
      await server.rpc.call('projects.archive', { projectId: beta.id, archived: true });
    });
    const menu = await openMoveMenu(page, { header: true });
    await chooseMoveTarget(menu, 'Beta');

    await held;
    // In flight: the row and the header say "Moving…", nothing claims success yet.
    await convRow(page, conv.id).getByText('Moving…').waitFor();
    assert.equal(await page.locator('.conv-header').getByRole('button', { name: 'Moving…' }).count(), 1);
    assert.equal(await page.locator('.notices .notice.success').filter({ hasText: 'Moved' }).count(), 0);
    release();

    const text = await waitForNotice(page, 'error', 'Move failed');
    assert.include(text, 'project_archived', `the error names the reason: ${text}`);
    assert.include(text, 'Release checklist');
    await expectStillInAlpha();
    await dismissNotices(page);
    // The archived project is no longer offered as a target, and is listed as archived.
    await eventually('Beta to show as archived', async () => {
      assert.equal(await sidebar(page).getByRole('region', { name: 'Project Beta', exact: true }).count(), 0);
      await sidebar(page).getByRole('region', { name: 'Archived projects' }).waitFor({ timeout: 1_000 });
    });
    const again = await openMoveMenu(page, { header: true });
    const labels = await again.locator('.menu-label').allTextContents();
    assert.notInclude(labels, 'Beta');
    await page.keyboard.press('Escape');
    await again.waitFor({ state: 'hidden' });
  });

  it('target deleted meanwhile: error shown, conversation stays in Alpha', async () => {
    const { page } = app;
    const { held, release } = await interceptNextMove(async () => {
      await server.rpc.call('projects.delete', { projectId: gamma.id });
    });
    const menu = await openMoveMenu(page, { contextMenuOf: conv.id });
    await chooseMoveTarget(menu, 'Gamma');
    await held;
    release();
    const text = await waitForNotice(page, 'error', 'Move failed');
    assert.include(text, 'project_not_found', `the error names the reason: ${text}`);
    await expectStillInAlpha();
    await dismissNotices(page);
  });

  it('drag and drop onto another project moves it and refreshes both groups', async () => {
    const { page } = app;
    const delta = await server.rpc.call<Project>('projects.create', { name: 'Delta' });
    const target = group(page, delta.id);
    await target.waitFor();
    await convRow(page, conv.id).dragTo(target.locator('.group-head'));
    await waitForNotice(page, 'success', 'Moved to Delta');
    await eventually('the conversation to be listed under Delta only', async () => {
      assert.equal(await group(page, delta.id).locator(convRow(page, conv.id)).count(), 1);
      assert.equal(await group(page, alpha.id).locator(convRow(page, conv.id)).count(), 0);
    });
    const stored = await server.rpc.session(conv.id);
    assert.equal(stored.projectId, delta.id);
    assert.equal(stored.cwd, '/srv/alpha', 'a move never changes the directory');
    await eventually('the header to follow', async () => assert.equal(await shownProject(page), 'Delta'));
    app.assertNoProblems();
  });
});
