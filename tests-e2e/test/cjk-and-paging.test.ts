/**
 * Long and many conversations, as a user meets them (issue 14): a 5,000-message conversation opens
 * at its newest turn, an anchor deep inside it opens directly (never "deleted or rewound"), earlier
 * pages load on request; a profile with 3,000 newer sessions elsewhere still shows an old project's
 * conversations and folds a continuation that is older than the cut; a group shows its real size
 * and pages with "Show more"; a conversation opened by link is listed and scrolled into view in the
 * sidebar. Also: Chinese renders with real glyphs (fonts-noto-cjk), not as missing-glyph boxes.
 */
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { pageScroll } from './support/layout.js';
import { DESKTOP, launchBrowser, openPage, type AppPage } from './support/browser.js';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer, type RecallServer } from './support/gateway.js';
import { conversationPane, convRow, group, openApp, sidebar, waitForOpenSession } from './support/ui.js';
import { eventually } from './support/wait.js';

const LONG = 'long-conv';
const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

/** recall-jsonl v1: project "Many" with 3,000 conversations newer than everything in "Old". */
function manyJsonl(): string {
  const lines: object[] = [
    { kind: 'project', id: 'p_many', name: 'Many' },
    { kind: 'project', id: 'p_old', name: 'Old' },
    { kind: 'session', id: 'old-root', project_id: 'p_old', title: 'Old root conversation', started_at: iso(T0) },
    { kind: 'message', session_id: 'old-root', external_id: 'old-root:1', role: 'user', content: 'the first part', created_at: iso(T0 + 1000) },
  ];
  for (let i = 0; i < 3000; i++) {
    const at = T0 + 86_400_000 + i * 60_000;
    lines.push({ kind: 'session', id: `many-${i}`, project_id: 'p_many', title: `Many ${String(i).padStart(4, '0')}`, started_at: iso(at) });
  }
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

function longJsonl(): string {
  const lines: object[] = [{ kind: 'session', id: LONG, project_id: 'p_old', title: 'Five thousand turns', started_at: iso(T0) }];
  for (let i = 0; i < 5000; i++) {
    lines.push({ kind: 'message', session_id: LONG, external_id: `${LONG}:${i}`, role: i % 2 ? 'assistant' : 'user', content: `turn ${i}`, created_at: iso(T0 + 2000 + i) });
  }
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

describe('long and many conversations; CJK glyphs', () => {
  const cleanup = new Cleanup();
  let server: RecallServer;
  let browser: Browser;
  let app: AppPage;
  let continuationId: string;
  let longIds: number[];

  beforeAll(async () => {
    server = await startRecallServer(cleanup);
    for (const text of [manyJsonl(), longJsonl()]) {
      const r = await server.rpc.call<{ errorCount: number; errors: unknown[] }>('import.jsonl', { text });
      assert.equal(r.errorCount, 0, JSON.stringify(r.errors.slice(0, 3)));
    }
    // The old conversation continues (compressed): the continuation is newer than the 3,000 but its
    // root is older than all of them — it must stay ONE conversation in "Old".
    continuationId = (await server.rpc.call<{ session: { id: string } }>('session.compress', { sessionId: 'old-root', note: 'continued later' })).session.id;
    const page = await server.rpc.call<{ messages: { id: number }[] }>('session.messages', { sessionId: LONG, limit: 10_000 });
    longIds = page.messages.map((m) => m.id);
    assert.equal(longIds.length, 5000);
    browser = await launchBrowser(cleanup);
    app = await openPage(browser, cleanup, DESKTOP);
    await openApp(app.page, server.url);
  });

  afterAll(async () => {
    await cleanup.run();
  });

  it('Chinese renders with real glyphs, not missing-glyph boxes', async () => {
    // Draw 中, 文 and a code point no font has; with no CJK font all three are the same box.
    const pixels = await app.page.evaluate(() => {
      const draw = (ch: string) => {
        const c = document.createElement('canvas');
        c.width = 64;
        c.height = 64;
        const g = c.getContext('2d')!;
        g.font = '48px sans-serif';
        g.fillText(ch, 4, 52);
        return { data: Array.from(g.getImageData(0, 0, 64, 64).data).join(','), width: g.measureText(ch).width };
      };
      return { zhong: draw('中'), wen: draw('文'), missing: draw('\u{10FFFD}') };
    });
    assert.notEqual(pixels.zhong.data, pixels.wen.data, '中 and 文 are drawn identically: no CJK font (install fonts-noto-cjk)');
    assert.notEqual(pixels.zhong.data, pixels.missing.data, '中 is drawn as the missing-glyph box');
    assert.ok(Math.abs(pixels.zhong.width - 48) < 4, `中 should be one em wide, was ${pixels.zhong.width}`);
  });

  it('an old project is not empty although 3,000 newer conversations exist; its continuation is not a separate entry', async () => {
    const { page } = app;
    const old = group(page, 'p_old');
    await eventually('the old project to list its conversations', async () => {
      assert.equal(await old.locator('li.conv').count(), 2);
    });
    // One entry for old-root + its continuation (opened as the head), and the long conversation.
    assert.equal(await old.locator(convRow(page, continuationId)).count(), 1);
    assert.equal(await sidebar(page).locator('li.conv[data-conversation-key="old-root"]').count(), 1);
    assert.equal((await old.locator('.group-name + .count').textContent())?.trim(), '2');
  });

  it('a group shows its real size and pages with "Show more"', async () => {
    const { page } = app;
    const many = group(page, 'p_many');
    assert.equal((await many.locator('.count').first().textContent())?.trim(), '3,000');
    assert.equal(await many.locator('li.conv').count(), 50);
    await many.getByRole('button', { name: /Show more \(2,950 older\)/ }).click();
    await eventually('the next page', async () => {
      assert.equal(await many.locator('li.conv').count(), 100);
    });
    assert.equal(await many.locator(convRow(page, 'many-2900')).count(), 1);
  });

  it('a conversation opened by link is listed and scrolled into view in the sidebar', async () => {
    const { page } = app;
    await page.goto(`${server.url}#/s/many-5`);
    await waitForOpenSession(page, 'many-5');
    const row = convRow(page, 'many-5');
    await eventually('the linked conversation to be listed', async () => {
      assert.equal(await row.count(), 1);
    });
    await eventually('its row to be in view', async () => {
      const box = await row.boundingBox();
      assert.ok(box && box.y >= 0 && box.y + box.height <= DESKTOP.height - 20, `row at ${JSON.stringify(box)}`);
    });
    assert.equal(await row.getAttribute('class').then((c) => c?.includes('active')), true);
    // Only the sidebar scrolled: the page itself cannot scroll, so a scroll of the document here
    // would push the top bar out of sight with no way back.
    assert.deepEqual(await pageScroll(page), { scrollTop: 0, overflow: 0 });
  });

  it('a 5,000-message conversation opens at its newest turn and pages back on request', async () => {
    const { page } = app;
    await page.goto(`${server.url}#/s/${LONG}`);
    await waitForOpenSession(page, LONG);
    const pane = conversationPane(page);
    await pane.locator(`li#m-${longIds[4999]}`).waitFor({ state: 'visible' });
    assert.equal(await pane.locator(`li#m-${longIds[0]}`).count(), 0);
    const shown = await pane.locator('ol.messages > li').count();
    assert.equal(shown, 200);
    await pane.getByTestId('load-older').click();
    await eventually('an earlier page', async () => {
      assert.equal(await pane.locator('ol.messages > li').count(), 400);
    });
    // What the reader looked at stays in view: the newest page's first message is still visible-ish.
    assert.equal(await pane.locator(`li#m-${longIds[4600]}`).count(), 1);
  });

  it('an anchor deep inside opens directly and is highlighted, not "deleted or rewound"', async () => {
    const { page } = app;
    const anchor = longIds[2500]!;
    await page.goto(`${server.url}#/s/${LONG}/m/${anchor}`);
    const target = conversationPane(page).locator(`li#m-${anchor}`);
    await target.waitFor({ state: 'visible' });
    await eventually('the anchor to be highlighted', async () => {
      assert.match((await target.getAttribute('class')) ?? '', /highlight/);
    });
    assert.equal(await page.getByText(/may have been deleted or rewound/).count(), 0);
    await conversationPane(page).getByTestId('load-newer').waitFor({ state: 'visible' });
    // A message that really is gone is reported as such.
    await server.rpc.call('session.delete', { messageId: longIds[100] });
    await page.goto(`${server.url}#/s/${LONG}/m/${longIds[100]}`);
    await page.getByText(/may have been deleted or rewound/).waitFor({ state: 'visible' });
    app.assertNoProblems();
  });
});
