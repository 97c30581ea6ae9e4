/**
 * Fixture for the chat tests: a real gateway (temp home, real SQLite, the real session_search tool
 * from @recall/search-tool) configured to talk to a scripted OpenAI-compatible server, plus a
 * WebSocket client that records every notification, and small helpers to seed conversations and
 * to wait for a run's terminal event. Everything runs over loopback sockets; nothing is mocked.
 */
import { onTestFinished } from 'vitest';
import { createSessionSearchTool } from '@recall/search-tool';
import type { ChatSettingsInput } from '@recall/chat';
import { rpc, startTestGateway, wsConnect, type TestGateway, type WsClient } from '../helpers.js';
import { startScriptedOpenAI, type ScriptEntry, type ScriptedOpenAI } from '@recall/config/scripted-openai';

export const TEST_API_KEY = 'sk-test-SECRET-4f1c9a';

export interface ChatFixture {
  gw: TestGateway;
  openai: ScriptedOpenAI;
  ws: WsClient;
}

export async function startChatGateway(options: { script?: ScriptEntry[]; chat?: Partial<ChatSettingsInput>; home?: string } = {}): Promise<ChatFixture> {
  const openai = await startScriptedOpenAI(options.script ?? []);
  onTestFinished(() => openai.close());
  const gw = await startTestGateway({
    ...(options.home === undefined ? {} : { home: options.home }),
    searchTool: (db) => createSessionSearchTool({ db }),
    chat: { baseUrl: openai.url, model: 'scripted-model', apiKey: TEST_API_KEY, maxRetries: 0, ...options.chat },
  });
  const ws = await wsConnect(`${gw.wsUrl}?token=${encodeURIComponent(gw.token)}`);
  onTestFinished(() => ws.close());
  return { gw, openai, ws };
}

/** chat.* notifications of one run, in arrival order. */
export function chatEvents(ws: WsClient, runId: string): any[] {
  return ws.notifications.map((n) => n.params).filter((p) => typeof p?.type === 'string' && p.type.startsWith('chat.') && p.runId === runId);
}

/** Resolves with the run's terminal event (chat.done or chat.error). */
export async function waitForRunEnd(ws: WsClient, runId: string, timeoutMs = 10_000): Promise<any> {
  const n = await ws.waitForNotification((m) => (m.params?.type === 'chat.done' || m.params?.type === 'chat.error') && m.params.runId === runId, timeoutMs);
  return n.params;
}

export async function createProject(gw: TestGateway, name: string): Promise<string> {
  return (await rpc(gw, 'projects.create', { name })).id as string;
}

export async function createConversation(
  gw: TestGateway,
  projectId: string | null,
  title: string,
  messages: { role: 'user' | 'assistant' | 'system' | 'tool'; content: string }[] = [],
): Promise<{ id: string; messageIds: number[] }> {
  const session = await rpc(gw, 'session.create', { projectId, title, messages });
  const stored = (await rpc(gw, 'session.messages', { sessionId: session.id })).messages as { id: number }[];
  return { id: session.id as string, messageIds: stored.map((m) => m.id) };
}

export async function messagesOf(gw: TestGateway, sessionId: string, includeHidden = false): Promise<any[]> {
  return (await rpc(gw, 'session.messages', { sessionId, includeHidden })).messages;
}
