/**
 * Paging in SQL: conversations of one project (3,000 sessions, continuations folded in whatever
 * page their root lands on, keyset cursor with no gaps or repeats) and one page of a 5,000-message
 * conversation at either end, around any anchor, and before/after a cursor.
 */
import { describe, expect, test } from 'vitest';
import {
  appendMessages,
  bulkWrite,
  conversationContaining,
  createContinuation,
  createDelegation,
  createProject,
  createSession,
  deleteMessage,
  listConversations,
  messagePage,
  rewindSession,
} from '../src/index.js';
import type { ConversationPageItem } from '@recall/rpc-contract';
import { tempDb } from './support/temp-db.js';

function manySessions() {
  const db = tempDb();
  const p = createProject(db, { name: 'Big' });
  const q = createProject(db, { name: 'Other' });
  const t0 = 1_700_000_000_000;
  const roots: string[] = [];
  bulkWrite(db, () => {
    for (let i = 0; i < 3000; i++) {
      const s = createSession(db, { projectId: i % 10 === 9 ? q.id : p.id, title: `conv ${i}`, startedAt: t0 + i * 1000 });
      roots.push(s.id);
    }
  });
  // The OLDEST conversation of P is continued most recently: its continuation must not look like
  // a separate conversation, and it must sort first.
  const cont = createContinuation(db, roots[0]!, { note: 'continued' }).session;
  appendMessages(db, cont.id, [{ role: 'user', content: 'latest turn', createdAt: t0 + 10_000_000 }]);
  const child = createDelegation(db, roots[1]!);
  const none = createSession(db, { title: 'loose', startedAt: t0 });
  return { db, p, q, roots, cont, child, none };
}

function allPages(db: ReturnType<typeof tempDb>, projectId: string | null, limit: number): ConversationPageItem[] {
  const out: ConversationPageItem[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 10_000; guard++) {
    const page = listConversations(db, { projectId, limit, cursor });
    out.push(...page.conversations);
    if (!page.nextCursor) return out;
    cursor = page.nextCursor;
  }
  throw new Error('paging did not end');
}

describe('listConversations', () => {
  test('pages a 3,000-session profile per project: every conversation once, newest first, continuations folded', () => {
    const { db, p, q, roots, cont, none } = manySessions();
    const first = listConversations(db, { projectId: p.id, limit: 50 });
    expect(first.total).toBe(2700);
    expect(first.conversations).toHaveLength(50);
    expect(first.conversations[0]!.rootId).toBe(roots[0]);
    expect(first.conversations[0]!.sessions.map((s) => s.id)).toEqual([roots[0], cont.id]);

    const all = allPages(db, p.id, 137);
    expect(all).toHaveLength(2700);
    expect(new Set(all.map((c) => c.rootId)).size).toBe(2700);
    for (let i = 1; i < all.length; i++) expect(all[i - 1]!.lastActivity).toBeGreaterThanOrEqual(all[i]!.lastActivity);
    // Delegation children are hidden: never listed, never a conversation of their own.
    expect(all.flatMap((c) => c.sessions).every((s) => !s.hidden && s.projectId === p.id)).toBe(true);

    expect(allPages(db, q.id, 500).map((c) => c.rootId).sort()).toEqual(roots.filter((_, i) => i % 10 === 9).sort());
    expect(listConversations(db, { projectId: null }).conversations.map((c) => c.rootId)).toEqual([none.id]);
  });

  test.each([['garbage'], ['-1~x'], ['~']])('refuses a cursor it never returned: %s', (cursor) => {
    const { db, p } = manySessions();
    expect(() => listConversations(db, { projectId: p.id, cursor })).toThrow(/cursor/);
  });

  test('conversationContaining finds a continuation by any member, with its root', () => {
    const { db, roots, cont } = manySessions();
    const c = conversationContaining(db, cont.id);
    expect(c.rootId).toBe(roots[0]);
    expect(c.sessions.map((s) => s.id)).toEqual([roots[0], cont.id]);
  });
});

function longConversation() {
  const db = tempDb();
  const s = createSession(db, { title: 'long' });
  const ids = appendMessages(
    db,
    s.id,
    Array.from({ length: 5000 }, (_, i) => ({ role: i % 2 ? ('assistant' as const) : ('user' as const), content: `turn ${i}` })),
  ).messages.map((m) => m.id);
  const deleted = ids[4000]!;
  deleteMessage(db, deleted);
  const visible = ids.filter((id) => id !== deleted);
  const idx = (id: number) => visible.indexOf(id);
  return { db, s, ids, deleted, visible, idx };
}

describe('messagePage on a 5,000-message conversation', () => {
  // Positions are computed from a throw-away copy: ids are the same in every fresh database.
  const { ids, visible, idx } = (() => {
    const ids = Array.from({ length: 5000 }, (_, i) => i + 1);
    const visible = ids.filter((id) => id !== 4001);
    return { ids, visible, idx: (id: number) => visible.indexOf(id) };
  })();

  test.each([
    ['oldest', { at: 'oldest' as const }, visible.slice(0, 200), false, true],
    ['newest', { at: 'newest' as const }, visible.slice(-200), true, false],
    ['around the 4,500th', { aroundMessageId: ids[4500]! }, visible.slice(idx(ids[4500]!) - 99, idx(ids[4500]!) + 101), true, true],
    ['around the last', { aroundMessageId: ids[4999]! }, visible.slice(-200), true, false],
    ['around the first', { aroundMessageId: ids[0]! }, visible.slice(0, 200), false, true],
    ['before the 3,000th', { beforeId: ids[3000]! }, visible.slice(2800, 3000), true, true],
    ['after the 4,900th', { afterId: ids[4900]! }, visible.slice(idx(ids[4900]!) + 1), true, false],
    ['before the first', { beforeId: ids[0]! }, [], false, true],
    ['after the last', { afterId: ids[4999]! }, [], true, false],
  ])('%s', (_name, position, expected, hasOlder, hasNewer) => {
    const { db, s } = longConversation();
    const page = messagePage(db, s.id, position, 200);
    expect(page.messages.map((m) => m.id)).toEqual(expected);
    expect({ hasOlder: page.hasOlder, hasNewer: page.hasNewer }).toEqual({ hasOlder, hasNewer });
  });

  test('an anchor that is not visible is reported, with its neighbours', () => {
    const { db, s, deleted } = longConversation();
    const page = messagePage(db, s.id, { aroundMessageId: deleted }, 10);
    expect(page.anchorVisible).toBe(false);
    expect(page.messages.map((m) => m.id)).toEqual(visible.slice(idx(ids[3999]!) - 4, idx(ids[3999]!) + 6));
  });

  test('rewound messages leave every page', () => {
    const db2 = tempDb();
    const t = createSession(db2, {});
    const ms = appendMessages(db2, t.id, [1, 2, 3, 4].map((i) => ({ role: 'user' as const, content: `m${i}` }))).messages;
    rewindSession(db2, t.id, ms[1]!.id);
    expect(messagePage(db2, t.id, { at: 'newest' }, 10).messages.map((m) => m.content)).toEqual(['m1', 'm2']);
    expect(messagePage(db2, t.id, { aroundMessageId: ms[3]!.id }, 10).anchorVisible).toBe(false);
  });
});
