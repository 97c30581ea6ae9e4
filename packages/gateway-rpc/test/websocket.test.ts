/**
 * JSON-RPC over WebSocket on a real gateway: the upgrade is authenticated (Bearer header, or a browser's session cookie — never `?token=`) and
 * guarded like HTTP (Host, Origin, path), requests and batches work, oversized frames close the
 * socket with 1009 without hurting the server, and mutations made by anyone (HTTP here) reach every
 * WebSocket client as `event` notifications carrying the affected ids.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { cleanup, rowCounts, rpc, startTestGateway, wsConnect, type WsClient } from './helpers.js';
import { sessionCookie } from './support/browser-session.js';

afterEach(cleanup);

function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('open', () => {
      resolve(101);
      ws.close();
    });
    ws.once('error', (error) => {
      // A refused upgrade can surface as a reset instead of a response on some platforms.
      if (/socket hang up|ECONNRESET/.test(error.message)) resolve(-1);
      else reject(error);
    });
  });
}

describe('upgrade', () => {
  test('authenticates with the Authorization header', async () => {
    const gw = await startTestGateway();
    const client = await wsConnect(gw.wsUrl, { headers: { authorization: `Bearer ${gw.token}` } });
    expect((await client.call('gateway.info')).result).toMatchObject({ profile: 'default' });
    await client.close();
  });

  test('authenticates a browser by its session cookie (browsers cannot set headers on a WebSocket)', async () => {
    const gw = await startTestGateway();
    const cookie = await sessionCookie(gw.port, gw.launchUrl());
    const client = await wsConnect(gw.wsUrl, { headers: { cookie, origin: `http://127.0.0.1:${gw.port}` } });
    expect((await client.call('projects.list')).result).toEqual({ projects: [] });
    await client.close();
  });

  test('refuses the right token in the URL: ?token= is no credential (it would leak into logs and console errors)', async () => {
    const gw = await startTestGateway();
    expect(await upgradeStatus(`${gw.wsUrl}?token=${encodeURIComponent(gw.token)}`)).toBe(401);
    expect(await upgradeStatus(`${gw.wsUrl}?token=${encodeURIComponent(gw.token)}`, { origin: `http://127.0.0.1:${gw.port}` })).toBe(401);
  });

  test.each([
    ['no token', {}, 401],
    ['wrong bearer', { authorization: 'Bearer nope' }, 401],
    ['an unknown session cookie', { cookie: 'recall_session_PORT=made-up' }, 401],
    ['foreign Origin', { authorization: 'Bearer TOKEN', origin: 'http://evil.example' }, 403],
    ['foreign Origin with the session cookie', { cookie: 'COOKIE', origin: 'http://evil.example' }, 403],
    ['foreign Host', { authorization: 'Bearer TOKEN', host: 'evil.example' }, 403],
  ])('refuses the upgrade with %s', async (_name, headers: Record<string, string>, status) => {
    const gw = await startTestGateway();
    const cookie = await sessionCookie(gw.port, gw.launchUrl());
    const before = rowCounts(gw);
    const filled = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v === 'COOKIE' ? cookie : v.replace('TOKEN', gw.token).replace('PORT', String(gw.port))]));
    expect(await upgradeStatus(gw.wsUrl, filled)).toBe(status);
    expect(rowCounts(gw)).toEqual(before);
  });

  test('refuses upgrades on other paths', async () => {
    const gw = await startTestGateway();
    expect(await upgradeStatus(`ws://127.0.0.1:${gw.port}/other`, { authorization: `Bearer ${gw.token}` })).toBe(404);
  });

  test('accepts an extra allowed origin (e.g. the vite dev server)', async () => {
    const gw = await startTestGateway({ allowedOrigins: ['http://localhost:5173'] });
    expect(await upgradeStatus(gw.wsUrl, { authorization: `Bearer ${gw.token}`, origin: 'http://localhost:5173' })).toBe(101);
  });
});

describe('requests over WebSocket', () => {
  test('calls, errors, batches and parse errors', async () => {
    const gw = await startTestGateway();
    const c = await wsConnect(gw.wsUrl, { headers: { authorization: `Bearer ${gw.token}` } });
    const project = (await c.call('projects.create', { name: 'Over WS' })).result;
    expect(project).toMatchObject({ name: 'Over WS' });
    expect((await c.call('session.get', { sessionId: 's_missing' })).error).toMatchObject({ code: -32002, data: { code: 'session_not_found' } });
    expect((await c.call('session.get', { sessionId: 5 })).error).toMatchObject({ code: -32602 });
    expect(await c.sendRaw('{oops')).toMatchObject({ id: null, error: { code: -32700 } });
    const batch = (await c.sendRaw(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'x', method: 'projects.list' },
        { jsonrpc: '2.0', id: 'y', method: 'nope' },
      ]),
    )) as any[];
    expect(batch.map((r) => r.id)).toEqual(['x', 'y']);
    expect(batch[1].error.code).toBe(-32601);
    await c.close();
  });

  test('a frame over the size limit closes that socket with 1009; the server keeps serving', async () => {
    const gw = await startTestGateway({ bodyLimitBytes: 2048 });
    const c = await wsConnect(gw.wsUrl, { headers: { authorization: `Bearer ${gw.token}` } });
    const closed = new Promise<number>((resolve) => c.ws.once('close', (code) => resolve(code)));
    c.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'projects.create', params: { name: 'x', description: 'y'.repeat(4000) } }));
    expect(await closed).toBe(1009);
    expect(rowCounts(gw).projects).toBe(0);
    expect((await rpc(gw, 'gateway.info')).profile).toBe('default');
  });
});

describe('event notifications', () => {
  async function subscriber(gw: { wsUrl: string; token: string }): Promise<WsClient> {
    return wsConnect(gw.wsUrl, { headers: { authorization: `Bearer ${gw.token}` } });
  }

  test('projects.changed, sessions.changed and messages.changed reach every client after the write', async () => {
    const gw = await startTestGateway();
    const a = await subscriber(gw);
    const b = await subscriber(gw);

    const p = (await rpc(gw, 'projects.create', { name: 'P' })).id;
    for (const client of [a, b]) {
      const n = await client.waitForNotification((x) => x.params.type === 'projects.changed');
      expect(n).toEqual({ jsonrpc: '2.0', method: 'event', params: { type: 'projects.changed', projectIds: [p] } });
    }

    const s = (await rpc(gw, 'session.create', { projectId: p })).id;
    expect((await a.waitForNotification((x) => x.params.type === 'sessions.changed')).params).toEqual({ type: 'sessions.changed', sessionIds: [s], projectIds: [p] });

    const m = await rpc(gw, 'session.append', { sessionId: s, role: 'user', content: 'hi' });
    expect((await a.waitForNotification((x) => x.params.type === 'messages.changed')).params).toEqual({
      type: 'messages.changed',
      sessionIds: [s],
      messageIds: [m.id],
      projectIds: [p],
    });
    await a.close();
    await b.close();
  });

  test('a move notifies both projects and the "No project" group', async () => {
    const gw = await startTestGateway();
    const p = (await rpc(gw, 'projects.create', { name: 'P' })).id;
    const s = (await rpc(gw, 'session.create', { projectId: p })).id;
    const c = await subscriber(gw);
    await rpc(gw, 'session.project.set', { sessionId: s, projectId: null });
    const moved = await c.waitForNotification((x) => x.params.type === 'sessions.changed');
    expect(moved.params).toEqual({ type: 'sessions.changed', sessionIds: [s], projectIds: [p], unassigned: true });
    expect((await c.waitForNotification((x) => x.params.type === 'projects.changed')).params).toMatchObject({ projectIds: [p] });
    await c.close();
  });

  test('failed calls emit nothing; a mutation over WebSocket notifies its own client too', async () => {
    const gw = await startTestGateway();
    const c = await subscriber(gw);
    expect((await c.call('projects.delete', { projectId: 'p_missing' })).error?.data?.code).toBe('project_not_found');
    expect((await c.call('projects.create', { name: '' })).error?.code).toBe(-32602);
    await c.call('projects.create', { name: 'Real' });
    await c.waitForNotification((x) => x.params.type === 'projects.changed');
    expect(c.notifications).toHaveLength(1);
    await c.close();
  });

  test('in-process emitters (e.g. an index worker) reach clients through gateway.events', async () => {
    const gw = await startTestGateway();
    const c = await subscriber(gw);
    gw.events.emit({ type: 'index.changed', sessionIds: ['s1'] });
    expect((await c.waitForNotification((x) => x.params.type === 'index.changed')).params).toEqual({ type: 'index.changed', sessionIds: ['s1'] });
    await c.close();
    // Closed clients are unsubscribed.
    await new Promise((r) => setTimeout(r, 50));
    expect(gw.events.listenerCount).toBe(0);
  });
});
