/**
 * Real gateways for the CLI's tests (the composition root's: stage B plugged in, the shipped UI),
 * on 127.0.0.1:0 over a temp home, with the client half shared through @recall/config/gateway-client.
 */
import { createSessionSearchTool } from '@recall/search-tool';
import type { ChatSettingsInput } from '@recall/chat';
import { startGateway, type Gateway, type StartGatewayOptions } from '@recall/gateway-rpc';
import { cleanup, collectingLogger, onCleanup, tempHome, wsConnect, type LogEntry, type WsClient } from '@recall/config/gateway-client';
import { startScriptedOpenAI, type ScriptEntry, type ScriptedOpenAI } from '@recall/config/scripted-openai';
import { onTestFinished } from 'vitest';

export { cleanup, tempHome };
export { createConversation, createProject, messagesOf, postRpc, rawRequest, rowCounts, rpc, rpcError, rpcRaw, waitForRunEnd, wsConnect } from '@recall/config/gateway-client';
export type { WsClient } from '@recall/config/gateway-client';

export interface TestGateway extends Gateway {
  logs: LogEntry[];
}

export async function startTestGateway(options: Partial<StartGatewayOptions> = {}): Promise<TestGateway> {
  const logger = collectingLogger();
  const gw = await startGateway({ home: options.home ?? tempHome(), port: 0, uiDir: null, logger, searchTool: null, ...options });
  onCleanup(() => gw.close());
  return Object.assign(gw, { logs: logger.entries });
}

/** A gateway whose chat talks to a scripted OpenAI-compatible loopback server, with a WebSocket client. */
export async function startChatGateway(options: { script?: ScriptEntry[]; chat?: Partial<ChatSettingsInput> } = {}): Promise<{ gw: TestGateway; openai: ScriptedOpenAI; ws: WsClient }> {
  const openai = await startScriptedOpenAI(options.script ?? []);
  onTestFinished(() => openai.close());
  const gw = await startTestGateway({
    searchTool: (db) => createSessionSearchTool({ db }),
    chat: { baseUrl: openai.url, model: 'scripted-model', apiKey: 'sk-test-SECRET-4f1c9a', maxRetries: 0, ...options.chat },
  });
  const ws = await wsConnect(gw.wsUrl, { headers: { authorization: `Bearer ${gw.token}` } });
  onTestFinished(() => ws.close());
  return { gw, openai, ws };
}
