/**
 * The served Content-Security-Policy allows no inline script and no inline style, and the UI needs
 * neither: a real `recall serve` and Chromium, the header of the page as the browser received it,
 * then a walk through the main views — sidebar with a coloured project, a conversation, search and
 * an opened hit, the move menu and a context menu (positioned by React `style` props), the Index
 * tab, the New project and "Use with an agent" dialogs, the phone layout and its panes — with every
 * `securitypolicyviolation` recorded (support/browser.ts) and none allowed. A control page injects
 * a `<style>` element and a `style="…"` attribute to show that the policy and the listener bite.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import { DESKTOP, launchBrowser, openPage, PHONE, type AppPage } from './support/browser.js';
import { Cleanup } from './support/cleanup.js';
import { entryUrl, startRecallServer, type RecallServer } from './support/gateway.js';
import type { Project, Session } from './support/rpc.js';
import { conversationPane, group, indexPanel, openApp, openHit, openMoveMenu, searchInPanel, searchPanel, sidebar, waitForOpenSession } from './support/ui.js';

const EXPECTED_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const violations = (page: Page): Promise<string[]> => page.evaluate(() => [...((window as unknown as { __cspViolations?: string[] }).__cspViolations ?? [])]);

describe('Content-Security-Policy without inline style', () => {
  const cleanup = new Cleanup();
  let server: RecallServer;
  let browser: Browser;
  let alpha: Project;
  let conv: Session;

  beforeAll(async () => {
    server = await startRecallServer(cleanup);
    browser = await launchBrowser(cleanup);
    alpha = await server.rpc.call<Project>('projects.create', { name: 'Alpha', color: '#d9480f' });
    await server.rpc.call<Project>('projects.create', { name: 'Beta', color: 'teal' });
    conv = await server.rpc.call<Session>('session.create', {
      projectId: alpha.id,
      title: 'Styled history',
      messages: [
        { role: 'user', content: 'Where is the `<style>` tag in this *Markdown*? <span style="color:red">red</span>' },
        { role: 'assistant', content: '```css\nbody { color: red }\n```\nThe lighthouse keeper logs every storm.' },
      ],
    });
    await server.rpc.call<Session>('session.create', { projectId: alpha.id, title: 'Storm log', messages: [{ role: 'user', content: 'The lighthouse keeper logged a storm on Tuesday.' }] });
  });

  afterAll(async () => {
    await cleanup.run();
  });

  it('the page arrives with the exact policy: no unsafe-inline, no nonce or hash', async () => {
    const app = await openPage(browser, cleanup, DESKTOP);
    const response = await app.page.goto(await entryUrl(app.context, server.url));
    assert.ok(response, 'a navigation response');
    const policy = response.headers()['content-security-policy'];
    assert.equal(policy, EXPECTED_POLICY);
    assert.notMatch(policy!, /unsafe-|nonce-|sha\d+-/);
  });

  it('clicking through the main views reports no violation, and React style props still apply', async () => {
    const app: AppPage = await openPage(browser, cleanup, DESKTOP);
    const { page } = app;
    await openApp(page, server.url);
    // Sidebar: the project's colour swatch is a React style prop.
    const swatch = group(page, alpha.id).locator('.swatch').first();
    await swatch.waitFor({ state: 'attached' });
    assert.equal(await swatch.evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(217, 72, 15)', 'the swatch colour applied');
    // A conversation with Markdown (its inline HTML is never rendered).
    await page.goto(`${server.url}#/s/${conv.id}`);
    await waitForOpenSession(page, conv.id);
    await conversationPane(page).locator('.code-block pre').waitFor({ state: 'visible' });
    // Search and an opened hit.
    const { hits } = await searchInPanel(page, 'lighthouse storm', 'keyword');
    assert.isAbove(hits.length, 0);
    await openHit(page, hits[0]!.sessionId, hits[0]!.messageId);
    // The move menu is positioned by a React style prop (left/top).
    const menu = await openMoveMenu(page, { header: true });
    const placed = await menu.evaluate((el) => ({ inline: (el as HTMLElement).style.top, computed: getComputedStyle(el).top }));
    assert.notEqual(placed.inline, '', 'the menu has a position');
    assert.equal(placed.computed, placed.inline, 'the inline position applied');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden' });
    // A project's context menu, and "Use with an agent" from it.
    await group(page, alpha.id).getByRole('button', { name: 'Actions for project Alpha' }).click();
    await page.getByRole('menuitem', { name: /Use with an agent/ }).click();
    const agent = page.getByRole('dialog');
    await agent.waitFor({ state: 'visible' });
    await agent.getByRole('button', { name: 'Done' }).click();
    await agent.waitFor({ state: 'hidden' });
    // The New project dialog.
    await sidebar(page).getByRole('button', { name: 'New project', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'New project' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // The Index tab.
    await page.getByRole('tab', { name: 'Index' }).click();
    await indexPanel(page).waitFor({ state: 'visible' });
    await page.getByRole('tab', { name: 'Search' }).click();
    await searchPanel(page).waitFor({ state: 'visible' });
    // The phone layout: drawer and panes.
    await page.setViewportSize(PHONE);
    await page.getByRole('button', { name: 'Show projects' }).click();
    await sidebar(page).waitFor({ state: 'visible' });
    await page.getByRole('button', { name: 'Hide projects' }).click();
    assert.deepEqual(await violations(page), []);
    app.assertNoProblems();
  });

  it('control: an injected <style> element and style attribute are refused and reported', async () => {
    const app = await openPage(browser, cleanup, DESKTOP);
    const { page } = app;
    await openApp(page, server.url);
    const applied = await page.evaluate(() => {
      const style = document.createElement('style');
      style.textContent = 'body { --probe: injected-sheet }';
      document.head.append(style);
      const div = document.createElement('div');
      div.setAttribute('style', '--probe: injected-attribute');
      document.body.append(div);
      return { body: getComputedStyle(document.body).getPropertyValue('--probe'), div: getComputedStyle(div).getPropertyValue('--probe') };
    });
    assert.deepEqual(applied, { body: '', div: '' }, 'neither inline style applied');
    const seen = await (async () => {
      // Violation events are dispatched as a task after the refusal: wait for both, bounded.
      for (let i = 0; i < 50; i++) {
        const v = await violations(page);
        if (v.length >= 2) return v;
        await new Promise((r) => setTimeout(r, 100));
      }
      return violations(page);
    })();
    assert.equal(seen.length, 2, seen.join('\n'));
    assert.isTrue(seen.every((v) => v.includes('style-src')), seen.join('\n'));
  });
});
