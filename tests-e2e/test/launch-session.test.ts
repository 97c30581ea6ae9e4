/**
 * Only the token's owner opens the UI, in a real Chromium against a real `recall serve`: without a
 * session the page is a short "open the launch link" page (no token, no app, no data); the printed
 * launch URL lands on `/` without the code, with a session cookie the page cannot read (HttpOnly);
 * the app then works, its WebSocket URL carries no token, and the used link does not work twice.
 */
import type { Browser } from 'playwright-core';
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import { DESKTOP, launchBrowser, openPage } from './support/browser.js';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer, type RecallServer } from './support/gateway.js';
import { sidebar } from './support/ui.js';

describe('launch URL and session cookie', () => {
  const cleanup = new Cleanup();
  let server: RecallServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startRecallServer(cleanup);
    await server.rpc.call('projects.create', { name: 'Owner-only project' });
    browser = await launchBrowser(cleanup);
  });

  afterAll(async () => {
    await cleanup.run();
  });

  it('without a session the page says to open the launch link and holds no token or data', async () => {
    const { page } = await openPage(browser, cleanup, DESKTOP);
    const response = await page.goto(server.url);
    assert.equal(response?.status(), 403);
    const html = await page.content();
    assert.include(html, 'recall serve');
    assert.notInclude(html, server.token);
    assert.notInclude(html, 'recall-token');
    assert.notInclude(html, 'Owner-only project');
    assert.equal(await page.locator('#root').count(), 0);
  });

  it('the printed launch URL sets an HttpOnly cookie, lands on / without the code, and the app works with a token-free WebSocket', async () => {
    const app = await openPage(browser, cleanup, DESKTOP);
    const { page } = app;
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    const launch = await server.launchUrl();
    assert.equal(launch, server.printedLaunchUrl);
    const response = await page.goto(launch);
    assert.equal(response?.status(), 200);
    assert.equal(page.url(), server.url);
    await sidebar(page).getByText('Owner-only project').first().waitFor({ state: 'visible' });
    await page.locator('.live.live-open').waitFor({ state: 'attached', timeout: 15_000 });
    assert.equal(await page.evaluate(() => document.cookie), '', 'the session cookie is HttpOnly');
    const cookies = await app.context.cookies(server.url);
    const session = cookies.find((c) => c.name === `recall_session_${server.port}`);
    assert.ok(session, 'the session cookie is set');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    assert.equal(session.path, '/');
    assert.notEqual(session.value, server.token);
    assert.notInclude(await page.content(), server.token);
    assert.isAbove(sockets.length, 0);
    for (const url of sockets) assert.notMatch(url, /token=|\?/);
    app.assertNoProblems();

    // The link was used: a second browser context cannot enter with it.
    const other = await openPage(browser, cleanup, DESKTOP);
    const again = await other.page.goto(launch);
    assert.equal(again?.status(), 403);
    assert.equal((await other.context.cookies(server.url)).length, 0);
  });
});
