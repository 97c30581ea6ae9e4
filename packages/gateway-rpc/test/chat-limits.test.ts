/**
 * Limits and failures of the chat loop, each through the real gateway and a scripted endpoint:
 * cancellation (the OpenAI request is aborted, what was completed stays), the bounded number of tool
 * rounds, the per-turn deadline, one run per session, endpoint failures (HTTP errors, malformed
 * streams, an unreachable server) as typed errors with the user's message still persisted, the
 * not-configured path (typed error, nothing written, everything else working) and shutdown.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { createServer } from 'node:net';
import { cleanup, rowCounts, rpc, rpcError, startTestGateway } from './helpers.js';
import { chatEvents, createConversation, createProject, messagesOf, startChatGateway, TEST_API_KEY, waitForRunEnd } from './support/chat-gateway.js';
import { toolResultsIn } from '@recall/config/scripted-openai';

afterEach(cleanup);

const search = (query: string) => ({ toolCalls: [{ name: 'session_search', arguments: { query } }] });

/** A TCP port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('cancellation', () => {
  test('chat.cancel aborts the streaming request; the user message and completed tool round stay, the partial answer does not', async () => {
    const { gw, openai, ws } = await startChatGateway({ script: [search('quokka'), { hang: true, text: 'Partial ans' }] });
    const project = await createProject(gw, 'Atlas');
    const chat = await createConversation(gw, project, 'Today');
    const sent = await rpc(gw, 'chat.send', { sessionId: chat.id, content: 'tell me' });
    await ws.waitForNotification((n) => n.params.type === 'chat.delta' && n.params.runId === sent.runId && n.params.round === 2);
    expect((await rpc(gw, 'chat.status')).activeRuns).toEqual([{ runId: sent.runId, sessionId: chat.id, userMessageId: sent.userMessageId, startedAt: expect.any(Number) }]);

    expect(await rpc(gw, 'chat.cancel', { runId: sent.runId })).toEqual({ runId: sent.runId, cancelled: true, status: 'running' });
    const end = await waitForRunEnd(ws, sent.runId);
    expect(end).toMatchObject({ type: 'chat.error', status: 'cancelled', code: 'chat_cancelled', retryable: false });

    const stored = await messagesOf(gw, chat.id);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(end.messageIds).toEqual(stored.map((m) => m.id));
    expect(stored.some((m) => m.content.includes('Partial'))).toBe(false);
    // The endpoint saw the request go away.
    await expect.poll(() => openai.requests[1]!.aborted).toBe(true);
    // A finished run can be asked about, and the session is free again.
    expect(await rpc(gw, 'chat.cancel', { runId: sent.runId })).toEqual({ runId: sent.runId, cancelled: false, status: 'cancelled' });
    expect((await rpc(gw, 'chat.status')).activeRuns).toEqual([]);
    openai.push({ text: 'fine' });
    expect(await rpc(gw, 'chat.send', { sessionId: chat.id, content: 'again', wait: true })).toMatchObject({ status: 'completed', content: 'fine' });
    // The cancelled turn left a well-formed history: calls answered, no dangling partial text.
    expect(openai.requests[2]!.body.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
  });

  test('an unknown run is chat_run_not_found; a wait:true caller gets chat_cancelled with its user message id', async () => {
    const { gw, openai } = await startChatGateway({ script: [{ hang: true }] });
    expect(await rpcError(gw, 'chat.cancel', { runId: 'run_nope' })).toMatchObject({ code: -32020, data: { code: 'chat_run_not_found' } });
    const project = await createProject(gw, 'Atlas');
    const chat = await createConversation(gw, project, 'Today');
    const waiting = rpcError(gw, 'chat.send', { sessionId: chat.id, content: 'hello', wait: true });
    await openai.waitForRequests(1);
    const [run] = (await rpc(gw, 'chat.status')).activeRuns;
    await rpc(gw, 'chat.cancel', { runId: run.runId });
    const error = await waiting;
    const stored = await messagesOf(gw, chat.id);
    expect(error).toMatchObject({ code: -32022, data: { code: 'chat_cancelled', runId: run.runId, userMessageId: stored[0].id, status: 'cancelled' } });
    expect(stored.map((m) => m.content)).toEqual(['hello']);
  });
});

describe('limits', () => {
  test('after maxToolRounds tool rounds the model is asked once more without tools; if it insists, chat_tool_rounds_exceeded', async () => {
    const { gw, openai, ws } = await startChatGateway({ chat: { maxToolRounds: 2 }, script: [search('a'), search('b'), search('c')] });
    const project = await createProject(gw, 'Atlas');
    const chat = await createConversation(gw, project, 'Today');
    const sent = await rpc(gw, 'chat.send', { sessionId: chat.id, content: 'loop forever' });
    const end = await waitForRunEnd(ws, sent.runId);
    expect(end).toMatchObject({ type: 'chat.error', status: 'failed', code: 'chat_tool_rounds_exceeded' });
    expect(openai.requests).toHaveLength(3);
    expect(openai.requests.map((r) => r.body.tool_choice)).toEqual([undefined, undefined, 'none']);
    expect(chatEvents(ws, sent.runId).filter((e) => e.type === 'chat.tool')).toHaveLength(2);
    // Two complete rounds are stored; the third (refused) tool call is not.
    expect((await messagesOf(gw, chat.id)).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
  });

  test('a model that answers on the forced last request completes normally', async () => {
    const { gw, openai } = await startChatGateway({ chat: { maxToolRounds: 1 }, script: [search('a'), { text: 'Here is my answer.' }] });
    const project = await createProject(gw, 'Atlas');
    const chat = await createConversation(gw, project, 'Today');
    const outcome = await rpc(gw, 'chat.send', { sessionId: chat.id, content: 'q', wait: true });
    expect(outcome).toMatchObject({ status: 'completed', content: 'Here is my answer.', rounds: 2 });
    expect(openai.requests[1]!.body.tool_choice).toBe('none');
    expect(toolResultsIn(openai.requests[1]!)).toHaveLength(1);
  });

  test('the per-turn deadline aborts a hanging endpoint with chat_deadline_exceeded', async () => {
    const { gw, openai, ws } = await startChatGateway({ chat: { turnTimeoutMs: 1_000 }, script: [{ hang: true, text: 'thinking' }] });
    const project = await createProject(gw, 'Atlas');
    const chat = await createConversation(gw, project, 'Today');
    const started = Date.now();
    const sent = await rpc(gw, 'chat.send', { sessionId: chat.id, content: 'slow question' });
    const end = await waitForRunEnd(ws, sent.runId);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(end).toMatchObject({ type: 'chat.error', status: 'failed', code: 'chat_deadline_exceeded', retryable: true, messageIds: [sent.userMessageId] });
    expect((await messagesOf(gw, chat.id)).map((m) => m.content)).toEqual(['slow question']);
    await expect.poll(() => openai.requests[0]!.aborted).toBe(true);
  });

  test('one run per session: a second send while answering is chat_busy (other sessions are not blocked)', async () => {
    const { gw, openai, ws } = await startChatGateway({ script: [{ hang: true }, { text: 'other answer' }] });
    const project = await createProject(gw, 'Atlas');
    const a = await createConversation(gw, project, 'A');
    const b = await createConversation(gw, project, 'B');
    const sent = await rpc(gw, 'chat.send', { sessionId: a.id, content: 'first' });
    await openai.waitForRequests(1);
    const counts = rowCounts(gw);
    expect(await rpcError(gw, 'chat.send', { sessionId: a.id, content: 'second' })).toMatchObject({ code: -32019, data: { code: 'chat_busy', runId: sent.runId } });
    expect(await rpcError(gw, 'chat.compress', { sessionId: a.id })).toMatchObject({ data: { code: 'chat_busy' } });
    expect(rowCounts(gw)).toEqual(counts);
    expect(await rpc(gw, 'chat.send', { sessionId: b.id, content: 'in parallel', wait: true })).toMatchObject({ status: 'completed', content: 'other answer' });
    await rpc(gw, 'chat.cancel', { runId: sent.runId });
    await waitForRunEnd(ws, sent.runId);
  });
});

describe('endpoint failures become typed errors; the user message is kept', () => {
  test.each([
    ['HTTP 500', { status: 500, message: 'upstream exploded' }, 'chat_model_error', -32029, true],
    ['HTTP 401', { status: 401, message: `Incorrect API key provided: ${TEST_API_KEY}` }, 'chat_model_auth_failed', -32026, false],
    ['HTTP 404', { status: 404, message: 'model "scripted-model" not found' }, 'chat_model_not_found', -32027, false],
    ['HTTP 429', { status: 429, message: 'slow down' }, 'chat_model_rate_limited', -32028, true],
    ['malformed SSE', { raw: 'data: {"choices": [ oops\n\n' }, 'chat_model_bad_response', -32030, true],
    ['a stream without choices', { raw: 'data: {"id":"x","object":"chat.completion.chunk","choices":[]}\n\ndata: [DONE]\n\n' }, 'chat_model_bad_response', -32030, true],
    ['an HTML page', { raw: '<html>proxy error</html>', contentType: 'text/html' }, 'chat_model_bad_response', -32030, true],
    ['an error inside the stream', { raw: 'data: {"error":{"message":"context length exceeded"}}\n\n' }, 'chat_model_error', -32029, true],
  ] as const)('%s → %s', async (_name, step, code, numeric, retryable) => {
    const { gw, openai, ws } = await startChatGateway({ script: [step] });
    const project = await createProject(gw, 'Atlas');
    const chat = await createConversation(gw, project, 'Today');
    const sent = await rpc(gw, 'chat.send', { sessionId: chat.id, content: 'hello?' });
    const end = await waitForRunEnd(ws, sent.runId);
    expect(end).toMatchObject({ type: 'chat.error', status: 'failed', code, retryable, messageIds: [sent.userMessageId] });
    expect(end.message).not.toContain(TEST_API_KEY);
    expect((await messagesOf(gw, chat.id)).map((m) => m.content)).toEqual(['hello?']);
    expect(openai.requests).toHaveLength(1);
    // The same failure as a wire error for wait:true callers.
    openai.push(step);
    const error = await rpcError(gw, 'chat.send', { sessionId: chat.id, content: 'again?', wait: true });
    expect(error).toMatchObject({ code: numeric, data: { code, status: 'failed' } });
    expect(JSON.stringify(error)).not.toContain(TEST_API_KEY);
    expect((await messagesOf(gw, chat.id)).map((m) => m.content)).toEqual(['hello?', 'again?']);
    expect(gw.logs.filter((l) => l.level === 'error')).toEqual([]);
  });

  test('an unreachable endpoint → chat_model_unreachable', async () => {
    const port = await closedPort();
    const { gw, ws } = await startChatGateway({ chat: { baseUrl: `http://127.0.0.1:${port}/v1` } });
    const project = await createProject(gw, 'Atlas');
    const chat = await createConversation(gw, project, 'Today');
    const sent = await rpc(gw, 'chat.send', { sessionId: chat.id, content: 'anyone there?' });
    expect(await waitForRunEnd(ws, sent.runId)).toMatchObject({ code: 'chat_model_unreachable', retryable: true });
    expect((await messagesOf(gw, chat.id)).map((m) => m.content)).toEqual(['anyone there?']);
  });
});

describe('no model configured', () => {
  test('chat.send is chat_not_configured with how to configure; nothing is written and everything else works', async () => {
    const gw = await startTestGateway();
    const status = await rpc(gw, 'chat.status');
    expect(status).toMatchObject({ configured: false, apiKeySet: false, missing: ['model', 'apiKey or baseUrl'], searchAvailable: false, activeRuns: [] });
    expect(status.howToConfigure).toContain('RECALL_CHAT_MODEL');
    expect(status).not.toHaveProperty('model');

    const project = await createProject(gw, 'Atlas');
    const chat = await createConversation(gw, project, 'Today', [{ role: 'user', content: 'hi' }]);
    const before = rowCounts(gw);
    const error = await rpcError(gw, 'chat.send', { sessionId: chat.id, content: 'hello' });
    expect(error).toMatchObject({ code: -32018, data: { code: 'chat_not_configured', missing: 'model, apiKey or baseUrl', howToConfigure: expect.stringContaining('RECALL_CHAT_MODEL') } });
    expect(rowCounts(gw)).toEqual(before);
    // Everything else keeps working, including the chat's /compress.
    await rpc(gw, 'session.append', { sessionId: chat.id, role: 'assistant', content: 'typed by hand' });
    expect((await rpc(gw, 'chat.compress', { sessionId: chat.id })).session.lineage).toBe('compression');
  });

  test('a model without key or base URL is not configured (api.openai.com needs a key); a base URL alone is enough', async () => {
    const noEndpoint = await startTestGateway({ chat: { model: 'gpt-x' } });
    expect(await rpc(noEndpoint, 'chat.status')).toMatchObject({ configured: false, model: 'gpt-x', missing: ['apiKey or baseUrl'] });
    const local = await startTestGateway({ chat: { model: 'qwen', baseUrl: 'http://127.0.0.1:11434/v1' } });
    expect(await rpc(local, 'chat.status')).toMatchObject({ configured: true, model: 'qwen', baseUrl: 'http://127.0.0.1:11434/v1', apiKeySet: false });
    const hosted = await startTestGateway({ chat: { model: 'gpt-x', apiKey: 'sk-abc' } });
    expect(await rpc(hosted, 'chat.status')).toMatchObject({ configured: true, baseUrl: 'https://api.openai.com/v1', apiKeySet: true });
  });

  test('invalid chat settings fail the start with invalid_config, without echoing the key', async () => {
    await expect(startTestGateway({ chat: { model: 'm', apiKey: 'sk-secret-value', maxToolRounds: 0 } })).rejects.toMatchObject({ code: 'invalid_config' });
    await expect(startTestGateway({ chat: { model: 'm', apiKey: 'sk-secret-value', baseUrl: 'not a url' } })).rejects.toSatisfy((e: Error) => !e.message.includes('sk-secret-value'));
  });
});

describe('lifecycle', () => {
  test('closing the gateway cancels running answers and keeps what they stored', async () => {
    const { gw, openai, ws } = await startChatGateway({ script: [search('x'), { hang: true }] });
    const project = await createProject(gw, 'Atlas');
    const chat = await createConversation(gw, project, 'Today');
    const sent = await rpc(gw, 'chat.send', { sessionId: chat.id, content: 'long one' });
    await openai.waitForRequests(2);
    const end = waitForRunEnd(ws, sent.runId);
    const home = gw.home;
    await gw.close();
    expect(await end).toMatchObject({ type: 'chat.error', status: 'cancelled', code: 'chat_cancelled', retryable: true });
    const reopened = await startTestGateway({ home });
    expect((await messagesOf(reopened, chat.id)).map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  });

  test('a compressed session refuses new messages and points at its continuation', async () => {
    const { gw } = await startChatGateway();
    const project = await createProject(gw, 'Atlas');
    const chat = await createConversation(gw, project, 'Today', [{ role: 'user', content: 'x' }]);
    const { session } = await rpc(gw, 'chat.compress', { sessionId: chat.id });
    expect(await rpcError(gw, 'chat.send', { sessionId: chat.id, content: 'hi' })).toMatchObject({
      code: -32021,
      data: { code: 'chat_session_ended', continuationId: session.id },
    });
    expect(await rpcError(gw, 'chat.compress', { sessionId: chat.id })).toMatchObject({ data: { code: 'chat_session_ended', continuationId: session.id } });
  });
});
