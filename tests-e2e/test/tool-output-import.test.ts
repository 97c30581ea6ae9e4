/**
 * Issue 20.1: imported tool output reads as tool output. Claude Code, Codex and Hermes histories
 * with shell calls (packages/importers/test/fixtures/tool-output) are imported with the real
 * `recall import --from …` into a running `recall serve`; each conversation then shows its calls
 * once (no raw `Bash {"command":…}` JSON in the text), every output as a collapsed plain block that
 * opens to monospace text with long output folded, and the error style only on the output the tool
 * itself reported as failed — never the search card's `unreadable_result` badge. Screenshots at
 * 1280×800 and 390×844.
 */
import { spawn } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import { hermesDb } from '@recall/config/source-fixtures';
import { DESKTOP, launchBrowser, openPage, PHONE } from './support/browser.js';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer, tempDir, type RecallServer } from './support/gateway.js';
import { CLI_PATH, REPO_ROOT } from './support/paths.js';
import { saveScreenshot } from './support/screenshots.js';
import { conversationPane, openApp, waitForOpenSession } from './support/ui.js';

const FIXTURES = join(REPO_ROOT, 'packages/importers/test/fixtures/tool-output');

function recall(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!/^(RECALL_|OPENAI_)/.test(k)) env[k] = v;
    const child = spawn(process.execPath, [CLI_PATH, ...args], { cwd: REPO_ROOT, env: { ...env, NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

const CASES = [
  { source: 'claude-code', session: '7c1d2e3f-0000-4000-8000-0000000e0001', callText: 'Bash {"command"', command: "grep -rn 'export function helper' src/lib", longLines: 40, failed: "expected 'zq-2' to be 'zq-1'" },
  { source: 'codex', session: '019a0b1c-0000-7000-8000-0000000e0002', callText: 'shell {"command"', command: 'ls crates/core/src', longLines: 30, failed: 'unresolved import' },
  { source: 'hermes', session: '20251002_110000_tt01', callText: 'terminal {"command"', command: 'ls deploy/ && cat deploy/otter.yaml', longLines: null, failed: 'otterdeploy' },
] as const;

/** The rendered tool outputs of the open conversation. */
function outputs(page: Page) {
  return conversationPane(page).locator('[data-testid="tool-output"]');
}

describe('imported tool output (issue 20.1)', () => {
  const cleanup = new Cleanup();
  let server: RecallServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startRecallServer(cleanup);
    browser = await launchBrowser(cleanup);
    const dir = await tempDir(cleanup, 'recall-e2e-tools-');
    for (const source of ['claude-code', 'codex'] as const) {
      cpSync(join(FIXTURES, source), join(dir, source), { recursive: true });
      const r = await recall(['import', '--from', source, join(dir, source), '--project-per-folder', '--home', server.home]);
      assert.equal(r.code, 0, r.stderr);
    }
    const db = hermesDb(join(dir, 'hermes', 'state.db'), readFileSync(join(FIXTURES, 'hermes', 'state.sql'), 'utf8'));
    const r = await recall(['import', '--from', 'hermes', db, '--project-per-folder', '--home', server.home]);
    assert.equal(r.code, 0, r.stderr);
  });

  afterAll(async () => {
    await cleanup.run();
  });

  for (const c of CASES) {
    it(`${c.source}: calls shown once, outputs as folded plain blocks, error style only on the failed one`, async () => {
      const app = await openPage(browser, cleanup, DESKTOP);
      const { page } = app;
      await openApp(page, server.url, `#/s/${encodeURIComponent(c.session)}`);
      await waitForOpenSession(page, c.session);
      const pane = conversationPane(page);
      await outputs(page).first().waitFor();
      // No search card, no "unreadable_result", no raw call JSON in the text.
      assert.equal(await pane.locator('details.tool-card').count(), 0, 'a plain output rendered as a search card');
      assert.notInclude((await pane.textContent()) ?? '', 'unreadable_result');
      assert.notInclude((await pane.locator('.msg-body').allTextContents()).join('\n'), c.callText, 'the call JSON repeated in the text');
      // The call is shown once, as its command.
      assert.include((await pane.locator('ul.calls').allTextContents()).join('\n'), c.command);
      // Two outputs, collapsed; only the failed one in the error style.
      assert.equal(await outputs(page).count(), 2);
      const failed = outputs(page).filter({ has: page.locator('[data-testid="tool-failed"]') });
      assert.equal(await failed.count(), 1, 'exactly the failed output is marked');
      assert.equal(await failed.getAttribute('data-failed'), 'true');
      assert.equal(await outputs(page).and(page.locator('[data-failed="true"]')).count(), 1, 'one output in the error style');
      for (const o of await outputs(page).all()) assert.isFalse(await o.evaluate((d) => (d as HTMLDetailsElement).open), 'stored outputs start collapsed');
      // Opened: monospace text; the failed one shows its message.
      await failed.locator('summary').click();
      assert.include(await failed.locator('pre').textContent(), c.failed);
      const ok = outputs(page).and(page.locator('[data-failed="false"]'));
      await ok.locator('summary').click();
      const pre = ok.locator('pre');
      assert.match(await pre.evaluate((el) => getComputedStyle(el).fontFamily), /mono|Menlo|Consolas/i);
      if (c.longLines !== null) {
        // Long output folded to its first lines until "Show all".
        const shown = ((await pre.textContent()) ?? '').split('\n').length;
        assert.isBelow(shown, c.longLines, 'long output is folded');
        await ok.getByRole('button', { name: `Show all ${c.longLines} lines` }).click();
        assert.equal(((await pre.textContent()) ?? '').split('\n').length, c.longLines);
      }
      await saveScreenshot(page, `tool-output-${c.source}-1280.png`);
      app.assertNoProblems();
    });
  }

  it('390×844: the outputs fit the phone screen', async () => {
    const app = await openPage(browser, cleanup, PHONE, { isMobile: true, hasTouch: true });
    const { page } = app;
    const c = CASES[0];
    await openApp(page, server.url, `#/s/${encodeURIComponent(c.session)}`);
    await waitForOpenSession(page, c.session);
    const first = outputs(page).first();
    await first.locator('summary').click();
    const box = await first.boundingBox();
    assert.ok(box);
    assert.isAtMost(box.x + box.width, PHONE.width + 1, 'the output block fits the width');
    await saveScreenshot(page, 'tool-output-claude-code-390.png');
    app.assertNoProblems();
  });
});
