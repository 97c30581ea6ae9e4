/**
 * Rename, export and delete from the sidebar menus (issue 20.8, issue 23), in Chromium against a
 * real gateway: a conversation is renamed from its menu; "Export…" downloads a file (recall-jsonl
 * that holds the conversation, Markdown for people) through a Blob link; "Delete…" asks in a dialog
 * naming what goes, Cancel keeps everything and returns focus to the menu's opener, and Delete
 * removes the conversation for real; a project that still has conversations is refused with a
 * plain explanation until "Also delete its conversations" is ticked. Screenshots of the dialogs at
 * 1280×800 and 390×844 go to the screenshot folder.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { DESKTOP, PHONE, launchBrowser, openPage, type AppPage } from './support/browser.js';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer, type RecallServer } from './support/gateway.js';
import { RpcCallError, type Project, type Session } from './support/rpc.js';
import { saveScreenshot } from './support/screenshots.js';
import { convRow, dismissNotices, group, openApp, openMoveMenu, waitForNotice } from './support/ui.js';
import { eventually } from './support/wait.js';

/** The stable code a call failed with (or "ok"). */
async function codeOf(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
    return 'ok';
  } catch (error) {
    return error instanceof RpcCallError ? error.dataCode : String(error);
  }
}

describe('rename, export and delete from the menus', () => {
  const cleanup = new Cleanup();
  let server: RecallServer;
  let browser: Browser;
  let app: AppPage;
  let alpha: Project;
  let empty: Project;
  let plan: Session;
  let notes: Session;

  beforeAll(async () => {
    server = await startRecallServer(cleanup);
    browser = await launchBrowser(cleanup);
    app = await openPage(browser, cleanup, DESKTOP);
    alpha = await server.rpc.call<Project>('projects.create', { name: 'Alpha' });
    empty = await server.rpc.call<Project>('projects.create', { name: 'Empty one' });
    plan = await server.rpc.call<Session>('session.create', {
      projectId: alpha.id,
      title: 'Launch plan',
      messages: [
        { role: 'user', content: 'What is the launch date? 发布日期是哪天？' },
        { role: 'assistant', content: 'The launch is on Friday.' },
      ],
    });
    notes = await server.rpc.call<Session>('session.create', { projectId: alpha.id, title: 'Team notes', messages: [{ role: 'user', content: 'notes for the team' }] });
    await openApp(app.page, server.url);
    await convRow(app.page, plan.id).waitFor();
  });

  afterAll(async () => {
    await cleanup.run();
  });

  const projectMenu = async (page: Page, name: string) => {
    await page.getByRole('button', { name: `Actions for project ${name}` }).click();
    const menu = page.getByRole('menu');
    await menu.waitFor({ state: 'visible' });
    return menu;
  };

  it('renames a conversation from its menu', async () => {
    const { page } = app;
    const menu = await openMoveMenu(page, { contextMenuOf: plan.id });
    await menu.getByRole('menuitem', { name: /^Rename…/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Rename conversation' });
    // The field is named "title": its label must name the input, not the dialog's heading.
    const field = dialog.getByLabel('Title', { exact: true });
    assert.deepEqual(
      await field.evaluate((el) => ({ tag: el.tagName, label: (el as HTMLInputElement).labels?.[0]?.textContent, focused: document.activeElement === el, sameId: document.querySelectorAll(`[id="${el.id}"]`).length })),
      { tag: 'INPUT', label: 'Title', focused: true, sameId: 1 },
    );
    await field.fill('Launch plan (final)');
    await dialog.getByRole('button', { name: 'Rename' }).click();
    await waitForNotice(page, 'success', 'Renamed to “Launch plan (final)”');
    assert.equal((await server.rpc.session(plan.id)).title, 'Launch plan (final)');
    await eventually('the sidebar to show the new title', async () => {
      assert.equal((await convRow(page, plan.id).locator('.conv-title').textContent())?.trim(), 'Launch plan (final)');
    });
    await dismissNotices(page);
  });

  it('exports a conversation as a downloaded file, in both formats', async () => {
    const { page } = app;
    for (const [format, ext, expect] of [
      ['Recall JSONL', 'jsonl', '"kind":"message"'],
      ['Markdown', 'md', '# Launch plan (final)'],
    ] as const) {
      const menu = await openMoveMenu(page, { contextMenuOf: plan.id });
      await menu.getByRole('menuitem', { name: /^Export…/ }).click();
      const dialog = page.getByRole('dialog', { name: /^Export “Launch plan \(final\)”/ });
      await dialog.getByRole('radio', { name: new RegExp(`^${format}`) }).check();
      if (ext === 'md') await saveScreenshot(page, 'export-dialog.png');
      const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Export' }).click()]);
      assert.equal(download.suggestedFilename(), `Launch-plan-final.${ext}`);
      const text = await readFile((await download.path())!, 'utf8');
      assert.include(text, expect);
      assert.include(text, '发布日期是哪天');
      assert.notInclude(text, 'notes for the team');
      await dialog.getByRole('button', { name: 'Close' }).click();
      await dialog.waitFor({ state: 'detached' });
    }
    await dismissNotices(page);
  });

  it('asks before deleting a conversation: Cancel keeps it (focus back on its row), Delete removes it for real', async () => {
    const { page } = app;
    await openMoveMenu(page, { contextMenuOf: notes.id });
    await page.getByRole('menu').getByRole('menuitem', { name: /^Delete…/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete conversation?' });
    assert.include(await dialog.textContent(), '“Team notes” will be deleted for good');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Cancel', 'Cancel has the focus, so Enter never deletes');
    await saveScreenshot(page, 'delete-conversation-dialog.png');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await eventually('focus to return to the conversation row', async () => {
      assert.equal(await page.evaluate(() => document.activeElement?.closest('li.conv')?.getAttribute('data-session-id')), notes.id);
    });
    assert.equal((await server.rpc.session(notes.id)).id, notes.id);

    await openMoveMenu(page, { contextMenuOf: notes.id });
    await page.getByRole('menu').getByRole('menuitem', { name: /^Delete…/ }).click();
    await page.getByRole('dialog', { name: 'Delete conversation?' }).getByRole('button', { name: 'Delete conversation' }).click();
    await waitForNotice(page, 'success', 'Deleted “Team notes”');
    await eventually('the row to leave the sidebar', async () => assert.equal(await convRow(page, notes.id).count(), 0));
    assert.equal(await codeOf(server.rpc.session(notes.id)), 'session_not_found');
    assert.equal(await page.evaluate(() => document.activeElement?.closest('[data-project-id]')?.getAttribute('data-project-id')), alpha.id, "focus moves to the project's header, not to <body>");
    await dismissNotices(page);
  });

  it('refuses to delete a project that has conversations until the box is ticked; an empty one goes at once', async () => {
    const { page } = app;
    await (await projectMenu(page, 'Alpha')).getByRole('menuitem', { name: /^Delete…/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete project?' });
    assert.include(await dialog.textContent(), 'It has 1 conversation');
    await dialog.getByRole('button', { name: 'Delete project' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'still has conversations, so it was not deleted' }).waitFor();
    assert.ok((await server.rpc.projects()).some((p) => p.id === alpha.id), 'refused: the project is still there');
    await dialog.getByLabel('Also delete its 1 conversation').check();
    await saveScreenshot(page, 'delete-project-dialog.png');
    await dialog.getByRole('button', { name: 'Delete project' }).click();
    await waitForNotice(page, 'success', 'Deleted the project “Alpha” and its conversations');
    await eventually('the project to leave the sidebar', async () => assert.equal(await group(page, alpha.id).count(), 0));
    assert.equal(await codeOf(server.rpc.session(plan.id)), 'session_not_found');

    await (await projectMenu(page, 'Empty one')).getByRole('menuitem', { name: /^Delete…/ }).click();
    await page.getByRole('dialog', { name: 'Delete project?' }).getByRole('button', { name: 'Delete project' }).click();
    await waitForNotice(page, 'success', 'Deleted the project “Empty one”');
    assert.notOk((await server.rpc.projects()).some((p) => p.id === empty.id));
    app.assertNoProblems();
  });

  it('the dialogs fit a phone screen (390×844)', async () => {
    const phone = await openPage(browser, cleanup, PHONE, { isMobile: true, hasTouch: true });
    const p = await server.rpc.call<Project>('projects.create', { name: 'Phone project' });
    await server.rpc.call<Session>('session.create', { projectId: p.id, title: 'On the phone', messages: [{ role: 'user', content: 'hi' }] });
    await openApp(phone.page, server.url);
    const { page } = phone;
    await page.getByRole('button', { name: 'Show projects' }).click();
    await (await projectMenu(page, 'Phone project')).getByRole('menuitem', { name: /^Delete…/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete project?' });
    const box = await dialog.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390 && box.y + box.height <= 844, `dialog inside the screen: ${JSON.stringify(box)}`);
    await saveScreenshot(page, 'delete-project-dialog-phone.png');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    phone.assertNoProblems();
  });
});
