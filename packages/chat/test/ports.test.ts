/**
 * ChatRuns on the storage ports, the same cases on both adapters (a real SQLite file and a
 * throwaway PostgreSQL database): start() stores the user's message before the run and every
 * complete message after it, announces each with the session's current project, refuses a second
 * run of the session (chat_busy) and a compressed session (chat_session_ended, naming the
 * continuation), holds a session for a host's write (exclusive()), and reads the live history through the ports.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import { startScriptedOpenAI } from '@recall/config/scripted-openai';
import type { Storage } from '@recall/storage-ports';
import { openSqliteStorage } from '@recall/store';
import { openPostgresStorage } from '@recall/store-postgres';
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import { ChatRuns, latestContinuation, loadLiveHistory, resolveChatSettings, type ChatSinkEvent } from '../src/index.js';

let cluster: ThrowawayPostgres | undefined;
const dirs: string[] = [];
beforeAll(async () => {
  cluster = await startThrowawayPostgres();
});
afterAll(async () => {
  await cluster?.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const backends: Array<[string, () => Promise<Storage>]> = [
  ['sqlite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recall-chat-ports-'));
    dirs.push(dir);
    return openSqliteStorage({ kind: 'sqlite', path: join(dir, 'recall.db') });
  }],
  ['postgres', async () => openPostgresStorage({ kind: 'postgres', url: cluster!.createDatabase('recall') })],
];

describe.each(backends)('ChatRuns on %s storage', (_name, open) => {
  test('start() stores and announces every message; busy and compressed sessions are refused', async () => {
    const storage = await open();
    onTestFinished(() => storage.close());
    const openai = await startScriptedOpenAI([{ text: 'first answer' }, { hang: true }]);
    onTestFinished(() => openai.close());
    const events: ChatSinkEvent[] = [];
    const runs = new ChatRuns(
      { storage, profile: 'default', events: { emit: (e) => events.push(e) }, logger: { info() {}, warn() {}, error() {} }, searchTool: null },
      resolveChatSettings({ baseUrl: openai.url, model: 'scripted-model', apiKey: 'sk-test', maxRetries: 0 }),
    );
    onTestFinished(() => runs.shutdown());
    const project = await storage.projects.create({ name: 'Atlas' });
    const chat = await storage.sessions.create({ projectId: project.id, title: 'chat', messages: [{ role: 'system', content: 'be brief' }] });

    const handle = await runs.start(chat.id, 'hello there');
    const outcome = await handle.done;
    expect(outcome).toMatchObject({ status: 'completed', content: 'first answer', userMessageId: handle.userMessageId });
    const history = await loadLiveHistory(storage, chat.id);
    expect(history.map((m) => [m.role, m.content])).toEqual([['system', 'be brief'], ['user', 'hello there'], ['assistant', 'first answer']]);
    expect(outcome.messageIds).toEqual(history.slice(1).map((m) => m.id));
    expect(events.filter((e) => e.type === 'messages.changed')).toEqual(
      history.slice(1).map((m) => ({ type: 'messages.changed', projectIds: [project.id], sessionIds: [chat.id], messageIds: [m.id] })),
    );

    // Moved mid-conversation: the next message is announced in the new project.
    const other = await storage.projects.create({ name: 'Other' });
    await storage.sessions.move(chat.id, other.id);
    const hanging = await runs.start(chat.id, 'and now?');
    expect(events.at(-2)).toEqual({ type: 'messages.changed', projectIds: [other.id], sessionIds: [chat.id], messageIds: [hanging.userMessageId] });
    await expect(runs.start(chat.id, 'again')).rejects.toMatchObject({ code: 'chat_busy', data: { runId: hanging.runId } });
    runs.cancel(hanging.runId);
    expect((await hanging.done).status).toBe('cancelled');

    // exclusive(): the session is held like a run while the host writes (the gateway's /compress).
    let release!: () => void;
    const held = runs.exclusive(chat.id, async (session) => {
      await new Promise<void>((resolve) => (release = resolve));
      return storage.sessions.continueCompressed(session.id);
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await expect(runs.start(chat.id, 'in between')).rejects.toMatchObject({ code: 'chat_busy' });
    await expect(runs.exclusive(chat.id, async () => 'twice')).rejects.toMatchObject({ code: 'chat_busy' });
    release();
    const { session: next } = await held;
    await expect(runs.exclusive(chat.id, async () => 'after')).rejects.toMatchObject({ code: 'chat_session_ended' });
    expect(await latestContinuation(storage, chat.id)).toBe(next.id);
    await expect(runs.checkOpen(chat.id)).rejects.toMatchObject({ code: 'chat_session_ended', data: { sessionId: chat.id, continuationId: next.id } });
    const before = (await storage.messages.list(chat.id)).length;
    await expect(runs.start(chat.id, 'too late')).rejects.toMatchObject({ code: 'chat_session_ended' });
    expect((await storage.messages.list(chat.id)).length).toBe(before); // refused: nothing stored
    await expect(runs.start('s_missing', 'hi')).rejects.toMatchObject({ code: 'session_not_found' });
    expect(runs.status().activeRuns).toEqual([]);
  }, 60_000);
});
