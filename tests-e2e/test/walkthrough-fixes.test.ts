/**
 * What a newcomer's walk-through (demo data, search, rename / export / delete, "Use with an agent",
 * 1280×800 and 390×844) found broken, each checked the way a person meets it: the focus stays in a
 * dialog while it works (never <body>); a deleted conversation leaves the search results on
 * screen; the project delete dialog counts conversations as the sidebar does; after a project is
 * deleted the focus lands in the sidebar; an agent command never breaks inside an argument; on a
 * phone a long title is clamped (not cut at the edge) and the header buttons stay on screen.
 */
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { DESKTOP, PHONE, launchBrowser, openPage, type AppPage } from './support/browser.js';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer, type RecallServer } from './support/gateway.js';
import type { Project } from './support/rpc.js';
import { group, openApp, openFromSidebar, openMoveMenu, searchInPanel, searchPanel, sidebar, waitForNotice } from './support/ui.js';
import { eventually } from './support/wait.js';

const focusIsInside = (page: Page, selector: string) =>
  page.evaluate((sel) => {
    const a = document.activeElement;
    return !!a && a !== document.body && !!a.closest(sel);
  }, selector);

/**
 * Every argument of each command block stays on one line (its characters share one line top), and
 * so does every line of the JSON configuration.
 */
async function brokenArguments(dialog: Locator): Promise<string[]> {
  return dialog.locator('pre').evaluateAll((pres) => {
    const broken: string[] = [];
    for (const pre of pres) {
      const label = pre.getAttribute('aria-label') ?? '';
      const isCommand = /command/i.test(label);
      const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
      const chars: Array<{ ch: string; top: number }> = [];
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const text = n.textContent ?? '';
        for (let i = 0; i < text.length; i++) {
          const r = document.createRange();
          r.setStart(n, i);
          r.setEnd(n, i + 1);
          chars.push({ ch: text[i]!, top: Math.round(r.getBoundingClientRect().top) });
        }
      }
      let arg = '';
      let tops = new Set<number>();
      for (const c of [...chars, { ch: ' ', top: 0 }]) {
        if ((isCommand && c.ch === ' ') || c.ch === '\n') {
          if (tops.size > 1) broken.push(`${label}: ${arg}`);
          arg = '';
          tops = new Set();
        } else {
          arg += c.ch;
          tops.add(c.top);
        }
      }
    }
    return broken;
  });
}

describe('the newcomer walk-through', () => {
  const cleanup = new Cleanup();
  let server: RecallServer;
  let browser: Browser;
  let app: AppPage;
  let grepline: Project;

  beforeAll(async () => {
    server = await startRecallServer(cleanup);
    browser = await launchBrowser(cleanup);
    app = await openPage(browser, cleanup, DESKTOP);
    await openApp(app.page, server.url);
    await app.page.locator('section.welcome').getByRole('button', { name: 'Load demo data' }).click();
    await eventually('the demo projects', async () => {
      grepline = (await server.rpc.projects()).find((p) => p.name.startsWith('grepline'))!;
      assert.ok(grepline);
      await group(app.page, grepline.id).waitFor({ timeout: 2_000 });
    });
  });

  afterAll(async () => {
    await cleanup.run();
  });

  it('export keeps the focus in its dialog while it saves (a disabled button used to drop it to <body>)', async () => {
    const { page } = app;
    const menu = await openMoveMenu(page, { contextMenuOf: 'demo-grepline-clap' });
    await menu.getByRole('menuitem', { name: /^Export…/ }).click();
    const dialog = page.getByRole('dialog', { name: /^Export/ });
    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Export' }).click()]);
    assert.match(download.suggestedFilename(), /\.jsonl$/);
    await dialog.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    assert.ok(await focusIsInside(page, 'dialog'), 'focus stays in the export dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    app.assertNoProblems();
  });

  it('deleting a conversation takes it out of the search results on screen', async () => {
    const { page } = app;
    await openFromSidebar(page, 'demo-grepline-clap');
    await sidebar(page).getByRole('button', { name: `Search project ${grepline.name}` }).click();
    const before = await searchInPanel(page, 'search', 'keyword');
    assert.ok(before.hits.some((h) => h.sessionId === 'demo-grepline-perf'), `the perf conversation is a hit: ${JSON.stringify(before.hits)}`);
    const menu = await openMoveMenu(page, { contextMenuOf: 'demo-grepline-perf' });
    await menu.getByRole('menuitem', { name: /^Delete…/ }).click();
    await page.getByRole('dialog', { name: 'Delete conversation?' }).getByRole('button', { name: 'Delete conversation' }).click();
    await waitForNotice(page, 'success', 'Deleted');
    await eventually('the deleted conversation to leave the results', async () => {
      assert.equal(await searchPanel(page).locator('button.hit[data-session-id="demo-grepline-perf"]').count(), 0);
      assert.notInclude((await searchPanel(page).textContent()) ?? '', 'Make search faster');
      assert.include((await searchPanel(page).locator('.search-status').textContent()) ?? '', 'for “search”');
    });
    app.assertNoProblems();
  });

  it('the project delete dialog counts conversations as the sidebar does; a refusal and a delete keep the focus off <body>', async () => {
    const { page } = app;
    const shown = Number((await group(page, grepline.id).locator('.count').first().textContent())?.trim());
    assert.equal(shown, 2, 'the sidebar counts the compressed conversation once');
    await page.getByRole('button', { name: `Actions for project ${grepline.name}` }).click();
    await page.getByRole('menu').getByRole('menuitem', { name: /^Delete…/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete project?' });
    assert.include(await dialog.textContent(), `It has ${shown} conversations`);
    await dialog.getByLabel(`Also delete its ${shown} conversations`).waitFor();
    await dialog.getByRole('button', { name: 'Delete project' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'still has conversations' }).waitFor();
    assert.ok(await focusIsInside(page, 'dialog'), 'after the refusal the focus is still in the dialog');
    await dialog.getByRole('checkbox').check();
    await dialog.getByRole('button', { name: 'Delete project' }).click();
    await waitForNotice(page, 'success', 'and its conversations');
    await eventually('the project to leave the sidebar', async () => assert.equal(await group(page, grepline.id).count(), 0));
    await page.waitForTimeout(300); // the sidebar's reload settles
    await eventually('the focus to be in the sidebar', async () => assert.ok(await focusIsInside(page, '.sidebar'), 'focus in the sidebar, not <body>'));
    app.assertNoProblems();
  });

  for (const [size, viewport] of [
    ['1280×800', DESKTOP],
    ['390×844', PHONE],
  ] as const) {
    it(`"Use with an agent" at ${size}: no command breaks inside an argument (e.g. at the hyphen of --session)`, async () => {
      const p = await openPage(browser, cleanup, viewport, viewport === PHONE ? { isMobile: true, hasTouch: true } : {});
      await openApp(p.page, server.url, '#/s/demo-scratch-docker');
      await p.page.locator('.conv-header').getByRole('button', { name: 'Use with an agent…' }).click();
      const dialog = p.page.getByRole('dialog', { name: /with an agent/ });
      for (const form of ['As this conversation', 'By folder']) {
        const radio = dialog.getByRole('radio', { name: form });
        if ((await radio.count()) > 0) await radio.check();
        await dialog.locator('pre[aria-label="Claude Code command"]').waitFor();
        assert.equal(await dialog.locator('pre').count(), 3, 'command, configuration and Claude Code blocks');
        assert.deepEqual(await brokenArguments(dialog), [], `${form}: arguments broken over two lines`);
      }
      await p.page.keyboard.press('Escape');
      p.assertNoProblems();
    });
  }

  it('390×844: opening a conversation from the drawer with the keyboard moves the focus to it; Escape gives it to the drawer toggle', async () => {
    const p = await openPage(browser, cleanup, PHONE, { isMobile: true, hasTouch: true });
    const { page } = p;
    await openApp(page, server.url);
    const toggle = page.getByRole('button', { name: 'Show projects' });
    await toggle.click();
    const row = page.locator('li.conv[data-session-id="demo-scratch-docker"] button.conv-open');
    await row.focus();
    await page.keyboard.press('Enter');
    await page.locator('h1.conv-heading').waitFor();
    await eventually('the focus to leave the closed drawer for the conversation', async () => assert.ok(await focusIsInside(page, '#main'), 'focus in the conversation, not <body>'));
    await page.getByRole('button', { name: 'Show projects' }).click();
    await row.focus();
    await page.keyboard.press('Escape');
    await eventually('the focus on the drawer toggle', async () =>
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Show projects'),
    );
    p.assertNoProblems();
  });

  it('390×844: a long title is clamped, not cut at the screen edge, and every header button is on screen', async () => {
    const p = await openPage(browser, cleanup, PHONE, { isMobile: true, hasTouch: true });
    const long = await server.rpc.call<{ id: string }>('session.create', {
      projectId: null,
      title: 'Postgres migration failed: column already exists on the production database after the hotfix',
      messages: [{ role: 'user', content: 'long title' }],
    });
    await openApp(p.page, server.url, `#/s/${long.id}`);
    const heading = p.page.locator('h1.conv-heading');
    await heading.waitFor();
    const h = await heading.evaluate((el) => ({ sw: el.scrollWidth, cw: el.clientWidth }));
    assert.isAtMost(h.sw, h.cw + 1, 'the title runs past its box (cut at the edge without an ellipsis)');
    for (const b of await p.page.locator('.conv-header-actions .btn').all()) {
      const box = await b.boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= PHONE.width, `${await b.textContent()} at ${JSON.stringify(box)}`);
    }
    p.assertNoProblems();
  });
});
