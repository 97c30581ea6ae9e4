/**
 * The chat panel (issue 6) in Chromium against a real `recall serve` whose chat model is a scripted
 * OpenAI-compatible server on loopback (RECALL_CHAT_MODEL / RECALL_CHAT_BASE_URL in the child's
 * environment, as docs/agents.md documents). History in project P; in a new P conversation the
 * user asks; the scripted model answers turn 1 with a `session_search` tool call and turn 2 with a
 * final message quoting the tool result. The UI shows the tool card (used_mode, hits), streams the
 * answer, and a returned anchor opens the original message highlighted; everything is stored. The
 * earlier history is then moved to another project and the same question finds nothing from it.
 * Also: Stop (chat.cancel), /compress (button and typed), reload rendering, and a gateway with no
 * model configured. Writes docs/screenshots/chat.png (a finished tool-calling turn, fixed clock).
 */
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { DESKTOP, launchBrowser, openPage, SCREENSHOT_TIME, type AppPage } from './support/browser.js';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer, type RecallServer } from './support/gateway.js';
import type { Message, Session } from './support/rpc.js';
import { pinShownTimes, PINNED_TIME_STYLE, saveScreenshot } from './support/screenshots.js';
import { lastToolResult, startScriptedOpenAI, type ScriptedOpenAI } from '@recall/config/scripted-openai';
import {
  addMessage,
  chooseMoveTarget,
  conversationPane,
  convRow,
  expectAnchorHighlighted,
  messageWithText,
  openApp,
  openFromSidebar,
  openMoveMenu,
  sidebar,
  waitForNotice,
  waitForOpenSession,
} from './support/ui.js';
import { eventually } from './support/wait.js';

const P = 'Pangolin';
const Q = 'Quetzal';
const MODEL = 'scripted-model';

const HISTORY_USER = 'Decision for invoices: export them with the marmoset checksum (CRC-32C), computed before the upload.';
const HISTORY_REPLY = 'Agreed. The marmoset checksum is stored next to each exported file.';
const QUESTION = 'Which checksum did we pick for invoice exports?';
const NOTHING = 'I found nothing about that in this project.';

interface StoredMessage extends Message {
  toolName: string | null;
  toolCalls: string | null;
  toolCallId: string | null;
}

interface SessionWithEnd extends Session {
  endReason: string | null;
}

const chatPanel = (page: Page): Locator => page.locator('section.chat-panel[aria-label="Model chat"]');
const composer = (page: Page): Locator => page.locator('form.composer');
const toolMessages = (page: Page): Locator => conversationPane(page).locator('ol.messages > li.msg.role-tool');

/** Records every text the streaming bubble shows, so the test can tell a stream from a single paint. */
async function recordStream(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __stream: string[] };
    w.__stream = [];
    const seen = () => {
      const el = document.querySelector('[data-testid="chat-stream"] .msg-body');
      const text = el?.textContent ?? '';
      if (text && w.__stream[w.__stream.length - 1] !== text) w.__stream.push(text);
    };
    new MutationObserver(seen).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

async function streamed(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __stream?: string[] }).__stream ?? []);
}

/** Types in the composer and presses "Send to model". */
async function ask(page: Page, text: string): Promise<void> {
  await composer(page).getByRole('textbox', { name: 'Message' }).fill(text);
  await composer(page).getByRole('button', { name: 'Send to model', exact: true }).click();
}

async function storedMessages(server: RecallServer, sessionId: string): Promise<StoredMessage[]> {
  return server.rpc.call<{ messages: StoredMessage[] }>('session.messages', { sessionId }).then((r) => r.messages);
}

describe('chat panel with a scripted OpenAI-compatible model', () => {
  const cleanup = new Cleanup();
  let openai: ScriptedOpenAI;
  let server: RecallServer;
  let browser: Browser;
  let pId: string;
  let qId: string;
  let historyId: string;
  let historyIds: number[];

  beforeAll(async () => {
    openai = await startScriptedOpenAI();
    cleanup.add('close the scripted model', () => openai.close());
    server = await startRecallServer(cleanup, { env: { RECALL_CHAT_MODEL: MODEL, RECALL_CHAT_BASE_URL: openai.url } });
    browser = await launchBrowser(cleanup);
    const { rpc } = server;
    pId = (await rpc.call<{ id: string }>('projects.create', { name: P })).id;
    qId = (await rpc.call<{ id: string }>('projects.create', { name: Q })).id;
    const at = SCREENSHOT_TIME.getTime() - 3 * 86_400_000;
    const history = await rpc.call<Session>('session.create', {
      // A fixed id: the answer quotes its link, and the README screenshot must not change between runs.
      sessionId: 'invoice-export-format',
      projectId: pId,
      title: 'Invoice export format',
      messages: [
        { role: 'user', content: HISTORY_USER, createdAt: at },
        { role: 'assistant', content: HISTORY_REPLY, createdAt: at + 60_000 },
      ],
    });
    historyId = history.id;
    historyIds = (await rpc.messages(historyId)).map((m) => m.id);
    await rpc.call('session.create', { projectId: qId, title: 'Queue retries', messages: [{ role: 'user', content: 'Quetzal retries jobs through the narwhal queue.' }] });
  });

  afterAll(async () => {
    await cleanup.run();
  });

  it('recalls P history with a tool call, streams the answer, opens the anchor, stores everything; after a move the same question finds nothing', async () => {
    const app: AppPage = await openPage(browser, cleanup, DESKTOP, { fixedTime: SCREENSHOT_TIME });
    const { page } = app;
    const { rpc } = server;
    await openApp(page, server.url);

    // --- A new conversation in P; the panel names the configured model.
    await sidebar(page).getByRole('button', { name: `New conversation in ${P}`, exact: true }).click();
    await eventually('the draft to show P', async () => assert.equal((await page.getByTestId('draft-project').textContent())?.trim(), P));
    await chatPanel(page).getByText(MODEL).waitFor();

    // Turn 1: a session_search call; turn 2: a final answer quoting the tool result, streamed in pieces.
    let quoted = '';
    openai.push({ toolCalls: [{ id: 'call_recall_1', name: 'session_search', arguments: { query: 'marmoset', search_mode: 'keyword' } }] }, (req) => {
      const result = lastToolResult(req);
      const hit = result.results[0];
      quoted = `We picked the marmoset checksum (CRC-32C). From the earlier conversation: “${String(hit.snippet).replace(/[«»]/g, '')}” — ${hit.link}`;
      return { text: quoted, chunks: 8, delayMs: 120 };
    });
    const before = openai.requests.length;
    await recordStream(page);
    await ask(page, QUESTION);
    const chatId = await waitForOpenSession(page);
    assert.notEqual(chatId, historyId);

    // The tool card: the arguments, the mode that ran and the number of hits, open (it happened live).
    const card = toolMessages(page).first();
    await card.waitFor({ state: 'visible', timeout: 15_000 });
    assert.equal((await card.getByTestId('tool-used-mode').textContent())?.trim(), 'keyword');
    assert.equal(await card.getByTestId('tool-hits').getAttribute('data-hits'), '1');
    assert.include(await card.locator('details.tool-card > summary').textContent(), '“marmoset”');
    const anchor = card.locator('a.tool-anchor');
    await anchor.waitFor({ state: 'visible' });
    assert.equal(await anchor.count(), 1, 'one returned anchor');
    assert.equal(await anchor.getAttribute('data-session-id'), historyId, 'the anchor is in P’s earlier conversation');
    const anchorId = Number(await anchor.getAttribute('data-message-id'));
    assert.include(historyIds, anchorId);
    assert.include(await anchor.textContent(), 'Invoice export format');

    // The final answer streamed in, then became the stored message.
    const answer = messageWithText(page, 'We picked the marmoset checksum');
    await answer.waitFor({ state: 'visible', timeout: 15_000 });
    await eventually('the streaming bubble to give way to the stored answer', async () => {
      assert.equal(await page.getByTestId('chat-stream').count(), 0);
    });
    assert.include(await answer.textContent(), quoted);
    const pieces = await streamed(page);
    const partial = pieces.filter((t) => t.length < quoted.length && quoted.startsWith(t));
    assert.isAtLeast(partial.length, 2, `the answer was shown in growing pieces before it was complete: ${JSON.stringify(pieces)}`);
    assert.isFalse(await page.getByTestId('chat-phase').isVisible(), 'no run is shown as running');

    // --- What was stored, in order: user, assistant with the tool call, tool result, final answer.
    assert.equal((await rpc.session(chatId)).projectId, pId, 'the conversation started in P is stored in P');
    const stored = await storedMessages(server, chatId);
    assert.deepEqual(
      stored.map((m) => m.role),
      ['user', 'assistant', 'tool', 'assistant'],
    );
    assert.equal(stored[0]!.content, QUESTION);
    const calls = JSON.parse(stored[1]!.toolCalls ?? '[]') as Array<{ id: string; function: { name: string; arguments: string } }>;
    assert.equal(calls[0]?.id, 'call_recall_1');
    assert.equal(calls[0]?.function.name, 'session_search');
    assert.deepEqual(JSON.parse(calls[0]!.function.arguments), { query: 'marmoset', search_mode: 'keyword' });
    assert.equal(stored[2]!.toolName, 'session_search');
    assert.equal(stored[2]!.toolCallId, 'call_recall_1');
    const toolResult = JSON.parse(stored[2]!.content) as { used_mode: string; scope: { project_id: string }; results: Array<{ session_id: string; message_id: number }> };
    assert.equal(toolResult.used_mode, 'keyword');
    assert.equal(toolResult.scope.project_id, pId, 'the tool ran in the conversation’s project');
    assert.deepEqual(
      toolResult.results.map((r) => [r.session_id, r.message_id]),
      [[historyId, anchorId]],
    );
    assert.equal(stored[3]!.content, quoted);
    // The model was offered the tool and was sent exactly that result.
    assert.equal(openai.requests.length, before + 2);
    assert.deepEqual(
      (openai.requests[before]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name),
      ['session_search'],
    );
    assert.deepEqual(lastToolResult(openai.requests[before + 1]!), toolResult);

    // The finished tool-calling turn, for the README (once the sidebar row counts the stored turn).
    await eventually('the sidebar row to count the four stored messages', async () => {
      assert.include(await convRow(page, chatId).locator('.conv-meta').textContent(), '4 msg');
    });
    await page.mouse.move(0, 0);
    await pinShownTimes(page, SCREENSHOT_TIME);
    await saveScreenshot(page, 'chat.png', { style: PINNED_TIME_STYLE });

    // --- The returned anchor opens the original message in the other conversation, highlighted.
    await anchor.click();
    const original = await expectAnchorHighlighted(page, historyId, anchorId);
    assert.include(await original.textContent(), 'marmoset checksum');
    assert.include(quoted, (await original.locator('.msg-body').textContent())!.trim(), 'the answer quoted that very message');

    // --- After a reload the stored turn renders sensibly: call line, tool card collapsed, final answer.
    await page.goto(`${server.url}#/s/${encodeURIComponent(chatId)}`);
    await page.reload(); // a hash-only goto stays in the same document
    await waitForOpenSession(page, chatId);
    const reloaded = toolMessages(page).first();
    await reloaded.waitFor();
    assert.isFalse(await reloaded.locator('details.tool-card').evaluate((d) => (d as HTMLDetailsElement).open), 'stored tool results start collapsed');
    assert.equal((await reloaded.getByTestId('tool-used-mode').textContent())?.trim(), 'keyword');
    assert.equal(await reloaded.getByTestId('tool-hits').getAttribute('data-hits'), '1');
    assert.equal(await reloaded.locator('a.tool-anchor').count(), 0, 'collapsed: no anchors shown');
    const callLine = conversationPane(page).locator(`li.msg.role-assistant.has-calls#m-${stored[1]!.id} li.call`);
    assert.include(await callLine.textContent(), 'session_search');
    assert.include(await callLine.textContent(), '“marmoset”');
    await messageWithText(page, 'We picked the marmoset checksum').waitFor();
    await reloaded.locator('details.tool-card > summary').click();
    await reloaded.locator(`a.tool-anchor[data-session-id="${historyId}"][data-message-id="${anchorId}"]`).waitFor();

    // --- Move the earlier history to Q; the same question now finds nothing from it.
    await openFromSidebar(page, historyId);
    const menu = await openMoveMenu(page, { header: true });
    await chooseMoveTarget(menu, Q);
    await waitForNotice(page, 'success', `Moved to ${Q}`);
    assert.equal((await rpc.session(historyId)).projectId, qId);

    await openFromSidebar(page, chatId);
    let secondResultHits = -1;
    openai.push({ toolCalls: [{ id: 'call_recall_2', name: 'session_search', arguments: { query: 'marmoset', search_mode: 'keyword' } }] }, (req) => {
      secondResultHits = (lastToolResult(req).results as unknown[]).length;
      return { text: NOTHING };
    });
    await ask(page, QUESTION);
    const second = toolMessages(page).nth(1);
    await second.waitFor({ state: 'visible', timeout: 15_000 });
    assert.equal((await second.getByTestId('tool-used-mode').textContent())?.trim(), 'keyword');
    assert.equal(await second.getByTestId('tool-hits').getAttribute('data-hits'), '0');
    await second.getByText('Nothing found in this conversation’s project').waitFor();
    assert.equal(await second.locator('a.tool-anchor').count(), 0);
    await messageWithText(page, NOTHING).waitFor({ timeout: 15_000 });
    assert.equal(secondResultHits, 0, 'the model was sent an empty result');
    const after = await storedMessages(server, chatId);
    assert.deepEqual(
      after.slice(4).map((m) => m.role),
      ['user', 'assistant', 'tool', 'assistant'],
    );
    const secondResult = JSON.parse(after[6]!.content) as { scope: { project_id: string }; results: unknown[] };
    assert.equal(secondResult.scope.project_id, pId);
    assert.deepEqual(secondResult.results, []);
    assert.notInclude(after[6]!.content, historyId, 'nothing of the moved conversation in the new result');

    app.assertNoProblems();
  });

  it('Stop cancels a running answer; the user message stays stored and the partial answer is dropped', async () => {
    const app = await openPage(browser, cleanup, DESKTOP);
    const { page } = app;
    const chat = await server.rpc.call<Session>('session.create', { projectId: pId, title: 'Cancel me' });
    await openApp(page, server.url, `#/s/${encodeURIComponent(chat.id)}`);
    await waitForOpenSession(page, chat.id);

    const before = openai.requests.length;
    openai.push({ hang: true, text: 'Let me think about that' });
    await ask(page, 'A question the model will never finish answering');
    const bubble = page.getByTestId('chat-stream');
    await bubble.getByText('Let me think about that').waitFor({ timeout: 15_000 });
    await page.getByTestId('chat-phase').waitFor();
    assert.isTrue(await composer(page).getByRole('button', { name: 'Send to model', exact: true }).isDisabled(), 'no second send while answering');

    await chatPanel(page).getByRole('button', { name: 'Stop', exact: true }).click();
    const stopped = page.getByTestId('chat-error');
    await stopped.waitFor({ timeout: 15_000 });
    assert.equal(await stopped.getAttribute('data-code'), 'chat_cancelled');
    assert.include(await stopped.textContent(), 'Stopped');
    assert.equal(await bubble.count(), 0, 'the partial answer is dropped');
    await eventually('the model request to be aborted', async () => assert.isTrue(openai.requests[before]!.aborted));

    const stored = await storedMessages(server, chat.id);
    assert.deepEqual(
      stored.map((m) => [m.role, m.content]),
      [['user', 'A question the model will never finish answering']],
    );
    await messageWithText(page, 'A question the model will never finish answering').waitFor();
    await stopped.getByRole('button', { name: 'Dismiss' }).click();
    await stopped.waitFor({ state: 'detached' });
    app.assertNoProblems();
  });

  it('/compress (button, then typed) continues in a new part without asking the model', async () => {
    const app = await openPage(browser, cleanup, DESKTOP);
    const { page } = app;
    const chat = await server.rpc.call<Session>('session.create', {
      projectId: pId,
      title: 'Long talk',
      messages: [{ role: 'user', content: 'An early remark about the pelican build cache.' }],
    });
    await openApp(page, server.url, `#/s/${encodeURIComponent(chat.id)}`);
    await waitForOpenSession(page, chat.id);
    const requests = openai.requests.length;

    await chatPanel(page).getByRole('button', { name: '/compress', exact: true }).click();
    await chatPanel(page).getByRole('group', { name: 'Confirm /compress' }).getByRole('button', { name: 'Compress', exact: true }).click();
    await waitForNotice(page, 'success', 'Compressed');
    const second = await eventually('the continuation to open', async () => {
      const id = await waitForOpenSession(page);
      assert.notEqual(id, chat.id);
      return id;
    });
    const cont = await server.rpc.call<SessionWithEnd>('session.get', { sessionId: second });
    assert.equal(cont.parentSessionId, chat.id);
    assert.equal(cont.lineage, 'compression');
    assert.equal(cont.projectId, pId, 'the continuation stays in the project');
    assert.equal((await server.rpc.call<SessionWithEnd>('session.get', { sessionId: chat.id })).endReason, 'compression');
    const note = (await storedMessages(server, second))[0]!;
    assert.equal(note.role, 'system');
    assert.include(note.content, 'session_search');
    await conversationPane(page).locator(`li.msg.role-system#m-${note.id}`).waitFor();
    await conversationPane(page).getByText('Continues an earlier part').waitFor();

    // Typed: "/compress" is a command, never a message to the model.
    await ask(page, '/compress');
    const third = await eventually('the next continuation to open', async () => {
      const id = await waitForOpenSession(page);
      assert.notInclude([chat.id, second], id);
      return id;
    });
    assert.equal((await server.rpc.call<SessionWithEnd>('session.get', { sessionId: third })).parentSessionId, second);
    assert.equal(openai.requests.length, requests, 'the model was never asked');
    assert.isFalse((await storedMessages(server, second)).some((m) => m.content === '/compress'), '/compress was not stored as a message');

    // The earlier part says where the chat goes on.
    await page.goto(`${server.url}#/s/${encodeURIComponent(chat.id)}`);
    await waitForOpenSession(page, chat.id);
    await chatPanel(page).getByText('This part was compressed').waitFor();
    assert.isTrue(await chatPanel(page).getByRole('button', { name: '/compress', exact: true }).isDisabled());
    app.assertNoProblems();
  });
});

describe('chat panel without a model', () => {
  const cleanup = new Cleanup();
  let server: RecallServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startRecallServer(cleanup);
    browser = await launchBrowser(cleanup);
  });

  afterAll(async () => {
    await cleanup.run();
  });

  it('says how to configure one, and the plain composer keeps working', async () => {
    const app = await openPage(browser, cleanup, DESKTOP);
    const { page } = app;
    const status = await server.rpc.call<{ configured: boolean; howToConfigure: string }>('chat.status', {});
    assert.isFalse(status.configured);
    const chat = await server.rpc.call<Session>('session.create', { projectId: null, title: 'Notes', messages: [{ role: 'user', content: 'First note.' }] });
    await openApp(page, server.url, `#/s/${encodeURIComponent(chat.id)}`);
    await waitForOpenSession(page, chat.id);

    const panel = chatPanel(page);
    await panel.getByText('No chat model configured').click();
    const howTo = page.getByTestId('chat-howto');
    await howTo.waitFor({ state: 'visible' });
    assert.equal((await howTo.textContent())?.trim(), status.howToConfigure);
    assert.include(status.howToConfigure, 'RECALL_CHAT_MODEL');
    assert.equal(await composer(page).getByRole('button', { name: 'Send to model' }).count(), 0, 'nothing pretends to ask a model');

    await addMessage(page, 'Second note, stored without any model.');
    const stored = await storedMessages(server, chat.id);
    assert.deepEqual(
      stored.map((m) => [m.role, m.content]),
      [
        ['user', 'First note.'],
        ['user', 'Second note, stored without any model.'],
      ],
    );
    app.assertNoProblems();
  });
});
