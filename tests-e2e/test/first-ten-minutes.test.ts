/**
 * Issue 20's walk-through as browser tests against a real `recall serve` (demo data loaded with the
 * UI's own button): search results follow their context — the issue's 番茄炒蛋 sequence first —
 * and a whole project is searchable from its header; the WAI-ARIA dialog and tabs patterns walked
 * with the keyboard; "Use with an agent"; the sidebar counts and message links; the layout polish
 * (overlaid notices, clamped titles, the search box, the phone composer); the home folder only on
 * explicit confirmation. Screenshots at 1280×800 and 390×844 (SCREENSHOT_DIR).
 */
import { homedir } from 'node:os';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import { DESKTOP, launchBrowser, openPage, PHONE, type AppPage } from './support/browser.js';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer, type RecallServer } from './support/gateway.js';
import type { Project } from './support/rpc.js';
import { saveScreenshot } from './support/screenshots.js';
import { conversationPane, convRow, openApp, openFromSidebar, renderedHits, searchInPanel, searchPanel, sidebar, waitForOpenSession } from './support/ui.js';
import { eventually } from './support/wait.js';

const RECIPES = 'p_demo_recipes';
const GREPLINE = 'p_demo_grepline';

function isSearchRequest(r: Request): boolean {
  return r.url().endsWith('/rpc') && r.method() === 'POST' && (r.postData() ?? '').includes('"search.session_search"');
}

/** The element that has the keyboard focus, described. */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'body';
    return `${el.tagName.toLowerCase()}:${el.getAttribute('aria-label') ?? el.getAttribute('role') ?? ''}:${(el.textContent ?? '').trim().slice(0, 40)}`;
  });
}

describe('the first ten minutes (issue 20)', () => {
  const cleanup = new Cleanup();
  let server: RecallServer;
  let browser: Browser;
  let app: AppPage;
  let recipesName: string;

  beforeAll(async () => {
    server = await startRecallServer(cleanup);
    browser = await launchBrowser(cleanup);
    app = await openPage(browser, cleanup, DESKTOP);
    await openApp(app.page, server.url);
  });

  afterAll(async () => {
    await cleanup.run();
  });

  it('"Load demo data" keeps the keyboard focus (never <body>)', async () => {
    const { page } = app;
    const load = page.getByRole('button', { name: 'Load demo data' });
    await load.focus();
    await page.keyboard.press('Enter');
    await eventually('the demo projects in the sidebar', async () => {
      assert.equal(await sidebar(page).locator(`[data-project-id="${RECIPES}"]`).count(), 1);
    });
    assert.notEqual(await focused(page), 'body');
    // The projects reach the sidebar through the change feed while the import is still finishing
    // (the button then reads "Importing demo…"): the focus stays on that button until it is done.
    await eventually('the focus back on "Load demo data"', async () => {
      assert.include(await focused(page), 'Load demo data');
    });
    recipesName = (await server.rpc.projects()).find((p: Project) => p.id === RECIPES)!.name;
    app.assertNoProblems();
  });

  it('search follows the conversation, project, mode and a cleared query — never another project’s text on screen', async () => {
    const { page } = app;
    const panel = searchPanel(page);
    // The sequence: 番茄炒蛋 in the recipes project…
    await openFromSidebar(page, 'demo-recipes-images');
    const first = await searchInPanel(page, '番茄炒蛋', 'keyword');
    assert.isAbove(first.hits.length, 0);
    for (const h of first.hits) assert.match(h.sessionId, /^demo-recipes-/);
    // …then a conversation of another project: the recipe results leave the screen (searched again there).
    await openFromSidebar(page, 'demo-grepline-perf');
    await eventually('the search to follow into grepline', async () => {
      assert.equal((await panel.getByTestId('search-scope').textContent())?.trim(), 'grepline (Rust CLI)');
      for (const h of await renderedHits(page)) assert.match(h.sessionId, /^demo-grepline-/);
      assert.notInclude((await panel.locator('ol.hit-groups').allTextContents()).join(''), '番茄');
      assert.equal(await panel.getByTestId('search-stale').count(), 0);
    });
    // A new search: "Searching…" instead of the old results (the answer held back for a moment).
    await searchInPanel(page, 'borrow', 'keyword');
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const hold = async (route: import('playwright-core').Route) => {
      if (isSearchRequest(route.request())) await held;
      await route.continue().catch(() => undefined);
    };
    await page.route('**/rpc', hold);
    await panel.getByRole('searchbox').fill('memchr');
    await panel.getByRole('button', { name: 'Search', exact: true }).click();
    await panel.getByText('Searching…').waitFor();
    assert.deepEqual(await renderedHits(page), [], 'old results under "Searching…"');
    await saveScreenshot(page, 'search-searching-1280.png');
    release();
    await eventually('the memchr answer', async () => assert.include(await panel.locator('.search-status').textContent(), '“memchr”'));
    await page.unroute('**/rpc', hold);
    // Switching the mode runs the search again.
    const rerun = page.waitForRequest(isSearchRequest);
    await panel.getByRole('radio', { name: 'Hybrid', exact: true }).check();
    const params = (JSON.parse((await rerun).postData() ?? '{}') as { params: Record<string, unknown> }).params;
    assert.equal(params.search_mode, 'hybrid');
    assert.equal(params.query, 'memchr');
    await eventually('the hybrid answer', async () => {
      assert.include(await panel.locator('.search-status').textContent(), '“memchr”');
      assert.equal((await panel.getByTestId('used-mode').textContent())?.trim(), 'keyword', 'hybrid ran (as keyword, no index)');
    });
    // Escape empties the box and the results (the clear button sits clear of the text: screenshot).
    await panel.getByRole('searchbox').focus();
    await saveScreenshot(panel.locator('.search-row'), 'search-box-1280.png');
    await page.keyboard.press('Escape');
    await eventually('the results to be cleared', async () => {
      assert.equal(await panel.getByRole('searchbox').inputValue(), '');
      assert.deepEqual(await renderedHits(page), []);
      assert.equal(((await panel.locator('.search-status').textContent()) ?? '').trim(), '');
    });
    app.assertNoProblems();
  });

  it('a whole project is searched from its header, with no conversation open', async () => {
    const { page } = app;
    await openApp(page, server.url, '#/');
    await sidebar(page).getByRole('button', { name: `Search project ${recipesName}` }).click();
    const panel = searchPanel(page);
    await eventually('the search box focused', async () => assert.include(await focused(page), 'input'));
    assert.include(await panel.textContent(), `Searching the whole project ${recipesName}`);
    const { params, hits } = await searchInPanel(page, '番茄炒蛋', 'keyword');
    assert.equal(params.projectId, RECIPES);
    assert.isUndefined(params.sessionId);
    assert.isAbove(hits.length, 0);
    for (const h of hits) assert.match(h.sessionId, /^demo-recipes-/, 'a hit outside the project');
    assert.ok(hits.some((h) => h.sessionId === 'demo-recipes-search'));
    await saveScreenshot(page, 'search-project-1280.png');
    // Opening a result keeps the whole-project list (it can be walked).
    await panel.locator('button.hit').first().click();
    await waitForOpenSession(page);
    assert.include(await panel.textContent(), `Searching the whole project ${recipesName}`);
    assert.isAbove((await renderedHits(page)).length, 0);
    app.assertNoProblems();
  });

  it('tabs: arrows, Home and End; the status dot has a name', async () => {
    const { page } = app;
    const search = page.locator('#tab-search');
    const index = page.locator('#tab-index');
    await search.click();
    await search.focus();
    assert.equal(await index.getAttribute('tabindex'), '-1', 'one tab in the Tab order');
    await page.keyboard.press('ArrowRight');
    assert.equal(await index.getAttribute('aria-selected'), 'true');
    assert.include(await focused(page), 'Index');
    await page.keyboard.press('Home');
    assert.equal(await search.getAttribute('aria-selected'), 'true');
    await page.keyboard.press('End');
    assert.equal(await index.getAttribute('aria-selected'), 'true');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await search.getAttribute('aria-selected'), 'true');
    assert.match((await page.getByTestId('index-dot').getAttribute('aria-label')) ?? '', /^semantic index: /);
    assert.equal(await page.getByRole('img', { name: /semantic index:/ }).count(), 1);
    app.assertNoProblems();
  });

  it('dialogs: Escape returns the focus to what opened them', async () => {
    const { page } = app;
    await openFromSidebar(page, 'demo-grepline-borrow-2');
    const agent = conversationPane(page).getByRole('button', { name: 'Use with an agent…' });
    await agent.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: /with an agent/ });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await eventually('focus back on the opener', async () => assert.include(await focused(page), 'Use with an agent'));
    const newProject = sidebar(page).getByRole('button', { name: 'New project', exact: true });
    await newProject.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'New project' }).waitFor();
    await page.keyboard.press('Escape');
    await eventually('focus back on "New project"', async () => assert.include(await focused(page), 'New project'));
    app.assertNoProblems();
  });

  it('"+ New conversation" focuses the composer; "Discard draft" goes back to where you were', async () => {
    const { page } = app;
    await openFromSidebar(page, 'demo-grepline-perf');
    await sidebar(page).getByRole('button', { name: 'New conversation in grepline (Rust CLI)', exact: true }).click();
    await page.locator('section.conversation.draft').waitFor();
    await eventually('the composer focused', async () => assert.include(await focused(page), 'textarea'));
    await page.getByRole('button', { name: 'Discard draft' }).click();
    await waitForOpenSession(page, 'demo-grepline-perf');
    app.assertNoProblems();
  });

  it('"Use with an agent": Done in view, Copy per form, a docs link, Claude Code copyable', async () => {
    const { page, context } = app;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(server.url).origin });
    await convRow(page, 'demo-grepline-perf').locator('button.conv-open').click();
    await waitForOpenSession(page, 'demo-grepline-perf');
    await conversationPane(page).getByRole('button', { name: 'Use with an agent…' }).click();
    const dialog = page.getByRole('dialog', { name: /with an agent/ });
    await dialog.waitFor();
    const done = dialog.getByRole('button', { name: 'Done' });
    const box = await done.boundingBox();
    assert.ok(box);
    assert.isAtMost(box.y + box.height, DESKTOP.height, '"Done" is inside the window');
    await dialog.getByRole('button', { name: 'Copy command', exact: true }).click();
    await dialog.getByText('Copied').waitFor();
    await dialog.getByRole('radio', { name: 'By folder' }).check();
    assert.equal(await dialog.getByText('Copied').count(), 0, '"Copied" belongs to the form it was pressed in');
    assert.equal(await dialog.getByRole('button', { name: 'Copy Claude Code command' }).count(), 1);
    assert.match((await dialog.getByRole('link', { name: /docs\/agents\.md/ }).getAttribute('href')) ?? '', /^https:\/\/.*docs\/agents\.md$/);
    await saveScreenshot(page, 'agent-dialog-1280.png');
    await done.click();
    app.assertNoProblems();
  });

  it('counts say what the view shows; messages carry no database-wide numbers', async () => {
    const { page } = app;
    const counts = await sidebar(page).getByTestId('conv-count').evaluateAll((els) => els.map((e) => e.getAttribute('data-long') ?? ''));
    assert.ok(counts.some((c) => /in the compressed earlier part/.test(c)), `a compressed conversation says so: ${counts.join(' | ')}`);
    await openFromSidebar(page, 'demo-grepline-perf');
    const anchors = await conversationPane(page).locator('a.msg-anchor').allTextContents();
    assert.isAbove(anchors.length, 0);
    for (const a of anchors) assert.notMatch(a, /#\d/, 'a database id shown as a message number');
    app.assertNoProblems();
  });

  it('notices overlay the foot of the sidebar (the page does not move); long titles clamp; the search placeholder fits', async () => {
    const { page } = app;
    const long = `A very long conversation title that keeps going ${'and going '.repeat(25)}until the end`;
    const s = await server.rpc.call<{ id: string }>('session.create', { projectId: GREPLINE, title: long, messages: [{ role: 'user', content: 'hello' }] });
    await openApp(page, server.url, `#/s/${s.id}`);
    await waitForOpenSession(page, s.id);
    const heading = conversationPane(page).locator('h1.conv-heading');
    const lines = await heading.evaluate((el) => el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight || '24'));
    assert.isAtMost(lines, 2.2, 'the title is clamped to two lines');
    const main = await page.locator('main#main').boundingBox();
    await sidebar(page).getByRole('button', { name: 'New project', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'New project' });
    await dialog.getByLabel('Name', { exact: true }).fill('Notice maker');
    await dialog.getByRole('button', { name: 'Create project' }).click();
    await page.locator('.notices .notice').first().waitFor();
    assert.deepEqual(await page.locator('main#main').boundingBox(), main, 'a notice pushed the page');
    assert.equal(await page.locator('.notices').evaluate((el) => getComputedStyle(el).position), 'fixed');
    const stack = await page.locator('.notices').boundingBox();
    assert.ok(stack);
    const side = await page.locator('aside#sidebar').boundingBox();
    assert.ok(side);
    assert.isAbove(stack.y, DESKTOP.height / 2, `notices sit at the bottom (y ${stack.y})`);
    assert.isAtMost(stack.x + stack.width, side.x + side.width, 'notices stay over the sidebar, clear of the conversation and the results');
    await saveScreenshot(page, 'notice-and-long-title-1280.png');
    // The placeholder fits its box.
    const fits = await searchPanel(page)
      .getByRole('searchbox')
      .evaluate((el) => {
        const input = el as HTMLInputElement;
        const cs = getComputedStyle(input);
        const ctx = document.createElement('canvas').getContext('2d')!;
        ctx.font = `${cs.fontSize} ${cs.fontFamily}`;
        const room = input.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
        return ctx.measureText(input.placeholder).width <= room;
      });
    assert.isTrue(fits, 'the placeholder is cut');
    app.assertNoProblems();
  });

  it('a folder must be a full path; the home folder only when confirmed', async () => {
    const { page } = app;
    const open = async (folder: string) => {
      await sidebar(page).getByRole('button', { name: 'New project', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'New project' });
      await dialog.getByLabel('Name', { exact: true }).fill('Home test');
      await dialog.getByLabel('Folder (optional)').fill(folder);
      await dialog.getByRole('button', { name: 'Create project' }).click();
      return dialog;
    };
    const rel = await open('relative/path');
    await rel.getByRole('alert').filter({ hasText: 'not a full path' }).waitFor();
    await page.keyboard.press('Escape');
    const home = await open(homedir());
    const ask = page.getByRole('dialog', { name: 'Use your whole home folder?' });
    await ask.waitFor();
    assert.include(await focused(page), 'Choose another folder', 'the safe answer is focused');
    await saveScreenshot(page, 'home-folder-confirm-1280.png');
    await ask.getByRole('button', { name: 'Choose another folder' }).click();
    await home.getByRole('alert').filter({ hasText: 'Not created' }).waitFor();
    await page.keyboard.press('Escape');
    assert.isFalse((await server.rpc.projects()).some((p: Project) => p.name === 'Home test'), 'nothing created without the confirmation');
    app.assertNoProblems();
  });

  it('390×844: no keyboard hint on the phone composer; the walk-through screens', async () => {
    const phone = await openPage(browser, cleanup, PHONE, { isMobile: true, hasTouch: true });
    const { page } = phone;
    await openApp(page, server.url, '#/s/demo-recipes-search');
    await waitForOpenSession(page, 'demo-recipes-search');
    const hint = conversationPane(page).locator('.keys-hint');
    if ((await hint.count()) > 0) assert.isFalse(await hint.isVisible(), '"Ctrl+Enter" on a phone');
    await saveScreenshot(page, 'conversation-390.png');
    await page.locator('button.pane-btn', { hasText: 'Search' }).click();
    await saveScreenshot(page, 'search-390.png');
    phone.assertNoProblems();
  });
});
