/**
 * Idle and excess connections (connection-slots.ts): a connection that has not authenticated is
 * closed after the first-request timeout whatever it sent; unauthenticated connections over their
 * budget close the oldest of them, never an authenticated one; over the total, the authenticated
 * connection idle longest goes. Real gateway, raw sockets and WebSockets. The loads of issue 21.4
 * are connection-load.test.ts.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { cleanup, rpc, startTestGateway, wsConnect } from './helpers.js';

afterEach(() => cleanup());

function open(port: number): Promise<Socket> {
  return new Promise((res, rej) => {
    const socket = connect(port, '127.0.0.1', () => res(socket));
    socket.once('error', rej);
  });
}

/** Resolves with ms until the peer closed the socket, or null if it stayed open for `withinMs`. */
function closedWithin(socket: Socket, withinMs: number): Promise<number | null> {
  const start = Date.now();
  return new Promise((res) => {
    if (socket.destroyed) return res(0);
    const timer = setTimeout(() => res(null), withinMs);
    socket.on('error', () => {});
    socket.once('close', () => {
      clearTimeout(timer);
      res(Date.now() - start);
    });
  });
}

describe('first-request timeout', () => {
  test.each([
    ['sends nothing', ''],
    ['never finishes its headers', 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n'],
  ])('a connection that %s is closed after the timeout', async (_name, bytes) => {
    const gw = await startTestGateway({ firstRequestTimeoutMs: 300 });
    const socket = await open(gw.port);
    if (bytes) socket.write(bytes);
    const closedAfter = await closedWithin(socket, 5_000);
    expect(closedAfter).not.toBeNull();
    expect(closedAfter!).toBeGreaterThanOrEqual(200);
    // The gateway still serves.
    expect(await rpc(gw, 'projects.list')).toBeDefined();
  });

  test('an unauthenticated keep-alive connection is closed by the same timer, even after a completed request', async () => {
    const gw = await startTestGateway({ firstRequestTimeoutMs: 300 });
    const socket = await open(gw.port);
    socket.write(`GET /missing HTTP/1.1\r\nHost: 127.0.0.1:${gw.port}\r\n\r\n`);
    socket.on('data', () => {});
    expect(await closedWithin(socket, 3_000)).not.toBeNull();
  });

  test('a connection that authenticated is not cut by it (keep-alive is then bounded by keepAliveTimeout)', async () => {
    const gw = await startTestGateway({ firstRequestTimeoutMs: 300 });
    const socket = await open(gw.port);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'gateway.info' });
    socket.write(`POST /rpc HTTP/1.1\r\nHost: 127.0.0.1:${gw.port}\r\nAuthorization: Bearer ${gw.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    socket.on('data', () => {});
    expect(await closedWithin(socket, 800)).toBeNull();
    socket.destroy();
  });
});

/** An authenticated keep-alive connection: one call on a raw socket, kept open. */
async function authenticatedSocket(gw: Awaited<ReturnType<typeof startTestGateway>>): Promise<Socket> {
  const socket = await open(gw.port);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'gateway.info' });
  await new Promise<void>((res) => {
    socket.once('data', () => res());
    socket.write(`POST /rpc HTTP/1.1\r\nHost: 127.0.0.1:${gw.port}\r\nAuthorization: Bearer ${gw.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  });
  return socket;
}

describe('connection budgets', () => {
  test('one unauthenticated connection over its budget closes the oldest unauthenticated one, not the newcomer', async () => {
    const gw = await startTestGateway({ maxConnections: 10, maxUnauthenticatedConnections: 3, firstRequestTimeoutMs: 60_000 });
    const idle = [await open(gw.port), await open(gw.port), await open(gw.port)];
    const newcomer = await open(gw.port);
    expect(await closedWithin(idle[0]!, 3_000)).not.toBeNull();
    expect(idle[1]!.destroyed || newcomer.destroyed).toBe(false);
    // The newcomer is served, and an authenticated client is too.
    const served = new Promise<string>((res) => newcomer.once('data', (d) => res(d.toString('latin1'))));
    newcomer.write(`GET /missing HTTP/1.1\r\nHost: 127.0.0.1:${gw.port}\r\n\r\n`);
    expect(await served).toMatch(/^HTTP\/1\.1 404/);
    expect(await rpc(gw, 'projects.list')).toBeDefined();
    for (const s of [...idle, newcomer]) s.destroy();
  });

  test('unauthenticated connections never take authenticated slots: with every unauthenticated slot held, authenticated ones still fill the rest', async () => {
    const gw = await startTestGateway({ maxConnections: 6, maxUnauthenticatedConnections: 2, firstRequestTimeoutMs: 60_000 });
    const authed = [await authenticatedSocket(gw), await authenticatedSocket(gw), await authenticatedSocket(gw), await authenticatedSocket(gw)];
    const attackers = await Promise.all(Array.from({ length: 8 }, () => open(gw.port)));
    await new Promise((r) => setTimeout(r, 100));
    for (const s of authed) expect(s.destroyed).toBe(false);
    expect(attackers.filter((s) => !s.destroyed)).toHaveLength(2);
    expect(await rpc(gw, 'gateway.info')).toMatchObject({ profile: 'default' });
    for (const s of [...authed, ...attackers]) s.destroy();
  });

  test('over the total, the authenticated connection idle longest is closed — a WebSocket with 1013 — and the newcomer is served', async () => {
    const gw = await startTestGateway({ maxConnections: 4, maxUnauthenticatedConnections: 1, firstRequestTimeoutMs: 60_000 });
    const oldest = await wsConnect(gw.wsUrl, { headers: { authorization: `Bearer ${gw.token}` } });
    const closeCode = new Promise<number>((res) => oldest.ws.once('close', (code) => res(code)));
    await new Promise((r) => setTimeout(r, 20));
    const others = [await wsConnect(gw.wsUrl, { headers: { authorization: `Bearer ${gw.token}` } }), await wsConnect(gw.wsUrl, { headers: { authorization: `Bearer ${gw.token}` } })];
    // Used just now, so not the idlest.
    expect((await others[0]!.call('gateway.info')).result).toBeDefined();
    expect(await rpc(gw, 'gateway.info')).toMatchObject({ profile: 'default' });
    expect(await closeCode).toBe(1013);
    expect((await others[0]!.call('gateway.info')).result).toBeDefined();
    for (const c of others) await c.close();
  });
});
