/**
 * Issue 20.12, the semantic status told truthfully with the built-in English-only model configured
 * (`provider: "use-lite"`, nothing leaves the machine): before any project is switched on the
 * badge and the Index tab's dot say "no project on", not "disabled"; switching on the mostly
 * Chinese demo project warns in the consent dialog that this model cannot read its language
 * (index.status `cjkShare`), an English project gets no such warning, Escape returns the focus to
 * the switch, and once on the project's status chip keeps the warning. Screenshots at 1280×800.
 */
import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import { DESKTOP, launchBrowser, openPage, type AppPage } from './support/browser.js';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer, type RecallServer } from './support/gateway.js';
import { DEMO_JSONL } from './support/paths.js';
import { saveScreenshot } from './support/screenshots.js';
import { indexPanel, openApp } from './support/ui.js';
import { eventually } from './support/wait.js';

describe('semantic status with the English-only built-in model (issue 20.12)', () => {
  const cleanup = new Cleanup();
  let server: RecallServer;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    server = await startRecallServer(cleanup, { config: { semantic: { enabled: true, provider: 'use-lite' } } });
    browser = await launchBrowser(cleanup);
    const imported = await server.rpc.call<{ errorCount: number }>('import.jsonl', { text: await readFile(DEMO_JSONL, 'utf8') });
    assert.equal(imported.errorCount, 0);
    app = await openPage(browser, cleanup, DESKTOP);
    await openApp(app.page, server.url);
  });

  afterAll(async () => {
    await cleanup.run();
  });

  it('index.status reports the CJK share only for the English-only model', async () => {
    const status = await server.rpc.indexStatus();
    assert.equal(status.semantic.provider?.languages, 'english-only');
    const share = Object.fromEntries(status.semantic.projects.map((p) => [p.projectId, (p as { cjkShare?: number | null }).cjkShare]));
    assert.isAbove(share.p_demo_recipes ?? 0, 0.3, 'the recipes project is mostly Chinese');
    assert.isBelow(share.p_demo_tidy ?? 1, 0.3, 'Tidy Tasks is English');
  });

  it('configured, no project on: "no project on", never "disabled"', async () => {
    const { page } = app;
    await eventually('the dot', async () => assert.equal(await page.getByTestId('index-dot').getAttribute('aria-label'), 'semantic index: no project on'));
    await page.locator('#tab-index').click();
    const panel = indexPanel(page);
    await eventually('the pill', async () => assert.equal((await panel.getByTestId('index-semantic-status').textContent())?.trim(), 'no project on'));
    app.assertNoProblems();
  });

  it('consent warns about the language on the Chinese project only; Escape returns to the switch', async () => {
    const { page } = app;
    const panel = indexPanel(page);
    const tidy = panel.getByRole('switch', { name: 'Semantic search for Tidy Tasks (web app)' });
    await tidy.click();
    let dialog = page.getByRole('dialog', { name: /Switch on semantic search/ });
    await dialog.waitFor();
    assert.equal(await dialog.getByTestId('consent-language-warning').count(), 0, 'no warning for an English project');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    const recipes = panel.getByRole('switch', { name: /Semantic search for 家常菜谱小程序/ });
    await recipes.focus();
    await page.keyboard.press('Enter');
    dialog = page.getByRole('dialog', { name: /Switch on semantic search/ });
    await dialog.waitFor();
    assert.include(await dialog.getByTestId('consent-language-warning').textContent(), 'cannot read');
    await saveScreenshot(page, 'consent-language-warning-1280.png');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await eventually('focus back on the switch', async () =>
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? ''), 'Semantic search for 家常菜谱小程序'),
    );
    // Switched on anyway: its status chip keeps saying so.
    await recipes.click();
    await dialog.getByRole('button', { name: 'Switch on' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await panel.locator('[data-project-id="p_demo_recipes"]').getByTestId('index-language-warning').waitFor();
    await saveScreenshot(page, 'index-language-warning-1280.png');
    app.assertNoProblems();
  });
});
