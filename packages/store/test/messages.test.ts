import { describe, expect, test } from 'vitest';
import {
  appendMessage,
  appendMessages,
  compactMessages,
  createSession,
  deleteMessage,
  editMessage,
  getMessages,
  messageWindow,
  rewindSession,
  sessionHeadTail,
} from '../src/index.js';
import { MAX_MESSAGE_CHARS } from '@recall/rpc-contract';
import { countRows, tempDb } from './support/temp-db.js';

describe('messages', () => {
  test('append is idempotent by external_id within a session', () => {
    const db = tempDb();
    const s = createSession(db, {});
    const batch = [
      { role: 'user' as const, content: 'a', externalId: 'e1' },
      { role: 'assistant' as const, content: 'b', externalId: 'e2' },
    ];
    expect(appendMessages(db, s.id, batch)).toMatchObject({ inserted: 2, skipped: 0 });
    const again = appendMessages(db, s.id, batch);
    expect(again).toMatchObject({ inserted: 0, skipped: 2 });
    expect(countRows(db, 'messages')).toBe(2);
    const other = createSession(db, {});
    expect(appendMessages(db, other.id, batch).inserted).toBe(2);
  });

  test('edit replaces the text and sets edited_at', () => {
    const db = tempDb();
    const s = createSession(db, {});
    const m = appendMessage(db, s.id, { role: 'user', content: 'old text' });
    const edited = editMessage(db, m.id, 'new text');
    expect(edited).toMatchObject({ content: 'new text', visibility: 'live' });
    expect(edited.editedAt).toEqual(expect.any(Number));
  });

  test('delete, rewind and compact set visibility; reads hide rewound/deleted, keep compacted', () => {
    const db = tempDb();
    const s = createSession(db, {});
    const ids = appendMessages(
      db,
      s.id,
      ['m1', 'm2', 'm3', 'm4', 'm5'].map((content) => ({ role: 'user' as const, content })),
    ).messages.map((m) => m.id);
    expect(compactMessages(db, s.id, ids[1]!)).toBe(2);
    expect(deleteMessage(db, ids[2]!).visibility).toBe('deleted');
    expect(rewindSession(db, s.id, ids[3]!)).toBe(1);
    expect(getMessages(db, s.id).map((m) => [m.content, m.visibility])).toEqual([
      ['m1', 'compacted'],
      ['m2', 'compacted'],
      ['m4', 'live'],
    ]);
    expect(getMessages(db, s.id, { includeHidden: true }).map((m) => m.visibility)).toEqual(['compacted', 'compacted', 'deleted', 'live', 'rewound']);
    expect(() => editMessage(db, ids[2]!, 'x')).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });

  test.each([
    ['unknown session', () => ({ session: 's_none', msg: { role: 'user', content: 'x' } }), 'session_not_found'],
    ['bad role', () => ({ session: null, msg: { role: 'robot', content: 'x' } }), 'invalid_input'],
    ['oversized content', () => ({ session: null, msg: { role: 'user', content: 'x'.repeat(MAX_MESSAGE_CHARS + 1) } }), 'invalid_input'],
    ['non-string content', () => ({ session: null, msg: { role: 'user', content: 42 } }), 'invalid_input'],
  ])('append with %s fails with %s and writes nothing', (_label, make, code) => {
    const db = tempDb();
    const s = createSession(db, {});
    const { session, msg } = make();
    expect(() => appendMessages(db, session ?? s.id, [{ role: 'user', content: 'valid first' }, msg as never])).toThrow(expect.objectContaining({ code }));
    expect(countRows(db, 'messages')).toBe(0);
  });

  test('window around an anchor and head/tail only return visible messages', () => {
    const db = tempDb();
    const s = createSession(db, {});
    const ids = appendMessages(
      db,
      s.id,
      Array.from({ length: 10 }, (_, i) => ({ role: 'user' as const, content: `m${i}` })),
    ).messages.map((m) => m.id);
    deleteMessage(db, ids[4]!);
    const w = messageWindow(db, s.id, ids[5]!, 2, 2);
    expect(w.messages.map((m) => m.content)).toEqual(['m2', 'm3', 'm5', 'm6', 'm7']);
    expect(w).toMatchObject({ moreBefore: true, moreAfter: true });
    expect(() => messageWindow(db, s.id, ids[4]!, 1, 1)).toThrow(expect.objectContaining({ code: 'message_not_found' }));
    const ht = sessionHeadTail(db, s.id, 2, 2);
    expect([ht.head.map((m) => m.content), ht.tail.map((m) => m.content), ht.total, ht.truncated]).toEqual([['m0', 'm1'], ['m8', 'm9'], 9, true]);
    expect(sessionHeadTail(db, s.id, 5, 5)).toMatchObject({ total: 9, truncated: false });
  });
});
