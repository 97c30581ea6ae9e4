/**
 * Seed §6 A4 (stage A delivered on its own), driven through the real desktop UI in Chromium against a
 * real `recall serve`: projects P and Q with folders; history in P; a new conversation in P recalls
 * it (search panel → result → highlighted anchor); changing its working directory to Q's folder
 * keeps it in P; moving it to Q makes it findable from Q and no longer from P; an old no-project
 * conversation moved into P becomes findable from P. RPC is used only to check what was stored and
 * what the tool returns, and for the one thing the UI does not do (an assistant reply).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import { DESKTOP, launchBrowser, openPage, type AppPage } from './support/browser.js';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer, tempDir, type RecallServer } from './support/gateway.js';
import type { Browser } from 'playwright-core';
import {
  chooseMoveTarget,
  convRow,
  createProjectViaUi,
  group,
  newConversationInProject,
  openApp,
  openFromSidebar,
  openHit,
  openMoveMenu,
  saveDraft,
  searchInPanel,
  shownProject,
  waitForNotice,
  waitForOpenSession,
  type PanelSearch,
} from './support/ui.js';
import { eventually } from './support/wait.js';

const P = 'Pangolin';
const Q = 'Quetzal';

const OLD_TEXT = 'Legacy note: the ocelot cache is flushed every night at 02:00.';
const HISTORY_TEXT = 'Decision for invoices: export them with the marmoset checksum (CRC-32C). 发票导出统一使用 marmoset 校验。';
const HISTORY_REPLY = 'Agreed. The marmoset checksum is computed before the upload step and stored next to the file.';
const Q_TEXT = 'Quetzal retries failed jobs through the narwhal queue.';
const NEW_TEXT = 'Which checksum did we pick for invoice exports? (tag: wombat)';

describe('A4: project scope through the desktop UI', () => {
  const cleanup = new Cleanup();
  let server: RecallServer;
  let browser: Browser;
  let app: AppPage;
  let pFolder: string;
  let qFolder: string;

  beforeAll(async () => {
    server = await startRecallServer(cleanup);
    const ws = await tempDir(cleanup, 'recall-e2e-ws-');
    pFolder = join(ws, 'pangolin');
    qFolder = join(ws, 'quetzal');
    await mkdir(pFolder);
    await mkdir(qFolder);
    browser = await launchBrowser(cleanup);
    app = await openPage(browser, cleanup, DESKTOP);
  });

  afterAll(async () => {
    await cleanup.run();
  });

  const ids = (s: PanelSearch) => new Set(s.hits.map((h) => h.sessionId));

  it('P/Q history, recall in P, cwd change keeps P, move to Q, old no-project conversation moved into P', async () => {
    const { page } = app;
    const { rpc } = server;
    await openApp(page, server.url);

    // --- An "old" conversation without a project, from the empty first run.
    await page.getByRole('heading', { name: 'Welcome to Recall' }).waitFor();
    await page.getByRole('button', { name: 'New conversation (no project)' }).click();
    assert.equal((await page.getByTestId('draft-project').textContent())?.trim(), 'No project');
    const oldId = await saveDraft(page, OLD_TEXT);
    assert.equal((await rpc.session(oldId)).projectId, null, 'a conversation started without a project is stored with project NULL');
    await convRow(page, oldId).waitFor();
    assert.equal(await group(page, null).locator(convRow(page, oldId)).count(), 1, 'shown under "No project"');

    // --- Projects P and Q, each with a folder (folders are metadata).
    await createProjectViaUi(page, P, pFolder);
    await createProjectViaUi(page, Q, qFolder);
    const projects = await rpc.projects();
    const p = projects.find((x) => x.name === P);
    const q = projects.find((x) => x.name === Q);
    assert.ok(p && q, `both projects stored: ${JSON.stringify(projects.map((x) => x.name))}`);
    assert.deepEqual(p.folders.map((f) => f.path), [pFolder]);
    assert.deepEqual(q.folders.map((f) => f.path), [qFolder]);

    // --- History in P (the user's message through the composer, the assistant's reply over RPC).
    const historyId = await newConversationInProject(page, P, HISTORY_TEXT);
    const reply = await rpc.call<{ id: number }>('session.append', { sessionId: historyId, role: 'assistant', content: HISTORY_REPLY });
    await page.locator(`li.msg#m-${reply.id}`).waitFor({ state: 'visible' }); // the open conversation follows the event
    const history = await rpc.session(historyId);
    assert.equal(history.projectId, p.id, 'a conversation started in P is stored in P');
    assert.equal(history.cwd, pFolder, "it starts in P's primary folder");
    const historyUserMsg = (await rpc.messages(historyId)).find((m) => m.role === 'user')!;

    // --- Some history in Q, with words P never uses.
    const qHistoryId = await newConversationInProject(page, Q, Q_TEXT);
    assert.equal((await rpc.session(qHistoryId)).projectId, q.id);

    // --- A new conversation in P recalls P's history.
    const newId = await newConversationInProject(page, P, NEW_TEXT);
    assert.equal((await rpc.session(newId)).projectId, p.id, 'the draft kept the project it was started in');
    assert.equal(await group(page, p.id).locator(convRow(page, newId)).count(), 1, 'listed under P');
    assert.equal(await shownProject(page), P);

    let s = await searchInPanel(page, 'marmoset');
    assert.equal(s.params.sessionId, newId, 'the panel searches as the open conversation');
    assert.notProperty(s.params, 'projectId', 'no project argument is ever sent');
    assert.equal((await page.getByTestId('search-scope').textContent())?.trim(), P);
    assert.ok(ids(s).has(historyId), `search from the new conversation in P finds P's history: ${JSON.stringify(s.hits)}`);
    assert.ok(
      s.hits.some((h) => h.sessionId === historyId && h.messageId === historyUserMsg.id),
      'the user message of the history is an anchor',
    );
    assert.ok([...ids(s)].every((id) => id === historyId || id === newId), `only P conversations: ${JSON.stringify(s.hits)}`);

    // Clicking the result opens the history at the anchor message, highlighted.
    const anchor = await openHit(page, historyId, historyUserMsg.id);
    assert.include(await anchor.textContent(), 'marmoset');

    // --- Change the new conversation's working directory to Q's folder: still P.
    await openFromSidebar(page, newId);
    await page.locator('.conv-header').getByRole('button', { name: 'Change directory…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change working directory' });
    await dialog.getByLabel('Directory').fill(qFolder);
    await dialog.getByRole('button', { name: 'Change directory', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    await waitForNotice(page, 'success', 'project unchanged');
    await eventually('the header to show the new directory', async () => {
      assert.equal(await page.getByTestId('conversation-cwd').getAttribute('title'), qFolder);
    });
    assert.equal(await shownProject(page), P, 'the header still shows P');
    const afterCwd = await rpc.session(newId);
    assert.equal(afterCwd.cwd, qFolder, 'cwd stored');
    assert.equal(afterCwd.projectId, p.id, "changing the directory to Q's folder never changes the project");
    await eventually('the sidebar to keep it under P', async () => {
      assert.equal(await group(page, p.id).locator(convRow(page, newId)).count(), 1);
      assert.equal(await group(page, q.id).locator(convRow(page, newId)).count(), 0);
    });
    s = await searchInPanel(page, 'marmoset');
    assert.ok(ids(s).has(historyId), 'after the cwd change the conversation still recalls P');

    // Precondition for the negative check below: while it is in P, P's history finds it.
    assert.ok((await rpc.search(historyId, 'wombat')).results?.some((h) => h.session_id === newId), 'while in P it is findable from P');
    assert.isFalse((await rpc.search(qHistoryId, 'wombat')).results?.some((h) => h.session_id === newId) ?? false, 'and not from Q');

    // --- Move it to Q with the header's "Move…".
    const menu = await openMoveMenu(page, { header: true });
    await chooseMoveTarget(menu, Q);
    await waitForNotice(page, 'success', `Moved to ${Q}`);
    await eventually('the sidebar to list it under Q only', async () => {
      assert.equal(await group(page, q.id).locator(convRow(page, newId)).count(), 1);
      assert.equal(await group(page, p.id).locator(convRow(page, newId)).count(), 0);
    });
    await eventually('the header to show Q', async () => assert.equal(await shownProject(page), Q));
    const moved = await rpc.session(newId);
    assert.equal(moved.projectId, q.id, 'stored project is Q');
    assert.equal(moved.cwd, qFolder, 'a move never changes the directory');

    // A search from Q finds it…
    await openFromSidebar(page, qHistoryId);
    s = await searchInPanel(page, 'wombat');
    assert.equal((await page.getByTestId('search-scope').textContent())?.trim(), Q);
    assert.ok(ids(s).has(newId), `search from Q finds the moved conversation: ${JSON.stringify(s.hits)}`);
    assert.ok((await rpc.search(qHistoryId, 'wombat')).results?.some((h) => h.session_id === newId));

    // …and one from P does not.
    await openFromSidebar(page, historyId);
    s = await searchInPanel(page, 'wombat');
    assert.equal((await page.getByTestId('search-scope').textContent())?.trim(), P);
    assert.isFalse(ids(s).has(newId), `search from P must not find it after the move: ${JSON.stringify(s.hits)}`);
    assert.isFalse((await rpc.search(historyId, 'wombat')).results?.some((h) => h.session_id === newId) ?? false);

    // The moved conversation itself now recalls Q, not P.
    await openFromSidebar(page, newId);
    s = await searchInPanel(page, 'marmoset');
    assert.isFalse(ids(s).has(historyId), 'after the move, P history is out of scope');
    s = await searchInPanel(page, 'narwhal');
    assert.ok(ids(s).has(qHistoryId), 'and Q history is in scope');

    // --- The old no-project conversation: not findable from P, then moved into P (context menu), then findable.
    await openFromSidebar(page, historyId);
    s = await searchInPanel(page, 'ocelot');
    assert.isFalse(ids(s).has(oldId), 'a no-project conversation is not P history');
    const ctx = await openMoveMenu(page, { contextMenuOf: oldId });
    await chooseMoveTarget(ctx, P);
    await waitForNotice(page, 'success', `Moved to ${P}`);
    await eventually('the old conversation to be listed under P', async () => {
      assert.equal(await group(page, p.id).locator(convRow(page, oldId)).count(), 1);
      assert.equal(await group(page, null).locator(convRow(page, oldId)).count(), 0);
    });
    assert.equal((await rpc.session(oldId)).projectId, p.id);
    s = await searchInPanel(page, 'ocelot');
    assert.ok(ids(s).has(oldId), `after moving it into P, search from P finds it: ${JSON.stringify(s.hits)}`);
    assert.ok((await rpc.search(historyId, 'ocelot')).results?.some((h) => h.session_id === oldId));

    // --- Resume reads the stored project: a fresh load of the moved conversation shows Q.
    await page.goto(`${server.url}#/s/${encodeURIComponent(newId)}`);
    await waitForOpenSession(page, newId);
    await eventually('the resumed conversation to show Q', async () => assert.equal(await shownProject(page), Q));

    app.assertNoProblems();
  });
});
