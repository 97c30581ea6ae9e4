/**
 * Paged reading over a real gateway (HTTP JSON-RPC, real profile database): `conversations.list`
 * walks one project's conversations with its cursor and folds continuations, `conversations.get`
 * finds the conversation of any member, `session.page` reads either end of a conversation, around
 * an anchor and before/after a cursor, and refuses ambiguous positions and foreign cursors.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { DOMAIN_ERROR_CODES } from '@recall/rpc-contract';
import { cleanup, rpc, rpcError, startTestGateway } from './helpers.js';

afterEach(cleanup);

async function seed() {
  const gw = await startTestGateway();
  const p = (await rpc(gw, 'projects.create', { name: 'Alpha' })).id as string;
  const q = (await rpc(gw, 'projects.create', { name: 'Beta' })).id as string;
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) {
    const s = await rpc(gw, 'session.create', {
      projectId: i % 3 === 2 ? q : p,
      title: `c${i}`,
      messages: [{ role: 'user', content: `hello ${i}`, createdAt: 1_700_000_000_000 + i * 1000 }],
    });
    ids.push(s.id);
  }
  const long = await rpc(gw, 'session.create', { projectId: p, title: 'long', messages: Array.from({ length: 600 }, (_, i) => ({ role: 'user', content: `turn ${i}`, createdAt: 1_600_000_000_000 + i })) });
  const cont = (await rpc(gw, 'session.compress', { sessionId: ids[0], note: 'continued' })).session;
  return { gw, p, q, ids, long, cont };
}

describe('conversations.list / conversations.get', () => {
  test('pages one project with its cursor; a continuation stays with its root', async () => {
    const { gw, p, ids, long, cont } = await seed();
    const seen: string[] = [];
    let cursor: string | undefined;
    let total = 0;
    for (let i = 0; i < 10; i++) {
      const page = await rpc(gw, 'conversations.list', { projectId: p, limit: 7, ...(cursor ? { cursor } : {}) });
      total = page.total;
      seen.push(...page.conversations.map((c: { rootId: string }) => c.rootId));
      for (const c of page.conversations) expect(c.sessions.every((s: { projectId: string }) => s.projectId === p)).toBe(true);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(total).toBe(21);
    expect(new Set(seen).size).toBe(21);
    expect(seen).toContain(long.id);
    expect(seen).not.toContain(cont.id);
    const got = await rpc(gw, 'conversations.get', { sessionId: cont.id });
    expect(got.rootId).toBe(ids[0]);
    expect(got.sessions.map((s: { id: string }) => s.id)).toEqual([ids[0], cont.id]);
    expect((await rpc(gw, 'conversations.list', { projectId: null })).total).toBe(0);
  });

  test('a cursor it did not return is refused with invalid_input', async () => {
    const { gw, p } = await seed();
    const err = await rpcError(gw, 'conversations.list', { projectId: p, cursor: 'nope' });
    expect(err).toMatchObject({ code: DOMAIN_ERROR_CODES.invalid_input, data: { code: 'invalid_input' } });
  });
});

describe('session.page', () => {
  test.each([
    ['default is the newest page', {}, 'turn 400', 'turn 599', true, false],
    ['oldest', { at: 'oldest' }, 'turn 0', 'turn 199', false, true],
    ['around the 500th message', { around: 500 }, 'turn 400', 'turn 599', true, false],
    ['around the 300th message: 99 before, 100 after', { around: 300 }, 'turn 201', 'turn 400', true, true],
  ])('%s', async (_name, where, first, last, hasOlder, hasNewer) => {
    const { gw, long } = await seed();
    const msgs = (await rpc(gw, 'session.messages', { sessionId: long.id, limit: 1000 })).messages as { id: number }[];
    const params = 'around' in where ? { aroundMessageId: msgs[where.around as number]!.id } : where;
    const page = await rpc(gw, 'session.page', { sessionId: long.id, ...params });
    expect(page.session.id).toBe(long.id);
    expect(page.messages).toHaveLength(200);
    expect([page.messages[0].content, page.messages.at(-1).content, page.hasOlder, page.hasNewer]).toEqual([first, last, hasOlder, hasNewer]);
    const above = await rpc(gw, 'session.page', { sessionId: long.id, beforeId: page.messages[0].id, limit: 5 });
    expect(above.messages.map((m: { content: string }) => m.content)).toEqual(hasOlder ? Array.from({ length: 5 }, (_, i) => `turn ${Number(first.slice(5)) - 5 + i}`) : []);
  });

  test('two positions at once are invalid params', async () => {
    const { gw, long } = await seed();
    const err = await rpcError(gw, 'session.page', { sessionId: long.id, at: 'oldest', beforeId: 5 });
    expect(err.code).toBe(-32602);
  });
});
