/**
 * Fixes of defects found by the e2e review, through the real UI against a real `recall serve`:
 * - at 390×844 an error notice never covers an interactive control (it sits in the page flow under
 *   the top bar) and can be dismissed;
 * - an error stays until dismissed even when later success notices come and go;
 * - "Skip to search" is the first focusable element; "/" (outside text fields) and Ctrl+K focus
 *   the search box;
 * - every search result shows its surrounding window, collapsed to the anchor ± 1;
 * - a title match (`match_source: "keyword"` + `match_field: "title"`, the only spelling the
 *   contract's result schema allows) is labelled as one.
 * A refused move is produced by answering that one request with the gateway's own error shape.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import type { Browser, Page, Route } from 'playwright-core';
import { DESKTOP, launchBrowser, openPage, PHONE } from './support/browser.js';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer, type RecallServer } from './support/gateway.js';
import { DEMO_JSONL } from './support/paths.js';
import type { SearchResult } from './support/rpc.js';
import { openApp, searchInPanel, searchPanel, waitForNotice, waitForOpenSession } from './support/ui.js';
import { eventually } from './support/wait.js';

const CONV = 'demo-recipes-schema';

/** Answers the next `session.project.set` with a project_archived error, as the gateway would. */
async function refuseNextMove(page: Page): Promise<void> {
  let taken = false;
  const handler = async (route: Route) => {
    const body = route.request().postData() ?? '';
    if (taken || !body.includes('"session.project.set"')) return route.continue();
    taken = true;
    const id = (JSON.parse(body) as { id: number }).id;
    await route.fulfill({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        error: { code: -32005, message: 'Project is archived and accepts no new or moved-in conversations', data: { code: 'project_archived' } },
      }),
    });
    await page.unroute('**/rpc', handler);
  };
  await page.route('**/rpc', handler);
}

/** Visible interactive elements outside the notices whose box intersects the notices' box. */
async function controlsUnderNotices(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const stack = document.querySelector('.notices');
    if (!stack) return ['no .notices element'];
    const n = stack.getBoundingClientRect();
    const out: string[] = [];
    for (const el of Array.from(document.querySelectorAll('button, a[href], input, textarea, select, summary, [tabindex="0"]'))) {
      if (stack.contains(el) || el.closest('[inert], [aria-hidden="true"]')) continue;
      const s = getComputedStyle(el);
      if (s.visibility === 'hidden' || s.display === 'none') continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const overlap = r.left < n.right && r.right > n.left && r.top < n.bottom && r.bottom > n.top;
      if (overlap) out.push(`${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 30)}"`);
    }
    return out;
  });
}

async function changeDirectory(page: Page, dir: string): Promise<void> {
  await page.locator('.conv-header').getByRole('button', { name: 'Change directory…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Change working directory' });
  await dialog.getByLabel('Directory').fill(dir);
  await dialog.getByRole('button', { name: 'Change directory', exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
  await waitForNotice(page, 'success', `Directory set to ${dir}`);
}

describe('notices, keyboard and search results', () => {
  const cleanup = new Cleanup();
  let server: RecallServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startRecallServer(cleanup);
    browser = await launchBrowser(cleanup);
    const imported = await server.rpc.call<{ errorCount: number }>('import.jsonl', { text: await readFile(DEMO_JSONL, 'utf8') });
    assert.equal(imported.errorCount, 0);
  });

  afterAll(async () => {
    await cleanup.run();
  });

  it('390×844: an error notice covers no control, outlives later successes, and is dismissible', async () => {
    const app = await openPage(browser, cleanup, PHONE, { isMobile: true, hasTouch: true });
    const { page } = app;
    await openApp(page, server.url, `#/s/${CONV}`);
    await waitForOpenSession(page, CONV);

    await refuseNextMove(page);
    await page.locator('.conv-header').getByRole('button', { name: 'Move…', exact: true }).click();
    const menu = page.getByRole('menu');
    await menu.getByRole('group', { name: 'Move to project' }).getByRole('menuitem').first().click();
    const error = await waitForNotice(page, 'error', 'project_archived');
    assert.include(error, 'Move failed');
    assert.deepEqual(await controlsUnderNotices(page), [], 'the error notice covers a control');
    // The header's actions stay clickable with the error shown.
    const move = page.locator('.conv-header').getByRole('button', { name: 'Move…', exact: true });
    await move.click({ trial: true });

    // Later successes (fading on their own) never push the error out.
    for (const dir of ['/tmp/recall-e2e-a', '/tmp/recall-e2e-b', '/tmp/recall-e2e-c']) {
      await changeDirectory(page, dir);
      assert.deepEqual(await controlsUnderNotices(page), [], `notices cover a control after "${dir}"`);
    }
    assert.equal(await page.locator('.notices .notice.error').count(), 1, 'the error is still shown');
    assert.isAtMost(await page.locator('.notices .notice.success').count(), 2, 'successes are capped');

    await page.locator('.notices .notice.error').getByRole('button', { name: 'Dismiss' }).click();
    await page.locator('.notices .notice.error').waitFor({ state: 'detached' });
    app.assertNoProblems();
  });

  it('keyboard: "Skip to search" comes first; "/" and Ctrl+K focus the search box, "/" types normally in a text field', async () => {
    const app = await openPage(browser, cleanup, DESKTOP);
    const { page } = app;
    await openApp(page, server.url, `#/s/${CONV}`);
    await waitForOpenSession(page, CONV);
    const inSearchBox = () => page.evaluate(() => document.activeElement?.id === 'search-box');

    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Skip to search', 'the first Tab stop');
    assert.isTrue(await page.locator('a.skip-link').isVisible(), 'visible when focused');
    await page.keyboard.press('Enter');
    await eventually('the skip link to focus the search box', async () => assert.isTrue(await inSearchBox()));

    // "/" from the page (not a text field).
    await page.locator('li.msg').first().click();
    assert.isFalse(await inSearchBox());
    await page.keyboard.press('/');
    await eventually('"/" to focus the search box', async () => assert.isTrue(await inSearchBox()));
    assert.equal(await searchPanel(page).getByRole('searchbox').inputValue(), '', 'the "/" itself is not typed');

    // In the composer "/" is text; Ctrl+K still jumps to search.
    const box = page.locator('form.composer textarea');
    await box.click();
    await page.keyboard.type('a/b');
    assert.equal(await box.inputValue(), 'a/b');
    assert.isFalse(await inSearchBox());
    await page.keyboard.press('Control+k');
    await eventually('Ctrl+K to focus the search box', async () => assert.isTrue(await inSearchBox()));
    app.assertNoProblems();
  });

  it('on the phone the shortcut switches to the search pane', async () => {
    const app = await openPage(browser, cleanup, PHONE, { isMobile: true, hasTouch: true });
    const { page } = app;
    await openApp(page, server.url, `#/s/${CONV}`);
    await waitForOpenSession(page, CONV);
    assert.isFalse(await searchPanel(page).isVisible());
    await page.locator('li.msg').first().click();
    await page.keyboard.press('/');
    await eventually('the search pane with its box focused', async () => {
      assert.isTrue(await searchPanel(page).isVisible());
      assert.isTrue(await page.evaluate(() => document.activeElement?.id === 'search-box'));
    });
    app.assertNoProblems();
  });

  it('each result shows its window (anchor ± 1, expandable); a title match is labelled as one', async () => {
    const app = await openPage(browser, cleanup, DESKTOP);
    const { page } = app;
    await openApp(page, server.url, '#/s/demo-grepline-perf');
    await waitForOpenSession(page, 'demo-grepline-perf');

    const s = await searchInPanel(page, 'borrow', 'keyword');
    const results = s.result.results ?? [];
    assert.isAbove(results.length, 0);
    type WindowedHit = { message_id: number; window?: Array<{ message_id: number; is_anchor?: boolean }> };
    for (const hit of results as WindowedHit[]) {
      const li = searchPanel(page).locator('ul.hits > li').filter({ has: page.locator(`button.hit[data-message-id="${hit.message_id}"]`) });
      const win = li.getByTestId('hit-window');
      const full = hit.window ?? [];
      assert.isAbove(full.length, 0, 'the tool returned a window');
      const at = full.findIndex((w) => w.is_anchor === true || w.message_id === hit.message_id);
      const expected = full.slice(Math.max(0, at - 1), at + 2).map((w) => w.message_id);
      const shown = await win.locator('li.win-msg').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-message-id'))));
      assert.deepEqual(shown, expected, 'collapsed to the anchor ± 1');
      assert.equal(await win.locator(`li.win-msg.is-anchor[data-message-id="${hit.message_id}"]`).count(), 1, 'the anchor is emphasised');
      if (full.length > expected.length) {
        await win.getByRole('button', { name: /more around it/ }).click();
        await eventually('the whole window', async () => assert.equal(await win.locator('li.win-msg').count(), full.length));
        await win.getByRole('button', { name: 'Less context' }).click();
        await eventually('back to anchor ± 1', async () => assert.equal(await win.locator('li.win-msg').count(), expected.length));
      }
    }

    // A title match: keyword source, labelled as a title match.
    const real = (s.result.results ?? []).find((h) => (h as { match_field?: string }).match_field === 'title');
    assert.ok(real, `"borrow" matches a demo title: ${JSON.stringify(s.result.results?.map((h) => [h.match_source, (h as { match_field?: string }).match_field]))}`);
    const label = searchPanel(page).locator(`button.hit[data-message-id="${real.message_id}"]`);
    assert.equal((await label.getByTestId('match-field').textContent())?.trim(), 'title match');
    assert.equal((await label.getByTestId('match-source').textContent())?.trim(), 'keyword');
    app.assertNoProblems();
  });
});
