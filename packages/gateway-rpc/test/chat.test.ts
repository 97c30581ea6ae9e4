/**
 * The chat loop end to end: a real gateway (startGateway, real SQLite, the real session_search
 * tool) talks to a scripted OpenAI-compatible server over loopback HTTP. The model's first answer
 * is a session_search tool call, its second quotes the tool result. We assert on what the gateway
 * actually sent (tools offered, history, tool results — only the conversation's project, with
 * anchors), what it persisted (user, assistant with tool_calls, tool, final answer, in order), and
 * what WebSocket clients saw (chat.started, chat.delta, chat.tool, chat.done). Then the earlier
 * conversation is moved to another project and the same question finds nothing from it.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { cleanup, rpc, rpcError } from './helpers.js';
import { chatEvents, createConversation, createProject, messagesOf, startChatGateway, TEST_API_KEY, waitForRunEnd } from './support/chat-gateway.js';
import { lastToolResult, type RecordedRequest } from '@recall/config/scripted-openai';

afterEach(cleanup);

/** Turn 2 of the script: quote the first result of the tool result it was sent (or say there is none). */
function quoteToolResult(request: RecordedRequest) {
  const result = lastToolResult(request);
  const first = result?.results?.[0];
  return { text: first ? `Found it: "${first.snippet}" (${first.link})` : 'Nothing about that in this project.', chunks: 4 };
}

async function seedTwoProjects(gw: Parameters<typeof createProject>[0]) {
  const atlas = await createProject(gw, 'Atlas');
  const borealis = await createProject(gw, 'Borealis');
  const earlier = await createConversation(gw, atlas, 'Deploy fixes', [
    { role: 'user', content: 'The nightly deploy of the quokka service keeps failing.' },
    { role: 'assistant', content: 'We pinned quokka-builder to v2.3 and the deploy went green.' },
  ]);
  const other = await createConversation(gw, borealis, 'Borealis notes', [{ role: 'user', content: 'Borealis has its own quokka pipeline, unrelated.' }]);
  const loose = await createConversation(gw, null, 'Unfiled', [{ role: 'user', content: 'A quokka note that belongs to no project.' }]);
  return { atlas, borealis, earlier, other, loose };
}

describe('chat.send through the real gateway', () => {
  test('the model searches its own project, the answer quotes the original text, everything is persisted and streamed', async () => {
    const { gw, openai, ws } = await startChatGateway({
      script: [{ toolCalls: [{ name: 'session_search', arguments: { query: 'quokka' } }], text: 'Let me look.' }, quoteToolResult],
    });
    const { atlas, earlier, other, loose } = await seedTwoProjects(gw);
    const chat = await createConversation(gw, atlas, 'Today');

    const sent = await rpc(gw, 'chat.send', { sessionId: chat.id, content: 'What did we do about the quokka deploy last time?' });
    expect(sent).toEqual({ runId: expect.stringMatching(/^run_/), sessionId: chat.id, userMessageId: expect.any(Number) });
    const end = await waitForRunEnd(ws, sent.runId);
    expect(end).toMatchObject({ type: 'chat.done', sessionId: chat.id, runId: sent.runId, status: 'completed' });

    // --- what the model endpoint received
    expect(openai.requests).toHaveLength(2);
    const [first, second] = openai.requests as [RecordedRequest, RecordedRequest];
    expect(first.path).toBe('/v1/chat/completions');
    expect(first.headers.authorization).toBe(`Bearer ${TEST_API_KEY}`);
    expect(first.body).toMatchObject({ model: 'scripted-model', stream: true });
    expect(first.body.tools).toHaveLength(1);
    expect(first.body.tools[0]).toMatchObject({ type: 'function', function: { name: 'session_search', description: expect.stringContaining('current project') } });
    // The scope is not an argument the model could set.
    expect(Object.keys(first.body.tools[0].function.parameters.properties)).not.toContain('project_id');
    expect(first.body.messages).toEqual([{ role: 'user', content: 'What did we do about the quokka deploy last time?' }]);

    expect(second.body.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool']);
    const call = second.body.messages[1].tool_calls[0];
    expect(call).toMatchObject({ id: 'call_scripted_0', type: 'function', function: { name: 'session_search' } });
    expect(JSON.parse(call.function.arguments)).toEqual({ query: 'quokka' });
    expect(second.body.messages[2].tool_call_id).toBe('call_scripted_0');
    const result = lastToolResult(second);
    expect(result.scope).toEqual({ kind: 'project', project_id: atlas });
    expect(result.used_mode).toBe('keyword');
    const sessionIds = new Set(result.results.map((r: any) => r.session_id));
    expect(sessionIds).toEqual(new Set([earlier.id]));
    expect(sessionIds.has(other.id)).toBe(false);
    expect(sessionIds.has(loose.id)).toBe(false);
    for (const r of result.results) {
      expect(earlier.messageIds).toContain(r.message_id);
      expect(r.link).toBe(`recall://session/${encodeURIComponent(earlier.id)}#m${r.message_id}`);
    }
    expect(JSON.stringify(second.body)).not.toContain('Borealis has its own');
    expect(JSON.stringify(second.body)).not.toContain('belongs to no project');

    // --- what was persisted, in order
    const stored = await messagesOf(gw, chat.id);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const [user, withCalls, tool, final] = stored;
    expect(user).toMatchObject({ id: sent.userMessageId, content: 'What did we do about the quokka deploy last time?' });
    expect(withCalls.content).toBe('Let me look.');
    expect(JSON.parse(withCalls.toolCalls)).toEqual([{ id: 'call_scripted_0', type: 'function', function: { name: 'session_search', arguments: '{"query":"quokka"}' } }]);
    expect(tool).toMatchObject({ toolName: 'session_search', toolCallId: 'call_scripted_0' });
    expect(JSON.parse(tool.content)).toEqual(result);
    const anchor = result.results[0];
    expect(final.content).toBe(`Found it: "${anchor.snippet}" (${anchor.link})`);
    expect(final.id).toBe(end.messageId);
    // The anchor opens the original message.
    const original = (await rpc(gw, 'session.messages', { sessionId: anchor.session_id, afterId: anchor.message_id - 1, limit: 1 })).messages[0];
    expect(original.id).toBe(anchor.message_id);
    expect(original.content).toContain('quokka');

    // --- what WebSocket clients saw
    const events = chatEvents(ws, sent.runId);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('chat.started');
    expect(types[types.length - 1]).toBe('chat.done');
    expect(types.filter((t) => t === 'chat.done' || t === 'chat.error')).toHaveLength(1);
    expect(types.indexOf('chat.tool')).toBeLessThan(types.lastIndexOf('chat.delta'));
    expect(events[0]).toEqual({ type: 'chat.started', sessionId: chat.id, runId: sent.runId, userMessageId: sent.userMessageId });
    const toolEvent = events.find((e) => e.type === 'chat.tool');
    expect(toolEvent).toEqual({
      type: 'chat.tool',
      sessionId: chat.id,
      runId: sent.runId,
      round: 1,
      toolCallId: 'call_scripted_0',
      name: 'session_search',
      arguments: { query: 'quokka' },
      used_mode: 'keyword',
      hits: result.results.length,
      anchors: result.results.map((r: any) => ({ session_id: r.session_id, message_id: r.message_id, link: r.link })),
      messageId: tool.id,
    });
    const round2 = events.filter((e) => e.type === 'chat.delta' && e.round === 2).map((e) => e.text);
    expect(round2.length).toBeGreaterThan(1);
    expect(round2.join('')).toBe(final.content);
    expect(events.filter((e) => e.type === 'chat.delta' && e.round === 1).map((e) => e.text).join('')).toBe('Let me look.');
    // Persisted messages also raise the ordinary change event.
    const changed = ws.notifications.filter((n) => n.params.type === 'messages.changed' && n.params.sessionIds?.includes(chat.id)).flatMap((n) => n.params.messageIds ?? []);
    expect(changed).toEqual(stored.map((m) => m.id));
    // The key never travels to clients.
    expect(JSON.stringify(ws.notifications)).not.toContain(TEST_API_KEY);
  });

  test('after the earlier conversation moves to another project, the same question finds nothing from it', async () => {
    const { gw, openai, ws } = await startChatGateway();
    const { atlas, borealis, earlier } = await seedTwoProjects(gw);
    const chat = await createConversation(gw, atlas, 'Today');
    const ask = async () => {
      openai.push({ toolCalls: [{ name: 'session_search', arguments: { query: 'quokka' } }] }, quoteToolResult);
      const before = openai.requests.length;
      const sent = await rpc(gw, 'chat.send', { sessionId: chat.id, content: 'What did we do about the quokka deploy?' });
      expect(await waitForRunEnd(ws, sent.runId)).toMatchObject({ type: 'chat.done' });
      const answerRequest = openai.requests[before + 1]!;
      return { sent, result: lastToolResult(answerRequest), events: chatEvents(ws, sent.runId) };
    };

    const beforeMove = await ask();
    expect(beforeMove.result.results.map((r: any) => r.session_id)).toContain(earlier.id);

    const moved = await rpc(gw, 'session.project.set', { sessionId: earlier.id, projectId: borealis });
    expect(moved).toMatchObject({ projectId: borealis, previousProjectId: atlas });

    const afterMove = await ask();
    expect(afterMove.result.scope).toEqual({ kind: 'project', project_id: atlas });
    expect(afterMove.result.results).toEqual([]);
    expect(afterMove.events.find((e) => e.type === 'chat.tool')).toMatchObject({ hits: 0, anchors: [] });
    const stored = await messagesOf(gw, chat.id);
    expect(stored.at(-1).content).toBe('Nothing about that in this project.');
    // Nothing of the moved conversation entered the new tool result (it is still in the earlier,
    // already-answered turn of this history — results already returned are not withdrawn).
    expect(JSON.stringify(afterMove.result)).not.toContain('quokka-builder');
  });

  test('chat.send {wait: true} answers with the finished run (simple clients)', async () => {
    const { gw, openai } = await startChatGateway({ script: [{ toolCalls: [{ name: 'session_search', arguments: '{"query":"quokka"}' }] }, quoteToolResult] });
    const { atlas, earlier } = await seedTwoProjects(gw);
    const chat = await createConversation(gw, atlas, 'Today');
    const outcome = await rpc(gw, 'chat.send', { sessionId: chat.id, content: 'quokka?', wait: true });
    const stored = await messagesOf(gw, chat.id);
    expect(outcome).toMatchObject({
      status: 'completed',
      sessionId: chat.id,
      userMessageId: stored[0].id,
      messageId: stored[3].id,
      content: stored[3].content,
      messageIds: stored.map((m) => m.id),
      rounds: 2,
      error: null,
    });
    expect(outcome.toolCalls).toEqual([expect.objectContaining({ name: 'session_search', used_mode: 'keyword', hits: 1, messageId: stored[2].id })]);
    expect(outcome.toolCalls[0].anchors[0].session_id).toBe(earlier.id);
    expect(openai.requests).toHaveLength(2);
  });

  test('history sent to the model is the live messages only, with stored tool calls mapped back', async () => {
    const { gw, openai } = await startChatGateway({ script: [{ text: 'ok' }] });
    const project = await createProject(gw, 'Atlas');
    const chat = await createConversation(gw, project, 'Old', [
      { role: 'user', content: 'compacted question' },
      { role: 'assistant', content: 'compacted answer' },
    ]);
    await rpc(gw, 'session.compact', { sessionId: chat.id, upToMessageId: chat.messageIds[1] });
    await rpc(gw, 'session.append', { sessionId: chat.id, role: 'system', content: 'You are terse.' });
    await rpc(gw, 'session.append', {
      sessionId: chat.id,
      role: 'assistant',
      content: '',
      toolCalls: JSON.stringify([{ id: 'c1', type: 'function', function: { name: 'session_search', arguments: '{}' } }]),
    });
    await rpc(gw, 'session.append', { sessionId: chat.id, role: 'tool', content: '{"results":[]}', toolName: 'session_search', toolCallId: 'c1' });
    // An imported tool result without its call cannot be sent (the API would reject the request).
    await rpc(gw, 'session.append', { sessionId: chat.id, role: 'tool', content: 'orphan', toolName: 'x' });
    await rpc(gw, 'session.append', { sessionId: chat.id, role: 'assistant', content: 'nothing found' });
    const deleted = await rpc(gw, 'session.append', { sessionId: chat.id, role: 'user', content: 'deleted words' });
    await rpc(gw, 'session.delete', { messageId: deleted.id });

    await rpc(gw, 'chat.send', { sessionId: chat.id, content: 'next', wait: true });
    expect(openai.requests[0]!.body.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'session_search', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '{"results":[]}' },
      { role: 'assistant', content: 'nothing found' },
      { role: 'user', content: 'next' },
    ]);
  });

  test('a tool call with bad arguments or an unknown tool gets an error result and the turn goes on', async () => {
    const { gw, openai } = await startChatGateway({
      script: [
        {
          toolCalls: [
            { name: 'session_search', arguments: '{"query": "quokka", "project_id": "p_other"}' },
            { name: 'session_search', arguments: '{not json' },
            { name: 'shell', arguments: { cmd: 'ls' } },
          ],
        },
        { text: 'I could not search.' },
      ],
    });
    const project = await createProject(gw, 'Atlas');
    const chat = await createConversation(gw, project, 'Today');
    const outcome = await rpc(gw, 'chat.send', { sessionId: chat.id, content: 'search please', wait: true });
    expect(outcome.status).toBe('completed');
    expect(outcome.toolCalls.map((t: any) => t.error?.code)).toEqual(['invalid_arguments', 'invalid_arguments', 'unknown_tool']);
    expect(outcome.toolCalls[1].arguments).toBe('{not json');
    const results = openai.requests[1]!.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => JSON.parse(m.content).error.code);
    expect(results).toEqual(['invalid_arguments', 'invalid_arguments', 'unknown_tool']);
    expect((await messagesOf(gw, chat.id)).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'tool', 'assistant']);
  });
});

describe('chat.status and configuration', () => {
  test('a configured gateway reports model and endpoint, never the key', async () => {
    const { gw, openai } = await startChatGateway();
    const status = await rpc(gw, 'chat.status');
    expect(status).toMatchObject({
      configured: true,
      model: 'scripted-model',
      baseUrl: openai.url,
      apiKeySet: true,
      missing: [],
      searchAvailable: true,
      limits: { maxToolRounds: 4, turnTimeoutMs: 120_000 },
      activeRuns: [],
    });
    expect(typeof status.howToConfigure).toBe('string');
    expect(JSON.stringify(status)).not.toContain(TEST_API_KEY);
    const discovered = await rpc(gw, 'rpc.discover');
    expect(discovered.methods.map((m: any) => m.name)).toEqual(expect.arrayContaining(['chat.send', 'chat.cancel', 'chat.status', 'chat.compress']));
  });

  test('credentials in the base URL are not reported', async () => {
    const { gw } = await startChatGateway({ chat: { baseUrl: 'http://user:pw@127.0.0.1:9/v1?api-key=zzz' } });
    const status = await rpc(gw, 'chat.status');
    expect(status.baseUrl).toBe('http://127.0.0.1:9/v1');
  });

  test('an unknown session is session_not_found and nothing is sent to the model', async () => {
    const { gw, openai } = await startChatGateway();
    expect(await rpcError(gw, 'chat.send', { sessionId: 's_missing', content: 'hi' })).toMatchObject({ code: -32002, data: { code: 'session_not_found' } });
    expect(await rpcError(gw, 'chat.send', { sessionId: 's_missing', content: '   ' })).toMatchObject({ code: -32602 });
    expect(openai.requests).toHaveLength(0);
  });
});
