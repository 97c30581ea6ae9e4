/**
 * The chat package's pure parts: stored rows → chat-completions messages (tool-call pairing repair),
 * the toolCalls JSON round trip and the settings rules (configured or not, defaults, bounds). The
 * configuration sources for chat (environment, config.json) are the gateway's: see
 * packages/gateway-rpc/test/chat-config.test.ts.
 */
import { describe, expect, test } from 'vitest';
import type { Message } from '@recall/rpc-contract';
import { parseToolCalls, publicChatSettings, resolveChatSettings, serializeToolCalls, toModelMessages } from '../src/index.js';

let nextId = 1;
function msg(role: Message['role'], content: string, extra: Partial<Message> = {}): Message {
  return { id: nextId++, sessionId: 's', role, content, toolName: null, toolCalls: null, toolCallId: null, externalId: null, createdAt: 0, visibility: 'live', editedAt: null, ...extra };
}
const call = (id: string, name = 'session_search', args = '{}') => ({ id, type: 'function' as const, function: { name, arguments: args } });

describe('toModelMessages', () => {
  test('maps roles, keeps answered calls with their answers, drops unpaired halves', () => {
    const history = [
      msg('system', 'sys'),
      msg('user', 'q1'),
      msg('assistant', 'looking', { toolCalls: serializeToolCalls([call('a'), call('b')]) }),
      msg('tool', 'result a', { toolCallId: 'a', toolName: 'session_search' }),
      msg('tool', 'duplicate a', { toolCallId: 'a' }),
      // b was never answered (crash between call and result): it is dropped, a is kept.
      msg('assistant', '', { toolCalls: serializeToolCalls([call('c')]) }), // no answer at all, no text → dropped
      msg('tool', 'orphan', { toolCallId: 'zzz' }),
      msg('assistant', 'final'),
    ];
    expect(toModelMessages(history)).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'looking', tool_calls: [call('a')] },
      { role: 'tool', tool_call_id: 'a', content: 'result a' },
      { role: 'assistant', content: 'final' },
    ]);
  });

  test('an assistant message whose calls were all unanswered keeps its text', () => {
    expect(toModelMessages([msg('assistant', 'I will search', { toolCalls: serializeToolCalls([call('x')]) })])).toEqual([{ role: 'assistant', content: 'I will search' }]);
  });

  test('parseToolCalls accepts the wire shape and ignores anything else', () => {
    expect(parseToolCalls(null)).toEqual([]);
    expect(parseToolCalls('not json')).toEqual([]);
    expect(parseToolCalls('{"id":"x"}')).toEqual([]);
    expect(parseToolCalls(JSON.stringify([{ id: 'a', function: { name: 'f', arguments: { q: 1 } } }, { id: '', function: { name: 'g' } }, 5, null]))).toEqual([
      call('a', 'f', '{"q":1}'),
    ]);
    const calls = [call('a', 'session_search', '{"query":"x"}')];
    expect(parseToolCalls(serializeToolCalls(calls))).toEqual(calls);
  });
});

describe('chat settings', () => {
  test('defaults and the configured rule', () => {
    expect(resolveChatSettings(undefined)).toMatchObject({ configured: false, missing: ['model', 'apiKey or baseUrl'], maxToolRounds: 4, turnTimeoutMs: 120_000, maxRetries: 1 });
    expect(resolveChatSettings({ model: 'm', baseUrl: 'http://127.0.0.1:1234/v1' })).toMatchObject({ configured: true, apiKey: null });
    expect(resolveChatSettings({ model: 'm', apiKey: 'k' })).toMatchObject({ configured: true, baseUrl: 'https://api.openai.com/v1', baseUrlConfigured: false });
    expect(() => resolveChatSettings({ maxToolRounds: 17 })).toThrow(/maxToolRounds/);
    expect(() => resolveChatSettings({ turnTimeoutMs: 10 })).toThrow(/turnTimeoutMs/);
  });

  test('the public view never holds the key', () => {
    const view = publicChatSettings(resolveChatSettings({ model: 'm', apiKey: 'sk-very-secret', baseUrl: 'https://u:p@example.test/v1/?k=sk-very-secret' }));
    expect(view).toMatchObject({ configured: true, apiKeySet: true, baseUrl: 'https://example.test/v1' });
    expect(JSON.stringify(view)).not.toContain('sk-very-secret');
  });
});
