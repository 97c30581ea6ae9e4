/**
 * ChatRuns without a gateway: a real SQLite file, the real session_search tool of
 * @recall/search-tool and a scripted OpenAI-compatible server on loopback, with a recording event
 * sink and logger as the host. Covers what the package itself promises its host — the order of the
 * events it emits (and their normalised `messages.changed` shape), the trusted tool context, the
 * stored messages, the refusals with their stable codes, and the failure path (classified, key
 * redacted, logged). The wire view of the same behaviour is tested through a real gateway in
 * packages/gateway-rpc/test/chat*.test.ts.
 */
import { describe, expect, onTestFinished, test } from 'vitest';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { appendMessage, createProject, createSession, getMessages } from '@recall/store';
import { createSessionSearchTool } from '@recall/search-tool';
import { lastToolResult, startScriptedOpenAI, type ScriptEntry, type ScriptedOpenAI } from '@recall/config/scripted-openai';
import { tempDatabases } from '@recall/config/temp-databases';
import {
  ChatConfigError,
  ChatError,
  ChatModuleError,
  ChatRuns,
  ChatShuttingDownError,
  resolveChatSettings,
  type ChatLogger,
  type ChatSettingsInput,
  type ChatSinkEvent,
} from '../src/index.js';

const { tempDb } = tempDatabases<RecallDatabase>((path) => openDatabase(path), 'recall-chat-runs-');
const KEY = 'sk-chat-test-SECRET-77aa';

interface Host {
  db: RecallDatabase;
  runs: ChatRuns;
  events: ChatSinkEvent[];
  logs: { level: 'info' | 'warn' | 'error'; message: string; meta?: Record<string, unknown> }[];
  openai: ScriptedOpenAI;
}

async function host(script: ScriptEntry[], chat: Partial<ChatSettingsInput> = {}): Promise<Host> {
  const openai = await startScriptedOpenAI(script);
  onTestFinished(() => openai.close());
  const db = tempDb();
  const events: ChatSinkEvent[] = [];
  const logs: Host['logs'] = [];
  const logger: ChatLogger = {
    info: (message, meta) => logs.push({ level: 'info', message, ...(meta ? { meta } : {}) }),
    warn: (message, meta) => logs.push({ level: 'warn', message, ...(meta ? { meta } : {}) }),
    error: (message, meta) => logs.push({ level: 'error', message, ...(meta ? { meta } : {}) }),
  };
  const settings = resolveChatSettings({ baseUrl: openai.url, model: 'scripted-model', apiKey: KEY, maxRetries: 0, ...chat });
  const runs = new ChatRuns({ db, profile: 'default', events: { emit: (e) => events.push(e) }, logger, searchTool: createSessionSearchTool({ db }) }, settings);
  onTestFinished(() => runs.shutdown());
  return { db, runs, events, logs, openai };
}

describe('ChatRuns with a host sink', () => {
  test('a tool round then an answer: events in order, tool scoped to the own project, every message stored', async () => {
    const h = await host([
      { toolCalls: [{ name: 'session_search', arguments: { query: 'lighthouse' } }] },
      (request) => {
        const hits = lastToolResult(request)?.results ?? [];
        return { text: `Found ${hits.length}: ${hits.map((r: { session_id: string }) => r.session_id).join(',')}`, chunks: 2 };
      },
    ]);
    const atlas = createProject(h.db, { name: 'Atlas' }).id;
    const other = createProject(h.db, { name: 'Other' }).id;
    const earlier = createSession(h.db, { projectId: atlas, title: 'earlier' });
    appendMessage(h.db, earlier.id, { role: 'user', content: 'the lighthouse keeper ledger is in the blue binder' });
    const foreign = createSession(h.db, { projectId: other, title: 'foreign' });
    appendMessage(h.db, foreign.id, { role: 'user', content: 'the lighthouse in the other project' });
    const chat = createSession(h.db, { projectId: atlas, title: 'chat' });

    const handle = await h.runs.start(chat.id, 'where is the lighthouse ledger?');
    const outcome = await handle.done;

    expect(outcome).toMatchObject({ status: 'completed', rounds: 2, content: `Found 1: ${earlier.id}`, error: null });
    const stored = getMessages(h.db, chat.id);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(outcome.messageIds).toEqual(stored.map((m) => m.id));
    expect(outcome.toolCalls).toHaveLength(1);
    expect(outcome.toolCalls[0]).toMatchObject({ name: 'session_search', hits: 1, used_mode: 'keyword' });

    const types = h.events.map((e) => e.type);
    expect(types[0]).toBe('messages.changed'); // the user's message is stored before the run starts
    expect(types[1]).toBe('chat.started');
    expect(types.at(-1)).toBe('chat.done');
    expect(types.filter((t) => t === 'messages.changed')).toHaveLength(4);
    expect(types.filter((t) => t === 'chat.tool')).toHaveLength(1);
    expect(h.events.filter((e) => e.type === 'chat.delta').map((e) => (e as { text: string }).text).join('')).toBe(outcome.content);
    expect(h.events[0]).toEqual({ type: 'messages.changed', projectIds: [atlas], sessionIds: [chat.id], messageIds: [stored[0]!.id] });
    expect(h.runs.status().activeRuns).toEqual([]);
  });

  test('a session without a project is announced as unassigned', async () => {
    const h = await host([{ text: 'hello' }]);
    const loose = createSession(h.db, { title: 'loose' });
    const outcome = await (await h.runs.start(loose.id, 'hi')).done;
    expect(outcome.status).toBe('completed');
    const changed = h.events.filter((e) => e.type === 'messages.changed');
    expect(changed).toHaveLength(2);
    for (const e of changed) expect(e).toEqual({ type: 'messages.changed', unassigned: true, sessionIds: [loose.id], messageIds: [expect.any(Number)] });
  });

  test('an endpoint refusing the key ends the run failed with chat_model_auth_failed, the key cut out and logged as a warning', async () => {
    const h = await host([{ status: 401, message: `bad key ${KEY}` }]);
    const session = createSession(h.db, { title: 's' });
    const outcome = await (await h.runs.start(session.id, 'hi')).done;
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'chat_model_auth_failed', retryable: false } });
    expect(outcome.error!.message).not.toContain(KEY);
    const terminal = h.events.at(-1)!;
    expect(terminal).toMatchObject({ type: 'chat.error', status: 'failed', code: 'chat_model_auth_failed', messageIds: outcome.messageIds });
    expect(JSON.stringify(h.events)).not.toContain(KEY);
    expect(h.logs).toEqual([expect.objectContaining({ level: 'warn', message: 'Chat run failed', meta: expect.objectContaining({ code: 'chat_model_auth_failed' }) })]);
  });
});

describe('ChatRuns refusals (stable codes)', () => {
  test('not configured, busy, unknown run, and send after shutdown', async () => {
    const h = await host([{ hang: true }]);
    const session = createSession(h.db, { title: 's' });

    const unconfigured = new ChatRuns({ db: h.db, profile: 'default', events: { emit: () => {} }, logger: { info() {}, warn() {}, error() {} }, searchTool: null }, resolveChatSettings(undefined));
    await expect(unconfigured.start(session.id, 'hi')).rejects.toThrow(expect.objectContaining({ code: 'chat_not_configured', retryable: false }));
    expect(unconfigured.status()).toMatchObject({ configured: false, searchAvailable: false, apiKeySet: false });

    const handle = await h.runs.start(session.id, 'hang');
    let busy: unknown;
    try {
      await h.runs.start(session.id, 'again');
    } catch (error) {
      busy = error;
    }
    expect(busy).toBeInstanceOf(ChatError);
    expect(busy).toBeInstanceOf(ChatModuleError);
    expect(busy).toMatchObject({ code: 'chat_busy', retryable: true, data: { sessionId: session.id, runId: handle.runId } });

    expect(() => h.runs.cancel('run_nope')).toThrow(expect.objectContaining({ code: 'chat_run_not_found' }));

    await h.runs.shutdown();
    expect((await handle.done).error).toMatchObject({ code: 'chat_cancelled', retryable: true });
    let closed: unknown;
    try {
      await h.runs.start(session.id, 'after');
    } catch (error) {
      closed = error;
    }
    expect(closed).toBeInstanceOf(ChatShuttingDownError);
    expect(closed).toMatchObject({ code: 'shutting_down', message: 'The gateway is shutting down.' });
  });

  test('invalid settings throw ChatConfigError invalid_config naming the field, never the key', () => {
    let error: unknown;
    try {
      resolveChatSettings({ model: 'm', apiKey: 'sk-never-echo-this', maxToolRounds: 0 });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ChatConfigError);
    expect(error).toMatchObject({ code: 'invalid_config', data: { source: 'chat' } });
    expect((error as Error).message).toMatch(/^Invalid chat settings: maxToolRounds: /);
    expect((error as Error).message).not.toContain('sk-never-echo-this');
  });
});
