/**
 * Driving the desktop UI the way a person does — by role, label and visible text — plus the few
 * data attributes the UI exposes for addressing (data-project-id on a sidebar group,
 * data-session-id on a conversation row / message / search hit, data-message-id, data-testid on
 * the project badge, search scope and status pills). Every wait is bounded.
 */
import type { Locator, Page, Response } from 'playwright-core';
import { assert } from 'vitest';
import { entryUrl } from './gateway.js';
import type { SearchHit, SearchResult } from './rpc.js';
import { eventually } from './wait.js';

export type Mode = 'hybrid' | 'keyword' | 'semantic';

export const sidebar = (page: Page): Locator => page.locator('nav[aria-label="Projects and conversations"]');
/** A project group (or the "No project" group for null) of the sidebar, by stored project id. */
export const group = (page: Page, projectId: string | null): Locator =>
  page.locator(`section.group[data-project-id="${projectId ?? ''}"]`);
/** The sidebar row of a conversation, by its (head) session id. */
export const convRow = (page: Page, sessionId: string): Locator => page.locator(`li.conv[data-session-id="${sessionId}"]`);
export const conversationPane = (page: Page): Locator => page.locator('section.conversation[aria-label="Conversation"]');
export const searchPanel = (page: Page): Locator => page.locator('section[aria-label="Search"]');
export const indexPanel = (page: Page): Locator => page.locator('section[aria-label="Index"]');

/** Opens the UI and waits until projects are loaded and the event socket is live. */
export async function openApp(page: Page, url: string, hash = ''): Promise<void> {
  // A new browser context has no session yet: it enters through a launch URL, like a user.
  await page.goto(await entryUrl(page.context(), url, hash));
  await sidebar(page).getByRole('heading', { name: 'Projects', includeHidden: true }).waitFor({ state: 'attached' });
  await page.locator('.live.live-open').waitFor({ state: 'attached', timeout: 15_000 });
  await eventually('the sidebar to finish loading', async () => {
    assert.equal(await sidebar(page).getByText('Loading projects…').count(), 0);
  });
}

/** The session id of the conversation shown, from the URL hash (#/s/<id>[/m/<n>]). */
export async function openSessionId(page: Page): Promise<string | null> {
  const hash = await page.evaluate(() => location.hash);
  const m = /^#\/s\/([^/]+)/.exec(hash);
  return m?.[1] ? decodeURIComponent(m[1]) : null;
}

export async function waitForOpenSession(page: Page, sessionId?: string): Promise<string> {
  return eventually(`conversation ${sessionId ?? '(any)'} to open`, async () => {
    const id = await openSessionId(page);
    assert.ok(id, 'no conversation route');
    if (sessionId) assert.equal(id, sessionId);
    await conversationPane(page).locator('h1.conv-heading').waitFor({ state: 'visible', timeout: 2_000 });
    assert.equal(await conversationPane(page).getByText('Loading conversation…').count(), 0);
    return id;
  });
}

/** "New project" in the sidebar → the dialog → "Create project". */
export async function createProjectViaUi(page: Page, name: string, folder?: string): Promise<void> {
  await sidebar(page).getByRole('button', { name: 'New project', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'New project' });
  await dialog.getByLabel('Name', { exact: true }).fill(name);
  if (folder !== undefined) await dialog.getByLabel('Folder (optional)').fill(folder);
  await dialog.getByRole('button', { name: 'Create project' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await sidebar(page).getByRole('region', { name: `Project ${name}`, exact: true }).waitFor({ state: 'visible' });
}

/** Writes the first message of the open draft and saves it; returns the new conversation's id. */
export async function saveDraft(page: Page, firstMessage: string): Promise<string> {
  const draft = page.locator('section.conversation.draft');
  await draft.getByPlaceholder('Write the first message…').fill(firstMessage);
  await draft.getByRole('button', { name: 'Save conversation' }).click();
  const id = await waitForOpenSession(page);
  await messageWithText(page, firstMessage).waitFor({ state: 'visible' });
  return id;
}

/** The "+" of a project group: a draft in that project, showing the project it was started in. */
export async function newConversationInProject(page: Page, projectName: string, firstMessage: string): Promise<string> {
  await sidebar(page).getByRole('button', { name: `New conversation in ${projectName}`, exact: true }).click();
  const badge = page.getByTestId('draft-project');
  await eventually(`the draft to show project ${projectName}`, async () => assert.equal((await badge.textContent())?.trim(), projectName));
  return saveDraft(page, firstMessage);
}

/** Appends a user message to the open conversation through the composer. */
export async function addMessage(page: Page, text: string): Promise<void> {
  const pane = conversationPane(page);
  await pane.getByPlaceholder('Add a message to this conversation…').fill(text);
  await pane.getByRole('button', { name: 'Add message' }).click();
  await messageWithText(page, text).waitFor({ state: 'visible' });
}

export const messageWithText = (page: Page, text: string): Locator => page.locator('ol.messages > li.msg').filter({ hasText: text });

/** Clicks a conversation in the sidebar and waits for it to open. */
export async function openFromSidebar(page: Page, sessionId: string): Promise<void> {
  await convRow(page, sessionId).locator('button.conv-open').click();
  await waitForOpenSession(page, sessionId);
}

export async function shownProject(page: Page): Promise<string> {
  return ((await page.getByTestId('conversation-project').textContent()) ?? '').trim();
}

export interface PanelSearch {
  /** The exact params the UI sent. */
  params: Record<string, unknown>;
  /** The gateway's answer as the UI received it. */
  result: SearchResult;
  /** Hits as rendered (session id + message id of each result button). */
  hits: Array<{ sessionId: string; messageId: number }>;
}

function isSearchCall(res: Response): boolean {
  if (!res.url().endsWith('/rpc') || res.request().method() !== 'POST') return false;
  return (res.request().postData() ?? '').includes('"search.session_search"');
}

/** The result buttons currently rendered in the search panel. */
export async function renderedHits(page: Page): Promise<Array<{ sessionId: string; messageId: number }>> {
  return searchPanel(page)
    .locator('button.hit')
    .evaluateAll((els) =>
      els.map((el) => ({ sessionId: el.getAttribute('data-session-id') ?? '', messageId: Number(el.getAttribute('data-message-id')) })),
    );
}

/**
 * Types `query` in the search panel, picks `mode`, presses Search (or Enter) and waits for the
 * gateway's answer and for the panel to render exactly that answer.
 */
export async function searchInPanel(page: Page, query: string, mode: Mode = 'hybrid', submit: 'click' | 'enter' = 'click'): Promise<PanelSearch> {
  const panel = searchPanel(page);
  const input = panel.getByRole('searchbox');
  await input.fill(query);
  const radio = panel.getByRole('radio', { name: mode[0]!.toUpperCase() + mode.slice(1), exact: true });
  if (!(await radio.isChecked())) await radio.check();
  const answer = page.waitForResponse(isSearchCall, { timeout: 15_000 });
  if (submit === 'enter') await input.press('Enter');
  else await panel.getByRole('button', { name: 'Search', exact: true }).click();
  const res = await answer;
  const body = JSON.parse(res.request().postData() ?? '{}') as { params?: Record<string, unknown> };
  const json = (await res.json()) as { result?: SearchResult; error?: unknown };
  assert.ok(json.result, `search.session_search failed: ${JSON.stringify(json.error)}`);
  const result = json.result;
  const expected = (result.results ?? []).map((h: SearchHit) => `${h.session_id}#${h.message_id}`).sort();
  const hits = await eventually('the search panel to render the answer', async () => {
    const status = (await panel.locator('.search-status').textContent()) ?? '';
    assert.include(status, `for “${query}”`);
    const shown = await renderedHits(page);
    assert.deepEqual(shown.map((h) => `${h.sessionId}#${h.messageId}`).sort(), expected);
    assert.equal(await panel.getByTestId('search-stale').count(), 0, 'results marked as stale');
    return shown;
  });
  return { params: body.params ?? {}, result, hits };
}

/** Clicks the rendered result for (sessionId, messageId) and waits for the anchor to open highlighted. */
export async function openHit(page: Page, sessionId: string, messageId: number): Promise<Locator> {
  await searchPanel(page).locator(`button.hit[data-session-id="${sessionId}"][data-message-id="${messageId}"]`).click();
  return expectAnchorHighlighted(page, sessionId, messageId);
}

export async function expectAnchorHighlighted(page: Page, sessionId: string, messageId: number): Promise<Locator> {
  await waitForOpenSession(page, sessionId);
  const hash = await page.evaluate(() => location.hash);
  assert.equal(hash, `#/s/${encodeURIComponent(sessionId)}/m/${messageId}`);
  const msg = page.locator(`li.msg#m-${messageId}`);
  await eventually(`message ${messageId} to be highlighted and in view`, async () => {
    assert.equal(await msg.getAttribute('data-session-id'), sessionId);
    assert.include((await msg.getAttribute('class')) ?? '', 'highlight');
    const inView = await msg.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const scroller = el.closest('.messages-scroll')?.getBoundingClientRect();
      const top = Math.max(0, scroller?.top ?? 0);
      const bottom = Math.min(window.innerHeight, scroller?.bottom ?? window.innerHeight);
      return r.bottom > top && r.top < bottom;
    });
    assert.ok(inView, 'anchor message is not scrolled into view');
  });
  return msg;
}

/** Opens the move menu of the open conversation (header "Move…") or of a sidebar row (right click). */
export async function openMoveMenu(page: Page, how: { header: true } | { contextMenuOf: string }): Promise<Locator> {
  if ('header' in how) {
    await conversationPane(page).locator('.conv-header').getByRole('button', { name: 'Move…', exact: true }).click();
  } else {
    await convRow(page, how.contextMenuOf).locator('button.conv-open').click({ button: 'right' });
  }
  const menu = page.getByRole('menu');
  await menu.waitFor({ state: 'visible' });
  return menu;
}

/** Picks a target project in an open move menu. */
export async function chooseMoveTarget(menu: Locator, projectName: string): Promise<void> {
  await menu
    .getByRole('group', { name: 'Move to project' })
    .getByRole('menuitem')
    .filter({ has: menu.page().locator('.menu-label', { hasText: new RegExp(`^${projectName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) })
    .click();
}

/** Waits for a notice (toast) of `kind` whose text contains `text`, and returns its full text. */
export async function waitForNotice(page: Page, kind: 'success' | 'error', text: string | RegExp): Promise<string> {
  const n = page.locator(`.notices .notice.${kind}`).filter({ hasText: text }).last();
  await n.waitFor({ state: 'visible' });
  return ((await n.textContent()) ?? '').trim();
}

/** Dismisses every notice still shown (errors stay until dismissed, as they should; successes fade). */
export async function dismissNotices(page: Page): Promise<void> {
  const notices = page.locator('.notices .notice');
  for (let attempt = 0; attempt < 10 && (await notices.count()) > 0; attempt++) {
    // A success notice may fade on its own between count() and click(): a short bound, then look again.
    await notices
      .first()
      .getByRole('button', { name: 'Dismiss' })
      .click({ timeout: 1_000 })
      .catch(() => undefined);
  }
  await notices.first().waitFor({ state: 'detached', timeout: 2_000 });
}
