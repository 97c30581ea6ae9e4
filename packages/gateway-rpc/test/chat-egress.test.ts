/**
 * What the chat sends to the model endpoint, checked against what docs/rpc.md ("What leaves the
 * machine") says it sends: the live history (compacted and rewound messages are not sent), this
 * turn's tool results, the session_search tool definition and the model name in the body; the key
 * in `Authorization: Bearer`; otherwise only transport headers and the SDK's platform headers
 * (`User-Agent`, `X-Stainless-*`). A real gateway and a scripted OpenAI-compatible server on
 * 127.0.0.1 record every request; a header or body field the document does not name fails the test,
 * so the document cannot silently fall behind the SDK or the chat loop.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lastToolResult, type RecordedRequest } from '@recall/config/scripted-openai';
import { afterEach, describe, expect, test } from 'vitest';
import { cleanup, rpc } from './helpers.js';
import { createConversation, createProject, messagesOf, startChatGateway, TEST_API_KEY } from './support/chat-gateway.js';

afterEach(cleanup);

const RPC_MD = readFileSync(new URL('../../../docs/rpc.md', import.meta.url), 'utf8');
/** The paragraph of docs/rpc.md that says what leaves the machine. */
const EGRESS = /\*\*What leaves the machine\.\*\*([\s\S]*?)\n\n/.exec(RPC_MD)?.[1] ?? '';

/** Request headers any HTTP client sends (not information about the user or the machine). */
const TRANSPORT = new Set(['host', 'connection', 'content-type', 'content-length', 'accept', 'accept-encoding', 'transfer-encoding', 'keep-alive']);
/** Added by Node's fetch (undici) with fixed values that say nothing about the user or the machine. */
const FETCH_CONSTANTS: Record<string, string> = { 'accept-language': '*', 'sec-fetch-mode': 'cors' };

describe('docs/rpc.md says what chat sends to the model endpoint', () => {
  test.each([
    ['the live history', /live history/],
    ['that compacted and rewound messages are not sent', /compacted and rewound messages are not\s+sent/],
    ['the tool results', /tool results/],
    ['the tool definition and model name', /tool definition and the model\s+name/],
    ['where the key goes', /Authorization: Bearer/],
    ['the SDK platform headers', /platform headers[\s\S]*User-Agent[\s\S]*X-Stainless-\*/],
  ])('the paragraph names %s', (_what, pattern) => {
    expect(EGRESS, 'docs/rpc.md has a "What leaves the machine." paragraph').not.toBe('');
    expect(EGRESS).toMatch(pattern);
  });

  test('a turn with a tool call sends exactly that: documented headers, documented body fields, live messages only', async () => {
    const { gw, openai } = await startChatGateway({
      script: [{ toolCalls: [{ name: 'session_search', arguments: { query: 'okapi' } }] }, { text: 'Thursdays.' }],
    });
    const project = await createProject(gw, 'Zoo');
    await createConversation(gw, project, 'Earlier', [{ role: 'user', content: 'The okapi rotation happens on Thursdays.' }]);
    const chat = await createConversation(gw, project, 'Today', [
      { role: 'user', content: 'compacted-away question' },
      { role: 'assistant', content: 'compacted-away answer' },
      { role: 'user', content: 'a live question' },
      { role: 'assistant', content: 'a rewound answer' },
    ]);
    await rpc(gw, 'session.compact', { sessionId: chat.id, upToMessageId: chat.messageIds[1] });
    await rpc(gw, 'session.rewind', { sessionId: chat.id, toMessageId: chat.messageIds[2] });
    // session.messages still shows compacted text (it stays recallable); the rewound answer is gone.
    expect((await messagesOf(gw, chat.id)).map((m) => m.content)).toEqual(['compacted-away question', 'compacted-away answer', 'a live question']);

    const outcome = await rpc(gw, 'chat.send', { sessionId: chat.id, content: 'When is the okapi rotation?', wait: true });
    expect(outcome.status).toBe('completed');
    const [first, second] = openai.requests as [RecordedRequest, RecordedRequest];
    expect(openai.requests).toHaveLength(2);

    for (const request of [first, second]) {
      // Headers: transport, the key, and the SDK's platform headers — nothing else.
      for (const [name, value] of Object.entries(FETCH_CONSTANTS)) if (name in request.headers) expect(request.headers[name], name).toBe(value);
      const other = Object.keys(request.headers).filter((h) => !TRANSPORT.has(h) && !(h in FETCH_CONSTANTS) && h !== 'authorization' && h !== 'user-agent' && !h.startsWith('x-stainless-'));
      expect(other, 'headers docs/rpc.md does not mention').toEqual([]);
      expect(request.headers.authorization).toBe(`Bearer ${TEST_API_KEY}`);
      // Body: the model, the messages, the tool offered, and how to answer (stream / tool choice).
      expect(Object.keys(request.body).filter((k) => !['model', 'messages', 'tools', 'tool_choice', 'stream', 'stream_options'].includes(k))).toEqual([]);
      expect(request.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['session_search']);
      const text = JSON.stringify(request.body.messages);
      for (const hidden of ['compacted-away question', 'compacted-away answer', 'a rewound answer']) expect(text).not.toContain(hidden);
    }
    expect(first.body.messages.map((m: { content: string }) => m.content)).toEqual(['a live question', 'When is the okapi rotation?']);
    // The second request adds this turn's tool call and its result (earlier conversations of the project).
    expect(second.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'user', 'assistant', 'tool']);
    expect(lastToolResult(second).results[0].snippet).toContain('okapi');
    // The SDK's platform headers are really there (what the document warns about).
    expect(Object.keys(first.headers).some((h) => h.startsWith('x-stainless-'))).toBe(true);
  });
});
