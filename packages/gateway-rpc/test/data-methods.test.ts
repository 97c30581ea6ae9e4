/**
 * The user's data over JSON-RPC on a real gateway: export of a project and a conversation
 * (recall-jsonl re-importable, Markdown), deleting a whole conversation for real while the gateway
 * keeps serving (the marker is gone from the raw bytes of the database, -wal and -shm), deleting a
 * project with its conversations only when asked (a clear refusal otherwise), and purging hidden
 * messages. Events announce what changed.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { profileDatabasePath } from '@recall/schema';
import { cleanup, rpc, rpcError, startTestGateway, wsConnect } from './helpers.js';

afterEach(cleanup);

function bytesContain(path: string, needles: readonly string[]): string[] {
  const hits: string[] = [];
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file);
    for (const n of needles) if (bytes.includes(Buffer.from(n))) hits.push(`${file}: ${n}`);
  }
  return hits;
}

async function seed(gw: Awaited<ReturnType<typeof startTestGateway>>) {
  const marker = `zq${randomBytes(10).toString('hex')}`;
  const p = (await rpc(gw, 'projects.create', { name: 'Alpha' })).id;
  const s = await rpc(gw, 'session.create', { projectId: p, title: 'secret plan', messages: [{ role: 'user', content: `key ${marker} 獬豸貔貅` }, { role: 'assistant', content: 'noted' }] });
  const cont = (await rpc(gw, 'session.compress', { sessionId: s.id, note: `carry ${marker}` })).session.id;
  const keep = await rpc(gw, 'session.create', { projectId: p, title: 'keep', messages: [{ role: 'user', content: 'ordinary words' }] });
  return { marker, p, s: s.id, cont, keep: keep.id };
}

describe('export over RPC', () => {
  test.each([
    ['recall-jsonl', 'application/x-ndjson; charset=utf-8', 'secret-plan.jsonl'],
    ['markdown', 'text/markdown; charset=utf-8', 'secret-plan.md'],
  ])('conversations.export as %s', async (format, mimeType, fileName) => {
    const gw = await startTestGateway();
    const f = await seed(gw);
    const r = await rpc(gw, 'conversations.export', { sessionId: f.cont, format });
    expect(r).toMatchObject({ fileName, mimeType, projects: 1, sessions: 2, messages: 3 });
    expect(r.text).toContain(f.marker);
    expect(r.text).not.toContain('ordinary words');
  });

  test('projects.export is re-importable into another profile', async () => {
    const gw = await startTestGateway();
    const f = await seed(gw);
    const r = await rpc(gw, 'projects.export', { projectId: f.p });
    expect(r).toMatchObject({ fileName: 'Alpha.jsonl', sessions: 3, messages: 4 });
    const other = await startTestGateway({ home: gw.home, profile: 'copy' });
    const summary = await rpc(other, 'import.jsonl', { text: r.text });
    expect(summary).toMatchObject({ projects: 1, sessions: 3, messages: 4, errorCount: 0 });
    expect((await rpcError(gw, 'projects.export', { projectId: 'p_nope' })).data?.code).toBe('project_not_found');
  });
});

describe('delete for real over RPC', () => {
  test('conversations.delete removes the whole conversation and its text from the file while serving', async () => {
    const gw = await startTestGateway();
    const f = await seed(gw);
    const ws = await wsConnect(gw.wsUrl, { headers: { authorization: `Bearer ${gw.token}` } });
    const path = profileDatabasePath(gw.home, gw.profile);
    const r = await rpc(gw, 'conversations.delete', { sessionId: f.cont });
    expect(r).toEqual({ sessionIds: [f.s, f.cont], messages: 3, projectIds: [f.p], scrubbed: true });
    expect(bytesContain(path, [f.marker, '獬豸貔貅', '獬豸'])).toEqual([]);
    expect((await rpcError(gw, 'session.get', { sessionId: f.s })).data?.code).toBe('session_not_found');
    expect((await rpc(gw, 'session.get', { sessionId: f.keep })).id).toBe(f.keep);
    const event = await ws.waitForNotification((m) => m.params?.type === 'sessions.changed');
    expect(event.params.sessionIds).toEqual([f.s, f.cont]);
    await ws.close();
  });

  test('projects.delete refuses a project with conversations unless asked, then deletes them too', async () => {
    const gw = await startTestGateway();
    const f = await seed(gw);
    const refused = await rpcError(gw, 'projects.delete', { projectId: f.p });
    expect(refused.data).toMatchObject({ code: 'project_has_sessions', sessionCount: 3 });
    expect(refused.message).toContain('delete it together with its conversations');
    expect(await rpc(gw, 'projects.delete', { projectId: f.p, withConversations: true })).toEqual({ deleted: true });
    expect((await rpc(gw, 'projects.list', { includeArchived: true })).projects).toEqual([]);
    expect((await rpc(gw, 'session.list', { includeHidden: true, includeArchived: true })).sessions).toEqual([]);
    expect(bytesContain(profileDatabasePath(gw.home, gw.profile), [f.marker, '獬豸'])).toEqual([]);
  });

  test('conversations.purge_hidden removes rewound and deleted messages only', async () => {
    const gw = await startTestGateway();
    const f = await seed(gw);
    const [first, second] = (await rpc(gw, 'session.messages', { sessionId: f.s })).messages;
    await rpc(gw, 'session.delete', { messageId: second.id });
    const r = await rpc(gw, 'conversations.purge_hidden', { sessionId: f.s });
    expect(r).toMatchObject({ messages: 1, sessionIds: [f.s, f.cont] });
    const left = (await rpc(gw, 'session.messages', { sessionId: f.s, includeHidden: true })).messages.map((m: any) => m.id);
    expect(left).toEqual([first.id]);
  });
});
