/**
 * 413 readable by Node clients (issue 21.9): undici (Node's own `fetch`) uploads a body over the
 * limit; the gateway must answer 413 with its JSON-RPC error body *and* let the client read it —
 * answering and closing without reading the rest made the client see a connection reset instead.
 * The gateway now reads and discards the rest of an oversized body up to a bound
 * (`MAX_DRAIN_BYTES`, 16 MiB, and a timeout) before it answers with `Connection: close`; beyond the bound
 * it stops reading. Real gateway on loopback; undici runs in a child process (sharing the gateway's
 * event loop hides the race); raw sockets for the bound.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readBody } from '../src/http-body.js';
import { cleanup, rpc, startTestGateway, type TestGateway } from './helpers.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => cleanup());

const CLIENT = fileURLToPath(new URL('./fixtures/fetch-oversized.mjs', import.meta.url));

/** Runs the undici client in its own process; resolves with every try's outcome. */
function fetchOversized(bytes: number, tries: number): Promise<{ outcomes: string[]; lastBody: unknown }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLIENT, gw.rpcUrl, String(bytes), String(tries)], { env: { ...process.env, RECALL_TOKEN: gw.token }, timeout: 50_000 }, (error, stdout) =>
      error ? reject(error) : resolve(JSON.parse(stdout) as { outcomes: string[]; lastBody: unknown }),
    );
  });
}

describe('413 over undici fetch (client in another process)', () => {
  test.each([
    ['10 MB', 40, 10 * 1024 * 1024],
    ['2 MB', 20, 2 * 1024 * 1024],
  ])('a %s body, %i times: always status 413 with the JSON error body, never a reset', async (_label, tries, bytes) => {
    const { outcomes, lastBody } = await fetchOversized(bytes, tries);
    expect(outcomes.filter((o) => o !== '413')).toEqual([]);
    expect(outcomes).toHaveLength(tries);
    expect(lastBody).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, data: { code: 'payload_too_large' } } });
    // Still serving.
    expect(await rpc(gw, 'gateway.info')).toMatchObject({ profile: 'default' });
  }, 60_000);
});

describe('draining is bounded (readBody on a real loopback server)', () => {
  const LIMIT = 1024;
  const DRAIN = 256 * 1024;
  /** A server whose handler is readBody + 413; resolves per request with what the server read. */
  async function drainServer(drainTimeoutMs: number): Promise<{ port: number; next: Promise<{ result: string; bytesRead: number; ms: number }>; close(): void }> {
    let report!: (r: { result: string; bytesRead: number; ms: number }) => void;
    const next = new Promise<{ result: string; bytesRead: number; ms: number }>((r) => (report = r));
    const server = createServer(async (req, res) => {
      const started = Date.now();
      const body = await readBody(req, LIMIT, { drainBytes: DRAIN, drainTimeoutMs });
      const bytesRead = req.socket.bytesRead;
      res.writeHead(body === 'too_large' ? 413 : 200, { Connection: 'close', 'Content-Length': '0' });
      res.end();
      // Nothing more is read after the answer.
      setTimeout(() => report({ result: body === 'too_large' ? 'too_large' : 'ok', bytesRead: Math.max(bytesRead, req.socket.bytesRead), ms: Date.now() - started }), 200);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    return { port: (server.address() as AddressInfo).port, next, close: () => {
        server.closeAllConnections();
        server.close();
      },
    };
  }

  /** Sends headers, then `body` bytes in 16 KiB chunks (or forever when Infinity) until the socket closes; `stallAfter` stops writing early and waits. */
  function upload(port: number, headers: string, body: number, stallAfter = Infinity): Socket {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.on('data', () => {});
    socket.once('connect', async () => {
      socket.write(`POST /rpc HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers}\r\n`);
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      const chunked = headers.includes('chunked');
      for (let sent = 0; sent < body && sent < stallAfter && !socket.destroyed; sent += chunk.length) {
        const frame = chunked ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]) : chunk;
        if (!socket.write(frame)) await new Promise((r) => socket.once('drain', r).once('close', r));
      }
    });
    return socket;
  }

  test.each([
    ['a chunked body that never ends: reading stops at the bound', 'Transfer-Encoding: chunked\r\n', Infinity, Infinity, (r: { bytesRead: number }) => expect(r.bytesRead).toBeLessThan(DRAIN + 128 * 1024)],
    ['a declared Content-Length past the bound: answered without reading the body', `Content-Length: ${DRAIN * 64}\r\n`, DRAIN * 64, Infinity, (r: { bytesRead: number }) => expect(r.bytesRead).toBeLessThan(128 * 1024)],
    ['an oversized body within the bound: read to its end, then answered', `Content-Length: ${DRAIN / 2}\r\n`, DRAIN / 2, Infinity, (r: { bytesRead: number }) => expect(r.bytesRead).toBeGreaterThanOrEqual(DRAIN / 2)],
    ['an oversized upload that stalls: answered after the drain timeout', `Content-Length: ${DRAIN / 2}\r\n`, DRAIN / 2, 32 * 1024, (r: { ms: number }) => expect(r.ms).toBeGreaterThanOrEqual(250)],
  ])('%s', async (_name, headers, body, stallAfter, check) => {
    const server = await drainServer(300);
    const socket = upload(server.port, headers, body, stallAfter);
    const result = await server.next;
    expect(result.result).toBe('too_large');
    check(result as never);
    socket.destroy();
    server.close();
  }, 20_000);
});
