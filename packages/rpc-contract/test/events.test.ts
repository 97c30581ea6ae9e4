/**
 * The event schemas on their own: every event type has one, well-formed events pass, and a missing,
 * extra, mistyped or unknown-vocabulary field fails (gateway-rpc's event-contract test then parses
 * what a real server sends).
 */
import { describe, expect, test } from 'vitest';
import { CHAT_EVENT_TYPES, EVENT_SCHEMA_TYPES, EVENT_TYPES, wireEventSchema } from '../src/index.js';

const run = { sessionId: 's_1', runId: 'r_1' };
const good: [string, unknown][] = [
  ['sessions.changed with ids', { type: 'sessions.changed', sessionIds: ['s_1'], projectIds: ['p_1'] }],
  ['an id-less change (refresh everything)', { type: 'projects.changed' }],
  ['messages.changed', { type: 'messages.changed', sessionIds: ['s_1'], messageIds: [3, 4], projectIds: [] }],
  ['index.changed', { type: 'index.changed', projectIds: ['p_1'] }],
  ['unassigned move', { type: 'sessions.changed', sessionIds: ['s_1'], unassigned: true }],
  ['chat.started', { type: 'chat.started', ...run, userMessageId: 7 }],
  ['chat.delta', { type: 'chat.delta', ...run, round: 1, text: 'he' }],
  ['chat.tool', { type: 'chat.tool', ...run, round: 1, toolCallId: 'c1', name: 'session_search', arguments: { query: 'x' }, used_mode: 'keyword', hits: 1, anchors: [{ session_id: 's_2', message_id: 9, link: 'recall://s_2#9' }], messageId: 8 }],
  ['chat.tool that failed', { type: 'chat.tool', ...run, round: 2, toolCallId: 'c2', name: 'session_search', arguments: 'not json', used_mode: null, hits: 0, anchors: [], error: { code: 'invalid_arguments', message: 'bad' }, messageId: 10 }],
  ['chat.done', { type: 'chat.done', ...run, messageId: 11, status: 'completed' }],
  ['chat.error', { type: 'chat.error', ...run, status: 'failed', code: 'chat_model_error', message: 'HTTP 500', retryable: true, messageIds: [7] }],
];

const bad: [string, unknown][] = [
  ['unknown type', { type: 'sessions.renamed' }],
  ['extra field on a change event', { type: 'sessions.changed', content: 'leaks text' }],
  ['message ids as strings', { type: 'messages.changed', messageIds: ['3'] }],
  ['chat.delta without text', { type: 'chat.delta', ...run, round: 1 }],
  ['chat.done with another status', { type: 'chat.done', ...run, messageId: 11, status: 'failed' }],
  ['chat.error with a non-chat code', { type: 'chat.error', ...run, status: 'failed', code: 'not_found', message: 'x', retryable: false, messageIds: [] }],
  ['chat.tool anchor without a link', { type: 'chat.tool', ...run, round: 1, toolCallId: 'c', name: 'n', arguments: {}, used_mode: null, hits: 0, anchors: [{ session_id: 's', message_id: 1 }], messageId: 2 }],
];

describe('event schemas', () => {
  test('every event type has a schema', () => {
    expect([...EVENT_SCHEMA_TYPES].sort()).toEqual([...EVENT_TYPES, ...CHAT_EVENT_TYPES].sort());
    for (const type of EVENT_SCHEMA_TYPES) {
      const sample = good.find(([, e]) => (e as { type: string }).type === type);
      expect(sample, `a well-formed sample of ${type}`).toBeDefined();
    }
  });
  test.each(good)('accepts %s', (_name, event) => {
    expect(wireEventSchema.safeParse(event).success).toBe(true);
  });
  test.each(bad)('refuses %s', (_name, event) => {
    expect(wireEventSchema.safeParse(event).success).toBe(false);
  });
});
