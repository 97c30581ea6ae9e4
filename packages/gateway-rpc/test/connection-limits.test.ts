/**
 * Idle and excess connections: a TCP connection that never sends a request (or never finishes its
 * headers) is closed after the first-request timeout, and connections beyond `maxConnections` are
 * closed at once, while a real client can still be served afterwards. Real gateway, raw sockets.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { cleanup, rpc, startTestGateway } from './helpers.js';

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

  test('a connection that completed a request is not cut by the first-request timer', async () => {
    const gw = await startTestGateway({ firstRequestTimeoutMs: 300 });
    const socket = await open(gw.port);
    socket.write(`GET /missing HTTP/1.1\r\nHost: 127.0.0.1:${gw.port}\r\n\r\n`);
    socket.on('data', () => {});
    // keep-alive after a (refused) request: node's keepAliveTimeout governs (5 s); nothing closes it at 300 ms.
    expect(await closedWithin(socket, 800)).toBeNull();
    socket.destroy();
  });
});

describe('maxConnections', () => {
  test('connections beyond the limit are closed at once; the limit frees up when they go', async () => {
    const gw = await startTestGateway({ maxConnections: 3, firstRequestTimeoutMs: 60_000 });
    const idle = await Promise.all([open(gw.port), open(gw.port), open(gw.port)]);
    const extra = await open(gw.port);
    expect(await closedWithin(extra, 3_000)).not.toBeNull();
    for (const s of idle) expect(s.destroyed).toBe(false);
    for (const s of idle) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(await rpc(gw, 'projects.list')).toBeDefined();
  });
});
