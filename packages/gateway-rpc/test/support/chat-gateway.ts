/**
 * Fixture for the chat tests: a real gateway (temp home, real SQLite, the real session_search tool
 * from @recall/search-tool) configured to talk to a scripted OpenAI-compatible server, plus a
 * WebSocket client that records every notification, and small helpers to seed conversations and
 * to wait for a run's terminal event. Everything runs over loopback sockets; nothing is mocked.
 */
import { onTestFinished } from 'vitest';
import { createSessionSearchTool } from '@recall/search-tool';
import type { ChatSettingsInput } from '@recall/chat';
import { startTestGateway, wsConnect, type TestGateway, type WsClient } from '../helpers.js';
export { chatEvents, createConversation, createProject, messagesOf, waitForRunEnd } from '../helpers.js';
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
  const ws = await wsConnect(gw.wsUrl, { headers: { authorization: `Bearer ${gw.token}` } });
  onTestFinished(() => ws.close());
  return { gw, openai, ws };
}

