/**
 * UI polish in a real browser: search snippets and the result's context previews show inline
 * Markdown (`code`, **strong**) instead of raw backticks, the match stays highlighted inside the
 * code, and hostile text inside backticks stays text (no element, no handler ran). The home
 * screen's "Imported …" line is a status of the moment: it can be dismissed and is gone after
 * navigating away and back. Screenshots at 1280×800 and 390×844 go to the temp screenshot folder.
 */
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { DESKTOP, launchBrowser, openPage, PHONE } from './support/browser.js';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer, type RecallServer } from './support/gateway.js';
import { saveScreenshot } from './support/screenshots.js';
import { dismissNotices, openApp, openFromSidebar, searchInPanel, searchPanel } from './support/ui.js';

describe('inline Markdown in snippets, and the home status', () => {
  const cleanup = new Cleanup();
  let server: RecallServer;
  let browser: Browser;
  let askFrom: string;

  beforeAll(async () => {
    server = await startRecallServer(cleanup);
    browser = await launchBrowser(cleanup);
    const project = await server.rpc.call<{ id: string }>('projects.create', { name: 'Locking notes' });
    const s = await server.rpc.call<{ id: string }>('session.create', {
      projectId: project.id,
      title: 'SQLite locking notes',
      messages: [
        { role: 'user', content: 'The writer hits SQLITE_BUSY under load, what should I change?' },
        { role: 'assistant', content: 'Set `PRAGMA busy_timeout = 5000` on **every** connection; keep `<img src=x onerror="window.__xss=1">` out of it.' },
        { role: 'user', content: 'And the *checkpoint* size? Use `wal_autocheckpoint` maybe.' },
      ],
    });
    askFrom = (await server.rpc.call<{ id: string }>('session.create', { projectId: project.id, title: 'asking' })).id;
    assert.ok(s.id);
  });

  afterAll(async () => {
    await cleanup.run();
  });

  it('"Imported …" can be dismissed and clears when navigating away', async () => {
    const app = await openPage(browser, cleanup, DESKTOP);
    const { page } = app;
    await openApp(page, server.url);
    const welcome = page.getByRole('region', { name: 'Welcome' });
    const load = welcome.getByRole('button', { name: 'Load demo data' });
    const status = welcome.getByTestId('home-status');

    await load.click();
    await status.getByText('Imported').waitFor({ timeout: 15_000 });
    await dismissNotices(page);
    await saveScreenshot(page, 'home-status-desktop.png');
    await page.setViewportSize(PHONE);
    await status.getByRole('button', { name: 'Dismiss this status' }).waitFor();
    await saveScreenshot(page, 'home-status-phone.png');
    await page.setViewportSize(DESKTOP);
    await status.getByRole('button', { name: 'Dismiss this status' }).click();
    await status.waitFor({ state: 'detached' });

    // Again (nothing new: "already imported"), then navigate away and come back: the line is gone.
    await load.click();
    await status.getByText('already imported').waitFor({ timeout: 15_000 });
    await openFromSidebar(page, 'demo-recipes-search');
    await page.evaluate(() => {
      location.hash = '#/';
    });
    await welcome.getByRole('heading', { name: 'Pick a conversation' }).waitFor();
    assert.equal(await status.count(), 0);
    app.assertNoProblems();
  });

  it.each([
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const)('snippets and previews render inline code with the match marked, hostile text stays text (%s)', async (name, viewport) => {
    const app = await openPage(browser, cleanup, viewport);
    const { page } = app;
    await openApp(page, server.url, `#/s/${askFrom}`);
    if (name === 'phone') await page.getByRole('navigation', { name: 'Panes' }).getByRole('button', { name: 'Search', exact: true }).click();
    const { result } = await searchInPanel(page, 'busy_timeout', 'keyword');
    assert.isAbove(result.results?.length ?? 0, 0);
    const panel = searchPanel(page);
    const snippet = panel.locator('.hit .snippet').first();
    await snippet.locator('code').first().waitFor();
    const text = (await snippet.textContent()) ?? '';
    assert.notInclude(text, '`', 'no raw backticks in the snippet');
    const marked = await snippet.locator('code mark').allTextContents();
    assert.include(marked.join(' '), 'busy', 'the match stays marked inside the code');
    // The hostile tag is shown as text inside code, never as an element, and its handler never ran.
    assert.equal(await panel.locator('.snippet img, .win-text img').count(), 0);
    assert.include(text, '<img src=x onerror=');
    assert.isUndefined(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss));
    await saveScreenshot(page, `snippet-markdown-${name}.png`);
    app.assertNoProblems();
  });
});
