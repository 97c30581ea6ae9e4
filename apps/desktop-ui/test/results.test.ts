import { describe, expect, it } from 'vitest';
import { addNotice, type Notice } from '../src/lib/noticeList';
import { countText, matchCounts, matchInfo, visibleWindow } from '../src/lib/results';
import type { SearchWindowMessage } from '@recall/rpc-contract';

describe('matchInfo', () => {
  it.each([
    [{ match_source: 'keyword', match_field: 'title' } as const, { source: 'keyword', field: 'title' }],
    [{ match_source: 'keyword', match_field: 'message' } as const, { source: 'keyword', field: 'message' }],
    [{ match_source: 'both' } as const, { source: 'both', field: null }],
    [{ match_source: 'direct' } as const, { source: 'direct', field: null }],
  ])('reads %j', (hit, info) => {
    expect(matchInfo(hit)).toEqual(info);
  });
});

describe('visibleWindow', () => {
  const win = (ids: number[], anchor: number): SearchWindowMessage[] =>
    ids.map((id) => ({ message_id: id, role: 'user', text: `m${id}`, date: '2024-03-01T10:00:00.000Z', is_anchor: id === anchor }));

  it('collapsed: the anchor ± 1, counting what is left out', () => {
    const w = visibleWindow(win([1, 2, 3, 4, 5], 3), 3, false);
    expect(w.shown.map((m) => m.message_id)).toEqual([2, 3, 4]);
    expect(w).toMatchObject({ hiddenBefore: 1, hiddenAfter: 1, anchorIndex: 1 });
  });

  it('expanded: everything', () => {
    const w = visibleWindow(win([1, 2, 3, 4, 5], 3), 3, true);
    expect(w.shown).toHaveLength(5);
    expect(w).toMatchObject({ hiddenBefore: 0, hiddenAfter: 0, anchorIndex: 2 });
  });

  it('at the edges, and with no entry flagged as the anchor (the hit id decides)', () => {
    expect(visibleWindow(win([1, 2, 3], 1), 1, false).shown.map((m) => m.message_id)).toEqual([1, 2]);
    const noFlags = win([1, 2, 3, 4], 0);
    const w = visibleWindow(noFlags, 4, false);
    expect(w.shown.map((m) => m.message_id)).toEqual([3, 4]);
    expect(w).toMatchObject({ hiddenBefore: 2, hiddenAfter: 0, anchorIndex: 1 });
  });

  it('no window, or one without the anchor', () => {
    expect(visibleWindow(undefined, 1, false)).toEqual({ shown: [], hiddenBefore: 0, hiddenAfter: 0, anchorIndex: -1 });
    const w = visibleWindow(win([5, 6, 7, 8], 99), 99, false);
    expect(w.shown.map((m) => m.message_id)).toEqual([5, 6, 7]);
    expect(w.anchorIndex).toBe(-1);
  });
});

describe('addNotice', () => {
  let id = 0;
  const n = (kind: Notice['kind'], text: string) => ({ id: ++id, kind, text });

  it('keeps every error while successes come and go', () => {
    let list: Notice[] = [];
    list = addNotice(list, n('error', 'Move failed (project_archived)'));
    for (let i = 0; i < 5; i++) list = addNotice(list, n('success', `Saved ${i}`));
    expect(list.filter((x) => x.kind === 'error').map((x) => x.text)).toEqual(['Move failed (project_archived)']);
    expect(list.filter((x) => x.kind !== 'error').map((x) => x.text)).toEqual(['Saved 3', 'Saved 4']);
    list = addNotice(list, n('error', 'Another error'));
    for (let i = 0; i < 3; i++) list = addNotice(list, n('info', `Info ${i}`));
    expect(list.filter((x) => x.kind === 'error')).toHaveLength(2);
  });

  it('counts a repeated error instead of stacking it', () => {
    let list: Notice[] = [];
    list = addNotice(list, n('error', 'Cannot reach the gateway'));
    list = addNotice(list, n('success', 'ok'));
    list = addNotice(list, n('error', 'Cannot reach the gateway'));
    expect(list.map((x) => [x.kind, x.count])).toEqual([
      ['success', 1],
      ['error', 2],
    ]);
  });
});

describe('matchCounts', () => {
  const hit = (session_id: string, message_id: number, other_message_ids?: number[]) => ({ session_id, message_id, ...(other_message_ids ? { other_message_ids } : {}) });
  it.each([
    ['one anchor, three more', [hit('s1', 1, [2, 3, 4])], 4, 1, { 's1:1': [2, 3, 4] }, '4 matching messages in 1 conversation (1 with context below)'],
    ['one anchor, one more', [hit('s1', 1, [2])], 2, 1, { 's1:1': [2] }, '2 matching messages in 1 conversation (1 with context below)'],
    ['an extra that is another anchor is not counted or listed twice', [hit('s1', 1, [2, 5]), hit('s1', 2)], 3, 1, { 's1:1': [5], 's1:2': [] }, '3 matching messages in 1 conversation (2 with context below)'],
    ['same id in two conversations is two messages', [hit('s1', 1, [7]), hit('s2', 1, [7])], 4, 2, { 's1:1': [7], 's2:1': [7] }, '4 matching messages in 2 conversations (2 with context below)'],
    ['no extras', [hit('s1', 1)], 1, 1, { 's1:1': [] }, '1 matching message in 1 conversation'],
  ])('%s', (_n, results, messages, conversations, extras, text) => {
    const c = matchCounts(results);
    expect([c.messages, c.conversations]).toEqual([messages, conversations]);
    expect(Object.fromEntries(c.extras)).toEqual(extras);
    expect(countText(c, results.length)).toBe(text);
  });
});
