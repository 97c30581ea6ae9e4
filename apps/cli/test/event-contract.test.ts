/**
 * Real events parse with the contract's event schemas (@recall/rpc-contract wireEventSchema): a
 * real gateway on 127.0.0.1 over a temp SQLite home, with a scripted OpenAI-compatible chat model
 * and a scripted embeddings server (both loopback), and a WebSocket client that records every
 * notification while the writes a desktop makes happen: projects, conversations, appends, a move
 * out of every project, a rewind, a semantic consent and index run, and two chat runs (one with a
 * session_search call, one the model fails). Every event type of the contract must be seen, and
 * every event must pass its schema, so a field added or renamed in an emitted event fails here.
 */
import { startScriptedEmbeddings } from '@recall/config/scripted-embeddings';
import { startScriptedOpenAI } from '@recall/config/scripted-openai';
import { CHAT_EVENT_TYPES, EVENT_NOTIFICATION_METHOD, EVENT_TYPES, wireEventSchema } from '@recall/rpc-contract';
import { createSessionSearchTool } from '@recall/search-tool';
import { afterAll, expect, test } from 'vitest';
import { cleanup, rpc, rpcError, startTestGateway, wsConnect } from './helpers.js';
import { semanticPlugin } from '../src/semantic-wiring.js';

afterAll(cleanup);

test('every event a real gateway sends passes the contract, and every event type occurs', async () => {
  const openai = await startScriptedOpenAI([
    { toolCalls: [{ name: 'session_search', arguments: { query: 'quokka' } }] },
    { text: 'it lives on Rottnest' },
    { status: 500, message: 'scripted failure' },
  ]);
  const embeddings = await startScriptedEmbeddings({ dims: 8 });
  try {
    const gw = await startTestGateway({
      searchTool: (db) => createSessionSearchTool({ db }),
      chat: { baseUrl: openai.url, model: 'scripted-model', apiKey: 'sk-test', maxRetries: 0 },
      semantic: semanticPlugin({
        config: { enabled: true, provider: 'openai-compatible', endpoint: embeddings.url, model: 'scripted', dims: 8, maxRetries: 0, timeoutMs: 2_000 },
        keys: { embeddingApiKey: 'k', openaiApiKey: null },
        pollMs: 60_000,
      }),
    });
    const ws = await wsConnect(gw.wsUrl, { headers: { authorization: `Bearer ${gw.token}` } });
    try {
      const project = await rpc(gw, 'projects.create', { name: 'Zoo' });
      await rpc(gw, 'session.create', { projectId: project.id, title: 'earlier', messages: [{ role: 'user', content: 'the quokka lives on Rottnest' }] });
      const now = await rpc(gw, 'session.create', { projectId: project.id, title: 'now', messages: [{ role: 'user', content: 'one' }, { role: 'assistant', content: 'two' }] });
      const appended = await rpc(gw, 'session.append', { sessionId: now.id, role: 'user', content: 'three' });
      await rpc(gw, 'session.rewind', { sessionId: now.id, toMessageId: appended.id });
      const loose = await rpc(gw, 'session.create', { projectId: project.id, title: 'to move' });
      await rpc(gw, 'session.project.set', { sessionId: loose.id, projectId: null });
      await rpc(gw, 'index.project.enable', { projectId: project.id });
      await rpc(gw, 'index.run', { projectId: project.id, wait: true });
      const ok = await rpc(gw, 'chat.send', { sessionId: now.id, content: 'where does the quokka live?', wait: true });
      expect(ok.status).toBe('completed');
      const failed = await rpcError(gw, 'chat.send', { sessionId: now.id, content: 'and again?', wait: true });
      expect(failed.data).toMatchObject({ status: 'failed', code: 'chat_model_error' });
      await ws.waitForNotification((n) => n.params?.type === 'chat.error');

      const events = ws.notifications.filter((n) => n.method === EVENT_NOTIFICATION_METHOD).map((n) => n.params);
      const drift = events.flatMap((e) => {
        const parsed = wireEventSchema.safeParse(e);
        return parsed.success ? [] : [`${JSON.stringify(e).slice(0, 200)} → ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`];
      });
      expect(drift, 'emitted events drifted from @recall/rpc-contract').toEqual([]);
      expect([...new Set(events.map((e) => e.type))].sort()).toEqual([...EVENT_TYPES, ...CHAT_EVENT_TYPES].sort());
    } finally {
      ws.close();
    }
  } finally {
    await openai.close();
    await embeddings.close();
  }
});
