/**
 * The desktop as a first-time user meets it (issue 14), on the demo history: Markdown rendered
 * safely (code blocks with a copy button, no raw HTML, no javascript: links, a 200,000-character
 * message collapsed); search counts that agree with what is listed, extra matches that open;
 * notices that never cover the search results at 1280 px; Undo after a move; "New chat" inside a
 * project drafts there; "Use with an agent" with the exact `recall mcp` forms; a warning before a
 * duplicate project name and folders in the move menu; the model set-up help in words; at 390×844
 * most of the height is for the messages.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { DESKTOP, launchBrowser, openPage, PHONE } from './support/browser.js';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer, type RecallServer } from './support/gateway.js';
import { pageScroll } from './support/layout.js';
import { DEMO_JSONL } from './support/paths.js';
import type { Project } from './support/rpc.js';
import {
  chooseMoveTarget,
  conversationPane,
  convRow,
  expectAnchorHighlighted,
  group,
  openApp,
  openMoveMenu,
  searchInPanel,
  searchPanel,
  sidebar,
  waitForNotice,
  waitForOpenSession,
} from './support/ui.js';
import { eventually } from './support/wait.js';

const GREP = 'p_demo_grepline';
const TIDY = 'p_demo_tidy';

describe('desktop polish on the demo history', () => {
  const cleanup = new Cleanup();
  let server: RecallServer;
  let browser: Browser;
  let grepline: Project;
  let unsafeId: string;
  let hugeId: string;

  beforeAll(async () => {
    server = await startRecallServer(cleanup);
    browser = await launchBrowser(cleanup);
    const imported = await server.rpc.call<{ errorCount: number }>('import.jsonl', { text: await readFile(DEMO_JSONL, 'utf8') });
    assert.equal(imported.errorCount, 0);
    grepline = (await server.rpc.projects()).find((p) => p.id === GREP)!;
    unsafeId = (
      await server.rpc.call<{ id: string }>('session.create', {
        projectId: GREP,
        title: 'Markdown edge cases',
        messages: [
          { role: 'user', content: 'Raw <b id="raw-html">html</b> <img id="raw-img" src="x" onerror="window.__xss=1"> and [a trap](javascript:window.__xss=2) and [docs](https://example.com/docs)' },
          { role: 'assistant', content: 'Try:\n\n```sh\ncargo build --release\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |' },
        ],
      })
    ).id;
    hugeId = (await server.rpc.call<{ id: string }>('session.create', { projectId: GREP, title: 'A pasted log', messages: [{ role: 'user', content: 'x'.repeat(200_000) }] })).id;
  });

  afterAll(async () => {
    await cleanup.run();
  });

  it('messages render as safe Markdown; a 200,000-character message starts collapsed', async () => {
    const app = await openPage(browser, cleanup, DESKTOP);
    const { page } = app;
    await openApp(page, server.url, `#/s/${unsafeId}`);
    await waitForOpenSession(page, unsafeId);
    const pane = conversationPane(page);
    await pane.locator('.code-block pre').waitFor({ state: 'visible' });
    assert.match(await pane.locator('.code-block pre').evaluate((el) => getComputedStyle(el).fontFamily), /mono|Menlo|Consolas|Courier/i);
    assert.equal(await pane.locator('.code-block').getByRole('button', { name: 'Copy code' }).count(), 1);
    assert.equal(await pane.locator('table td').first().textContent(), '1');
    assert.equal(await pane.locator('#raw-html, #raw-img').count(), 0, 'raw HTML is never rendered');
    assert.equal(await pane.getByText('Raw <b id="raw-html">html</b>', { exact: false }).count(), 1, 'but shown as the text it is, not dropped');
    assert.equal(await pane.locator('a[href^="javascript"]').count(), 0);
    assert.equal(await pane.getByText('a trap').evaluate((el) => el.closest('a')), null, 'the javascript: link lost its link');
    assert.equal(await pane.getByRole('link', { name: 'docs' }).getAttribute('href'), 'https://example.com/docs');
    assert.isUndefined(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss));

    await page.goto(`${server.url}#/s/${hugeId}`);
    await waitForOpenSession(page, hugeId);
    const body = pane.locator('.msg-body.long');
    await body.waitFor({ state: 'visible' });
    assert.isBelow(((await body.locator('.preview').textContent()) ?? '').length, 2000, 'only a preview is laid out');
    await body.getByRole('button', { name: 'Show all (200,000 characters)' }).click();
    await body.locator('.plain-long').waitFor({ state: 'visible' });
    app.assertNoProblems();
  });

  it('search counts agree with the list; extra matches open; notices never cover results at 1280 px; Undo after a move', async () => {
    const app = await openPage(browser, cleanup, DESKTOP);
    const { page } = app;
    await openApp(page, server.url, '#/s/demo-grepline-clap');
    await waitForOpenSession(page, 'demo-grepline-clap');
    const s = await searchInPanel(page, 'borrow', 'keyword');
    const hits = s.result.results ?? [];
    const ids = new Set(hits.map((h) => `${h.session_id}:${h.message_id}`));
    for (const h of hits) for (const id of h.other_message_ids ?? []) ids.add(`${h.session_id}:${id}`);
    const sessions = new Set(hits.map((h) => h.session_id)).size;
    const status = ((await searchPanel(page).locator('.search-status').textContent()) ?? '').trim();
    assert.include(status, `${ids.size} matching messages in ${sessions} conversation`);
    // Every matching message appears exactly once: as a result, or as an openable extra.
    const extras = searchPanel(page).getByTestId('more-matches').locator('button');
    assert.equal(hits.length + (await extras.count()), ids.size);
    assert.isAbove(await extras.count(), 0, 'the demo has extra matches for "borrow"');
    const extra = extras.first();
    const extraId = Number(await extra.getAttribute('data-message-id'));
    const hitSession = hits.find((h) => (h.other_message_ids ?? []).includes(extraId))!.session_id;
    await extra.click();
    // The extra may live in another part (a compression continuation) of the same conversation.
    const opened = await eventually('the extra match to open', async () => {
      const m = /^#\/s\/([^/]+)\/m\/(\d+)$/.exec(await page.evaluate(() => location.hash));
      assert.ok(m && Number(m[2]) === extraId, 'not routed to the extra match');
      return decodeURIComponent(m[1]!);
    });
    const members = (await server.rpc.call<{ sessions: Array<{ id: string }> }>('conversations.get', { sessionId: hitSession })).sessions.map((x) => x.id);
    assert.include(members, opened);
    await expectAnchorHighlighted(page, opened, extraId);

    // A move while results are shown: its notice (with Undo) does not cover them.
    await page.goto(`${server.url}#/s/demo-grepline-clap`);
    await waitForOpenSession(page, 'demo-grepline-clap');
    await searchInPanel(page, 'borrow', 'keyword');
    await chooseMoveTarget(await openMoveMenu(page, { header: true }), 'Tidy Tasks (web app)');
    await waitForNotice(page, 'success', 'Moved to Tidy Tasks');
    const overlap = await page.evaluate(() => {
      const a = document.querySelector('.notices')!.getBoundingClientRect();
      const b = document.querySelector('.search')!.getBoundingClientRect();
      return a.right > b.left && a.left < b.right && a.bottom > b.top && a.top < b.bottom;
    });
    assert.isFalse(overlap, 'the notice covers the search panel');
    assert.equal((await server.rpc.session('demo-grepline-clap')).projectId, TIDY);
    await page.locator('.notices .notice.success').filter({ hasText: 'Moved to Tidy Tasks' }).getByRole('button', { name: 'Undo' }).click();
    await eventually('the move to be undone', async () => {
      assert.equal((await server.rpc.session('demo-grepline-clap')).projectId, GREP);
    });
    await eventually('the sidebar to show it back in grepline', async () => {
      assert.equal(await group(page, GREP).locator(convRow(page, 'demo-grepline-clap')).count(), 1);
    });
    app.assertNoProblems();
  });

  it('"New chat" inside a project drafts in that project', async () => {
    const app = await openPage(browser, cleanup, DESKTOP);
    const { page } = app;
    await openApp(page, server.url, '#/s/demo-grepline-clap');
    await waitForOpenSession(page, 'demo-grepline-clap');
    await sidebar(page).getByTestId('new-chat').click();
    await eventually('a draft in grepline', async () => {
      assert.equal((await page.getByTestId('draft-project').textContent())?.trim(), grepline.name);
    });
    app.assertNoProblems();
  });

  it('"Use with an agent" shows the exact recall mcp forms for a conversation and a project', async () => {
    const app = await openPage(browser, cleanup, DESKTOP);
    const { page } = app;
    await openApp(page, server.url, '#/s/demo-grepline-clap');
    await waitForOpenSession(page, 'demo-grepline-clap');
    await conversationPane(page).getByRole('button', { name: 'Use with an agent…' }).click();
    const dialog = page.getByRole('dialog');
    const command = () => dialog.getByLabel('command', { exact: true }).textContent();
    // Exact for this installation and home: node + bin/recall.js + mcp --home H + one scope flag.
    const { mcpCommand } = await server.rpc.call<{ mcpCommand: { command: string; args: string[] } }>('gateway.info');
    assert.deepEqual(mcpCommand.args.slice(1), ['mcp', '--home', server.home]);
    const line = (...scope: string[]) => [mcpCommand.command, ...mcpCommand.args, ...scope].join(' ');
    assert.equal(await command(), line('--session', 'demo-grepline-clap'));
    assert.deepEqual(JSON.parse((await dialog.getByLabel('configuration', { exact: true }).textContent()) ?? ''), {
      mcpServers: { recall: { command: mcpCommand.command, args: [...mcpCommand.args, '--session', 'demo-grepline-clap'] } },
    });
    await dialog.getByText('The whole project').click();
    assert.equal(await command(), line('--project', grepline.slug));
    await dialog.getByText('By folder').click();
    assert.equal(await command(), line('--cwd', '/home/dev/src/grepline'));
    await dialog.getByRole('button', { name: 'Done' }).click();

    await group(page, TIDY).getByRole('button', { name: 'Actions for project Tidy Tasks (web app)' }).click();
    await page.getByRole('menuitem', { name: /Use with an agent/ }).click();
    const tidy = (await server.rpc.projects()).find((p) => p.id === TIDY)!;
    assert.equal(await command(), line('--project', tidy.slug));
    app.assertNoProblems();
  });

  it('a duplicate project name is warned about; menus show folders', async () => {
    const app = await openPage(browser, cleanup, DESKTOP);
    const { page } = app;
    await openApp(page, server.url, '#/s/demo-grepline-clap');
    await waitForOpenSession(page, 'demo-grepline-clap');
    // Demo projects carry their folders: the demo's own folders are not offered as new projects.
    assert.equal(await sidebar(page).locator('section[aria-label="Suggested folders"] li[data-folder="/home/dev/src/grepline"]').count(), 0);
    await sidebar(page).getByRole('button', { name: 'New project', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'New project' });
    await dialog.getByLabel('Name', { exact: true }).fill('GREPLINE (Rust CLI)');
    assert.include(await dialog.getByTestId('dialog-warning').textContent(), 'already exists (folder …/src/grepline)');
    await dialog.getByLabel('Name', { exact: true }).fill('Something new');
    assert.equal(await dialog.getByTestId('dialog-warning').count(), 0);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    const menu = await openMoveMenu(page, { header: true });
    assert.include(await menu.getByRole('menuitem', { name: /Tidy Tasks/ }).textContent(), '…/src/tidy-tasks');
    await page.keyboard.press('Escape');
    app.assertNoProblems();
  });

  it('at 390×844 most of the height is for the messages; the model help is written for people', async () => {
    const app = await openPage(browser, cleanup, PHONE, { isMobile: true, hasTouch: true });
    const { page } = app;
    await openApp(page, server.url, '#/s/demo-grepline-clap');
    await waitForOpenSession(page, 'demo-grepline-clap');
    const share = await page.locator('.messages-scroll').evaluate((el) => el.getBoundingClientRect().height / window.innerHeight);
    assert.isAbove(share, 0.55, `messages get ${(share * 100).toFixed(0)} % of the height`);
    await page.getByText('No chat model configured').click();
    const steps = page.getByTestId('chat-howto-steps');
    await steps.waitFor({ state: 'visible' });
    assert.include(await steps.textContent(), 'Start a model server');
    assert.include(await steps.textContent(), 'http://127.0.0.1:11434/v1');
    await assertLinesDoNotOverlap(page.getByTestId('chat-howto'));
    app.assertNoProblems();
  });

  it('the model help at 1280 px: the gateway\'s exact settings wrap as text, their lines never overlap', async () => {
    const app = await openPage(browser, cleanup, DESKTOP);
    const { page } = app;
    await openApp(page, server.url, '#/s/demo-grepline-clap');
    await waitForOpenSession(page, 'demo-grepline-clap');
    await page.getByText('No chat model configured').click();
    const exact = page.getByTestId('chat-howto');
    await exact.waitFor({ state: 'visible' });
    await assertLinesDoNotOverlap(exact);
    app.assertNoProblems();
  });

  it('a conversation opened by link at the foot of the sidebar: only the sidebar scrolls, the top bar stays', async () => {
    // Last in this file: one more project with a folder pushes the last group's folder label below
    // the fold of 1280×800.
    const zeta = await server.rpc.call<Project>('projects.create', { name: 'Zeta', folders: ['/home/dev/src/zeta'] });
    for (let i = 0; i < 6; i++) await server.rpc.call('session.create', { projectId: zeta.id, title: `Zeta ${i}`, messages: [{ role: 'user', content: `zeta note ${i}` }] });
    const app = await openPage(browser, cleanup, DESKTOP);
    const { page } = app;
    await openApp(page, server.url, '#/s/demo-scratch-docker');
    await waitForOpenSession(page, 'demo-scratch-docker');
    const row = convRow(page, 'demo-scratch-docker');
    await eventually('its row to be in view', async () => {
      const box = await row.boundingBox();
      assert.ok(box && box.y >= 0 && box.y + box.height <= DESKTOP.height, `row at ${JSON.stringify(box)}`);
    });
    // A visually hidden label ("Folders: ") of a group below the fold made the document taller than
    // the viewport; scrolling the row into view then scrolled the page and hid the top bar.
    assert.deepEqual(await pageScroll(page), { scrollTop: 0, overflow: 0 });
    assert.equal((await page.locator('header.topbar').boundingBox())?.y, 0);
    app.assertNoProblems();
  });
});

/**
 * A wrapped inline element's line boxes (one client rect per line) must stack: padding or a
 * background on an inline span wrapped over several lines paints each line over its neighbours.
 */
async function assertLinesDoNotOverlap(locator: import('playwright-core').Locator): Promise<void> {
  const rects = await locator.evaluate((el) => [...el.getClientRects()].map((r) => ({ top: r.top, bottom: r.bottom })));
  assert.isAbove(rects.length, 0, 'rendered');
  for (let i = 1; i < rects.length; i++) {
    if (rects[i]!.top === rects[i - 1]!.top) continue; // pieces of one line
    assert.isAtLeast(rects[i]!.top, rects[i - 1]!.bottom - 0.5, `line ${i + 1} starts ${(rects[i - 1]!.bottom - rects[i]!.top).toFixed(1)} px inside line ${i}`);
  }
}
