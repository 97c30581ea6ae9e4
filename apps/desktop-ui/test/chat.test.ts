import { describe, expect, it } from 'vitest';
import {
  callsById,
  chatRunsReducer,
  formatArgs,
  initialChatRuns,
  isActive,
  isCompressCommand,
  liveText,
  parseToolCalls,
  runPhase,
  toolViewFromEvent,
  toolViewFromMessage,
  type ChatRunsAction,
  type ChatRunsState,
} from '../src/lib/chat';
import type { ChatEvent, ChatToolEvent, Message } from '@recall/rpc-contract';

const S = 's_chat';
const R = 'run_1';

function fold(actions: ChatRunsAction[], state: ChatRunsState = initialChatRuns): ChatRunsState {
  return actions.reduce(chatRunsReducer, state);
}
const ev = (event: ChatEvent, now = 1000): ChatRunsAction => ({ kind: 'event', event, now });

const tool: ChatToolEvent = {
  type: 'chat.tool',
  sessionId: S,
  runId: R,
  round: 1,
  toolCallId: 'call_1',
  name: 'session_search',
  arguments: { query: 'marmoset' },
  used_mode: 'keyword',
  hits: 1,
  anchors: [{ session_id: 's_old', message_id: 7, link: 'recall://session/s_old#m7' }],
  messageId: 12,
};

describe('chatRunsReducer', () => {
  it('follows a turn: sending → events (even before chat.send answered) → done', () => {
    let s = fold([{ kind: 'sending', sessionId: S, content: 'Which checksum?', now: 1 }]);
    expect(s.bySession[S]).toMatchObject({ status: 'sending', runId: null, content: 'Which checksum?' });
    expect(isActive(s.bySession[S])).toBe(true);
    // The WebSocket overtakes the HTTP answer.
    s = fold([ev({ type: 'chat.started', sessionId: S, runId: R, userMessageId: 10 }), ev({ type: 'chat.delta', sessionId: S, runId: R, round: 1, text: 'Let me ' })], s);
    expect(s.bySession[S]).toMatchObject({ status: 'running', runId: R, userMessageId: 10 });
    s = fold([{ kind: 'sent', sessionId: S, runId: R, userMessageId: 10 }], s);
    expect(s.bySession[S]!.status).toBe('running');
    expect(liveText(s.bySession[S])).toBe('Let me ');
    // Round 1 ends with a tool call: its text was stored with the call, the live bubble is empty.
    s = fold([ev(tool)], s);
    expect(liveText(s.bySession[S])).toBe('');
    expect(s.toolsByMessage[12]).toEqual(tool);
    expect(runPhase(s.bySession[S]!)).toMatch(/search results/);
    s = fold([ev({ type: 'chat.delta', sessionId: S, runId: R, round: 2, text: 'We picked ' }), ev({ type: 'chat.delta', sessionId: S, runId: R, round: 2, text: 'CRC-32C.' })], s);
    expect(liveText(s.bySession[S])).toBe('We picked CRC-32C.');
    expect(runPhase(s.bySession[S]!)).toBe('Answering…');
    s = fold([ev({ type: 'chat.done', sessionId: S, runId: R, messageId: 14, status: 'completed' })], s);
    expect(s.bySession[S]).toMatchObject({ status: 'done', finalMessageId: 14 });
    expect(isActive(s.bySession[S])).toBe(false);
    expect(liveText(s.bySession[S])).toBe('We picked CRC-32C.');
  });

  it('a terminal event that arrives before chat.send answered is not undone by the answer', () => {
    const s = fold([
      { kind: 'sending', sessionId: S, content: 'q' },
      ev({ type: 'chat.started', sessionId: S, runId: R, userMessageId: 3 }),
      ev({ type: 'chat.done', sessionId: S, runId: R, messageId: 4, status: 'completed' }),
      { kind: 'sent', sessionId: S, runId: R, userMessageId: 3 },
    ]);
    expect(s.bySession[S]).toMatchObject({ status: 'done', finalMessageId: 4 });
  });

  it('chat.error drops the partial answer and keeps the error; a refusal leaves no run', () => {
    let s = fold([
      { kind: 'sending', sessionId: S, content: 'q' },
      { kind: 'sent', sessionId: S, runId: R, userMessageId: 3 },
      ev({ type: 'chat.delta', sessionId: S, runId: R, round: 1, text: 'partial' }),
      { kind: 'cancelling', sessionId: S, on: true },
    ]);
    expect(runPhase(s.bySession[S]!)).toBe('Stopping…');
    s = fold([ev({ type: 'chat.error', sessionId: S, runId: R, status: 'cancelled', code: 'chat_cancelled', message: 'Cancelled', retryable: false, messageIds: [3] })], s);
    expect(s.bySession[S]).toMatchObject({ status: 'error', cancelling: false, error: { code: 'chat_cancelled', status: 'cancelled' } });
    expect(liveText(s.bySession[S])).toBe('');
    s = fold([{ kind: 'dismiss', sessionId: S }], s);
    expect(s.bySession[S]).toBeUndefined();

    const refused = fold([{ kind: 'sending', sessionId: S, content: 'q' }, { kind: 'refused', sessionId: S }]);
    expect(refused.bySession[S]).toBeUndefined();
  });

  it('ignores terminal events of runs it never saw, and adopts runs started elsewhere', () => {
    expect(fold([ev({ type: 'chat.done', sessionId: S, runId: 'other', messageId: 1, status: 'completed' })])).toEqual(initialChatRuns);
    const s = fold([ev({ type: 'chat.delta', sessionId: S, runId: 'other', round: 1, text: 'hi' })]);
    expect(s.bySession[S]).toMatchObject({ runId: 'other', status: 'running', content: null });
  });

  it('joins active runs from chat.status and ends runs the gateway no longer has', () => {
    let s = fold([{ kind: 'status', activeRuns: [{ runId: R, sessionId: S, userMessageId: 5, startedAt: 1 }], requestedAt: 100, now: 100 }]);
    expect(s.bySession[S]).toMatchObject({ runId: R, joined: true, status: 'running' });
    expect(runPhase(s.bySession[S]!)).toMatch(/started earlier/);
    // Known before the next status request and gone from it: its end was missed.
    s = fold([{ kind: 'status', activeRuns: [], requestedAt: 200, now: 200 }], s);
    expect(s.bySession[S]!.status).toBe('done');
    // A run learned after the request started is kept.
    s = fold([ev({ type: 'chat.started', sessionId: 's2', runId: 'r2', userMessageId: 1 }, 300), { kind: 'status', activeRuns: [], requestedAt: 250, now: 310 }], s);
    expect(s.bySession.s2!.status).toBe('running');
  });
});

function msg(fields: Partial<Message>): Message {
  return {
    id: 1,
    sessionId: S,
    role: 'user',
    content: '',
    toolName: null,
    toolCalls: null,
    toolCallId: null,
    externalId: null,
    createdAt: 0,
    visibility: 'live',
    editedAt: null,
    ...fields,
  };
}

describe('tool calls and results as stored', () => {
  const callsJson = JSON.stringify([{ id: 'call_1', type: 'function', function: { name: 'session_search', arguments: '{"query":"marmoset","limit":3}' } }]);

  it('parses the OpenAI tool_calls JSON of an assistant message', () => {
    expect(parseToolCalls(callsJson)).toEqual([{ id: 'call_1', name: 'session_search', arguments: { query: 'marmoset', limit: 3 }, rawArguments: '{"query":"marmoset","limit":3}' }]);
    expect(parseToolCalls('[{"id":"c","function":{"name":"x","arguments":"not json"}}]')).toEqual([{ id: 'c', name: 'x', arguments: 'not json', rawArguments: 'not json' }]);
    expect(parseToolCalls('nope')).toEqual([]);
    expect(parseToolCalls(null)).toEqual([]);
    const map = callsById([msg({ role: 'assistant', toolCalls: callsJson }), msg({ role: 'user', content: 'x' })]);
    expect(map.get('call_1')?.name).toBe('session_search');
  });

  it('reads used_mode, hits, anchors, notes and scope from a stored session_search result', () => {
    const result = {
      used_mode: 'keyword',
      scope: { kind: 'project', project_id: 'p1' },
      notes: ['Hybrid ran as keyword-only.'],
      results: [{ session_id: 's_old', message_id: 7, link: 'recall://session/s_old#m7', title: 'Invoices', snippet: 'the «marmoset» checksum', role: 'user', date: '2026-09-12T10:00:00.000Z' }],
    };
    const view = toolViewFromMessage(msg({ role: 'tool', toolName: 'session_search', content: JSON.stringify(result) }), parseToolCalls(callsJson)[0]);
    expect(view).toMatchObject({ name: 'session_search', args: { query: 'marmoset', limit: 3 }, usedMode: 'keyword', hits: 1, error: null, scope: 'project', notes: ['Hybrid ran as keyword-only.'] });
    expect(view.anchors).toEqual([result.results[0]]);
  });

  it('reports an error result and an unreadable one', () => {
    const err = toolViewFromMessage(msg({ role: 'tool', toolName: 'session_search', content: '{"error":{"code":"invalid_arguments","message":"bad"}}' }));
    expect(err).toMatchObject({ usedMode: null, hits: 0, error: { code: 'invalid_arguments', message: 'bad' } });
    expect(toolViewFromMessage(msg({ role: 'tool', content: 'garbage' })).error?.code).toBe('unreadable_result');
  });

  it('builds a view from a chat.tool event', () => {
    expect(toolViewFromEvent(tool)).toMatchObject({ name: 'session_search', usedMode: 'keyword', hits: 1, anchors: [{ session_id: 's_old', message_id: 7 }] });
  });

  it('formats arguments on one line, query first', () => {
    expect(formatArgs({ search_mode: 'keyword', query: 'marmoset', limit: 5 })).toBe('“marmoset” · search_mode keyword · limit 5');
    expect(formatArgs('raw text')).toBe('raw text');
    expect(formatArgs(undefined)).toBe('');
    expect(formatArgs({ query: 'x'.repeat(300) }).length).toBeLessThanOrEqual(140);
  });

  it('recognises /compress as a command', () => {
    expect(isCompressCommand('/compress')).toBe(true);
    expect(isCompressCommand('  /COMPRESS \n')).toBe(true);
    expect(isCompressCommand('/compress this please')).toBe(false);
    expect(isCompressCommand('please /compress')).toBe(false);
  });
});
