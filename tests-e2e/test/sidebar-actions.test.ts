/**
 * The other sidebar actions of issue 5, through the UI: a discovered folder becomes an explicit
 * project before a conversation starts there or is dropped on it (a path is never a project id, and
 * old conversations in that folder are not backfilled); "Remove from project" sets NULL; renaming a
 * project changes no membership; changes made by another client show up through gateway events.
 */
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { DESKTOP, launchBrowser, openPage, type AppPage } from './support/browser.js';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer, type RecallServer } from './support/gateway.js';
import type { Project, Session } from './support/rpc.js';
import { convRow, dismissNotices, group, openApp, openMoveMenu, saveDraft, shownProject, sidebar, waitForNotice } from './support/ui.js';
import { eventually } from './support/wait.js';

describe('sidebar: discovered folders, remove from project, rename, live refresh', () => {
  const cleanup = new Cleanup();
  let server: RecallServer;
  let browser: Browser;
  let app: AppPage;
  let orphan: Session;
  let widget: Session;
  let rhea: Project;
  let inRhea: Session;

  beforeAll(async () => {
    server = await startRecallServer(cleanup);
    browser = await launchBrowser(cleanup);
    app = await openPage(browser, cleanup, DESKTOP);
    const create = (params: Record<string, unknown>) => server.rpc.call<Session>('session.create', params);
    orphan = await create({ title: 'Old notes in orphan-tool', cwd: '/srv/orphan-tool', messages: [{ role: 'user', content: 'orphan-tool notes' }] });
    widget = await create({ title: 'Widget sizing', cwd: '/srv/widget', messages: [{ role: 'user', content: 'widget sizes' }] });
    rhea = await server.rpc.call<Project>('projects.create', { name: 'Rhea' });
    inRhea = await create({ projectId: rhea.id, title: 'Rhea launch plan', cwd: '/srv/rhea', messages: [{ role: 'user', content: 'launch plan' }] });
    await openApp(app.page, server.url);
  });

  afterAll(async () => {
    await cleanup.run();
  });

  const suggested = (path: string) => sidebar(app.page).locator(`section[aria-label="Suggested folders"] li[data-folder="${path}"]`);
  const projectByFolder = async (path: string) => (await server.rpc.projects()).find((p) => p.folders.some((f) => f.path === path));

  it('"Start here" on a discovered folder makes it a project first, and the draft is saved in it', async () => {
    const { page } = app;
    await suggested('/srv/orphan-tool').waitFor();
    await page.getByRole('button', { name: 'Start a conversation in /srv/orphan-tool' }).click();
    await waitForNotice(page, 'success', 'is now the project');
    const project = await eventually('the folder to become a project', async () => {
      const p = await projectByFolder('/srv/orphan-tool');
      assert.ok(p, 'no project owns /srv/orphan-tool');
      return p;
    });
    assert.match(project.id, /^p_/, 'an explicit project id, not a path');
    await eventually('the draft to show the new project', async () => {
      assert.equal((await page.getByTestId('draft-project').textContent())?.trim(), project.name);
    });
    const id = await saveDraft(page, 'First message in the new orphan-tool project');
    const s = await server.rpc.session(id);
    assert.equal(s.projectId, project.id);
    assert.equal(s.cwd, '/srv/orphan-tool');
    assert.equal(await shownProject(page), project.name);
    // No automatic backfill: the old conversation in that folder keeps having no project.
    assert.equal((await server.rpc.session(orphan.id)).projectId, null);
    await eventually('the old conversation to stay under "No project"', async () => {
      assert.equal(await group(page, null).locator(convRow(page, orphan.id)).count(), 1);
    });
    await dismissNotices(page);
  });

  it('dropping a conversation on a discovered folder makes the folder a project and moves it there', async () => {
    const { page } = app;
    await suggested('/srv/widget').waitFor();
    await convRow(page, widget.id).dragTo(suggested('/srv/widget'));
    await waitForNotice(page, 'success', 'Moved to');
    const project = await eventually('the folder to become a project', async () => {
      const p = await projectByFolder('/srv/widget');
      assert.ok(p);
      return p;
    });
    const s = await server.rpc.session(widget.id);
    assert.equal(s.projectId, project.id);
    assert.equal(s.cwd, '/srv/widget', 'cwd unchanged by the move');
    await eventually('the sidebar to list it under the new project', async () => {
      assert.equal(await group(page, project.id).locator(convRow(page, widget.id)).count(), 1);
      assert.equal(await suggested('/srv/widget').count(), 0, 'no longer suggested');
    });
    await dismissNotices(page);
  });

  it('renaming a project changes no membership', async () => {
    const { page } = app;
    await sidebar(page).getByRole('button', { name: 'Actions for project Rhea' }).click();
    await page.getByRole('menuitem', { name: /Rename/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Rename project' });
    await dialog.getByLabel('Name').fill('Rhea (renamed)');
    await dialog.getByRole('button', { name: 'Rename', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    await sidebar(page).getByRole('region', { name: 'Project Rhea (renamed)', exact: true }).waitFor();
    assert.equal(await group(page, rhea.id).locator(convRow(page, inRhea.id)).count(), 1);
    assert.equal((await server.rpc.session(inRhea.id)).projectId, rhea.id);
    await dismissNotices(page);
  });

  it('"Remove from project" sets no project, keeps the directory, and both groups refresh', async () => {
    const { page } = app;
    const menu = await openMoveMenu(page, { contextMenuOf: inRhea.id });
    await menu.getByRole('menuitem', { name: /Remove from project/ }).click();
    await waitForNotice(page, 'success', 'Removed from project');
    await eventually('the conversation to move to "No project"', async () => {
      assert.equal(await group(page, null).locator(convRow(page, inRhea.id)).count(), 1);
      assert.equal(await group(page, rhea.id).locator(convRow(page, inRhea.id)).count(), 0);
    });
    const s = await server.rpc.session(inRhea.id);
    assert.equal(s.projectId, null);
    assert.equal(s.cwd, '/srv/rhea');
    await dismissNotices(page);
  });

  it('changes made by another client appear without a reload (gateway events)', async () => {
    const { page } = app;
    const other = await server.rpc.call<Project>('projects.create', { name: 'Made elsewhere' });
    await sidebar(page).getByRole('region', { name: 'Project Made elsewhere', exact: true }).waitFor();
    await server.rpc.call('session.project.set', { sessionId: orphan.id, projectId: other.id });
    await eventually('the moved conversation to be listed under its new project', async () => {
      assert.equal(await group(page, other.id).locator(convRow(page, orphan.id)).count(), 1);
      assert.equal(await group(page, null).locator(convRow(page, orphan.id)).count(), 0);
    });
    app.assertNoProblems();
  });
});
