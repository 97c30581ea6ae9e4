/**
 * Layout at 1280×800 and 390×844 (no horizontal overflow, the sidebar reachable — a drawer on the
 * phone), and keyboard use: Tab reaches the search box, Enter searches, Tab reaches a result and
 * Enter opens its anchor. Writes the phone screenshot for the README.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { DESKTOP, launchBrowser, openPage, PHONE, SCREENSHOT_TIME } from './support/browser.js';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer, type RecallServer } from './support/gateway.js';
import { horizontalOverflow } from './support/layout.js';
import { DEMO_JSONL } from './support/paths.js';
import type { SearchResult } from './support/rpc.js';
import { saveScreenshot } from './support/screenshots.js';
import {
  convRow,
  expectAnchorHighlighted,
  indexPanel,
  openApp,
  renderedHits,
  searchInPanel,
  searchPanel,
  sidebar,
  waitForOpenSession,
} from './support/ui.js';
import { eventually } from './support/wait.js';

async function expectNoHorizontalOverflow(page: Page, where: string): Promise<void> {
  const r = await horizontalOverflow(page);
  assert.isAtMost(r.documentWidth, r.viewport, `${where}: the document is wider than the viewport`);
  assert.deepEqual(r.offenders, [], `${where}: elements past the right edge of a ${r.viewport}px viewport`);
}

async function box(page: Page, selector: string) {
  return page.locator(selector).first().boundingBox();
}

describe('layout and keyboard', () => {
  const cleanup = new Cleanup();
  let server: RecallServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startRecallServer(cleanup);
    browser = await launchBrowser(cleanup);
    const text = await readFile(DEMO_JSONL, 'utf8');
    const imported = await server.rpc.call<{ errorCount: number }>('import.jsonl', { text });
    assert.equal(imported.errorCount, 0);
  });

  afterAll(async () => {
    await cleanup.run();
  });

  it('1280×800: three columns, nothing overflows, sidebar and search panel visible', async () => {
    const app = await openPage(browser, cleanup, DESKTOP);
    const { page } = app;
    await openApp(page, server.url);
    await expectNoHorizontalOverflow(page, 'home');
    await openApp(page, server.url, '#/s/demo-grepline-borrow-2');
    await waitForOpenSession(page, 'demo-grepline-borrow-2');
    await expectNoHorizontalOverflow(page, 'conversation');
    const side = await box(page, 'aside#sidebar');
    const panel = await box(page, 'aside.panel');
    const main = await box(page, 'main#main');
    assert.ok(side && panel && main);
    assert.isAtLeast(side.x, 0);
    assert.isAtMost(side.x + side.width, main.x + 1, 'sidebar left of the conversation');
    assert.isAtMost(main.x + main.width, panel.x + 1, 'conversation left of the side panel');
    assert.isAtMost(panel.x + panel.width, DESKTOP.width + 1);
    assert.isTrue(await sidebar(page).isVisible());
    assert.isTrue(await searchPanel(page).isVisible());
    await searchInPanel(page, 'borrow');
    await expectNoHorizontalOverflow(page, 'search results');
    await page.getByRole('tab', { name: 'Index' }).click();
    await indexPanel(page).waitFor();
    await expectNoHorizontalOverflow(page, 'index panel');
    app.assertNoProblems();
  });

  it('keyboard: Tab reaches the search box, Enter searches, Tab reaches a result, Enter opens its anchor', async () => {
    const app = await openPage(browser, cleanup, DESKTOP);
    const { page } = app;
    await openApp(page, server.url, '#/s/demo-grepline-perf');
    await waitForOpenSession(page, 'demo-grepline-perf');

    const tabUntil = async (what: string, test: () => boolean, max: number) => {
      for (let i = 0; i < max; i++) {
        if (await page.evaluate(test)) return i;
        await page.keyboard.press('Tab');
      }
      if (await page.evaluate(test)) return max;
      const at = await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 160) ?? 'none');
      throw new Error(`${what} not reached with ${max} Tab presses (focus is on ${at})`);
    };

    await tabUntil('the search box', () => !!document.activeElement?.matches('section[aria-label="Search"] input[type="search"]'), 150);
    await page.keyboard.type('borrow');
    const answer = page.waitForResponse((r) => r.url().endsWith('/rpc') && (r.request().postData() ?? '').includes('"search.session_search"'));
    await page.keyboard.press('Enter');
    const result = ((await (await answer).json()) as { result: SearchResult }).result;
    assert.isAbove(result.results?.length ?? 0, 0, 'the query has hits');
    await eventually('results to render', async () => assert.isAbove((await renderedHits(page)).length, 0));

    await tabUntil('a search result', () => !!document.activeElement?.matches('button.hit'), 30);
    const focused = await page.evaluate(() => ({
      sessionId: document.activeElement!.getAttribute('data-session-id')!,
      messageId: Number(document.activeElement!.getAttribute('data-message-id')),
    }));
    await page.keyboard.press('Enter');
    await expectAnchorHighlighted(page, focused.sessionId, focused.messageId);
    assert.equal(await page.evaluate(() => document.activeElement?.id), `m-${focused.messageId}`, 'focus moves to the anchor message');

    // The move menu is keyboard-operable too: Shift+F10 on a sidebar row opens it on its first item, Escape closes it.
    const row = convRow(page, 'demo-tidy-forms').locator('button.conv-open');
    await row.focus();
    await page.keyboard.press('Shift+F10');
    const menu = page.getByRole('menu');
    await menu.waitFor();
    assert.isTrue(await page.evaluate(() => document.activeElement?.getAttribute('role') === 'menuitem'), 'focus is in the menu');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden' });
    assert.isTrue(await row.evaluate((el) => el === document.activeElement), 'focus returns to the row');
    app.assertNoProblems();
  });

  it('390×844: one column, the sidebar is a reachable drawer, panes switch, nothing overflows', async () => {
    const app = await openPage(browser, cleanup, PHONE, { isMobile: true, hasTouch: true, fixedTime: SCREENSHOT_TIME });
    const { page } = app;
    await openApp(page, server.url);
    await expectNoHorizontalOverflow(page, 'phone home');
    await openApp(page, server.url, '#/s/demo-recipes-schema');
    await waitForOpenSession(page, 'demo-recipes-schema');
    await expectNoHorizontalOverflow(page, 'phone conversation');

    // Closed drawer: off screen and not focusable.
    const closed = await box(page, 'aside#sidebar');
    assert.ok(closed);
    assert.isAtMost(closed.x + closed.width, 1, 'the closed drawer is off screen');
    assert.equal(await page.locator('aside#sidebar').getAttribute('inert'), '', 'the closed drawer is inert');

    const toggle = page.getByRole('button', { name: 'Show projects' });
    await toggle.click();
    await eventually('the drawer to slide in', async () => {
      const open = await box(page, 'aside#sidebar');
      assert.ok(open);
      assert.isAtLeast(open.x, -1);
      assert.isAtMost(open.x + open.width, PHONE.width + 1);
    });
    assert.isTrue(await sidebar(page).isVisible());
    await expectNoHorizontalOverflow(page, 'phone drawer open');
    await saveScreenshot(page, 'mobile.png');

    // Picking a conversation closes the drawer and opens it.
    await convRow(page, 'demo-tidy-forms').locator('button.conv-open').click();
    await waitForOpenSession(page, 'demo-tidy-forms');
    await eventually('the drawer to close', async () => {
      const b = await box(page, 'aside#sidebar');
      assert.ok(b);
      assert.isAtMost(b.x + b.width, 1);
    });

    // Search pane on the phone.
    const panes = page.getByRole('navigation', { name: 'Panes' });
    await panes.getByRole('button', { name: 'Search', exact: true }).click();
    await searchPanel(page).waitFor({ state: 'visible' });
    assert.isFalse(await page.locator('main#main').isVisible(), 'one pane at a time');
    const s = await searchInPanel(page, 'migration');
    assert.isAbove(s.hits.length, 0);
    await expectNoHorizontalOverflow(page, 'phone search results');
    const hit = s.hits[0]!;
    await searchPanel(page).locator(`button.hit[data-session-id="${hit.sessionId}"][data-message-id="${hit.messageId}"]`).click();
    await expectAnchorHighlighted(page, hit.sessionId, hit.messageId);
    assert.isTrue(await page.locator('main#main').isVisible(), 'opening a result shows the conversation pane');

    await panes.getByRole('button', { name: 'Index', exact: true }).click();
    await indexPanel(page).waitFor({ state: 'visible' });
    await expectNoHorizontalOverflow(page, 'phone index panel');
    app.assertNoProblems();
  });
});
