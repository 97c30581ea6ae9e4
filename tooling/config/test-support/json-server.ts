/**
 * The loopback HTTP server under the scripted OpenAI-compatible test servers: listens on
 * 127.0.0.1:0, reads each request body as JSON (null when it is not), records the request through
 * the caller's `record`, wakes tests waiting for a number of requests, then hands it to `respond`.
 * `close()` destroys open sockets first so a hanging scripted response never keeps a test alive.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface JsonServer<R> {
  port: number;
  /** Every request in arrival order, as `record` made it. */
  requests: R[];
  /** Resolves once at least `count` requests arrived; rejects after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface JsonServerHandlers<R> {
  record(req: IncomingMessage, res: ServerResponse, body: any): R;
  respond(req: IncomingMessage, res: ServerResponse, recorded: R, index: number): Promise<void>;
  /** Default timeout of waitForRequests. */
  waitTimeoutMs: number;
}

export async function startJsonServer<R>(handlers: JsonServerHandlers<R>): Promise<JsonServer<R>> {
  const requests: R[] = [];
  const sockets = new Set<Socket>();
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: any = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = null;
      }
      const recorded = handlers.record(req, res, body);
      const index = requests.length;
      requests.push(recorded);
      for (const w of [...waiters]) {
        if (requests.length >= w.count) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
      void handlers.respond(req, res, recorded, index);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    requests,
    waitForRequests: (count, timeoutMs = handlers.waitTimeoutMs) =>
      requests.length >= count
        ? Promise.resolve()
        : new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`timed out waiting for ${count} request(s); got ${requests.length}`)), timeoutMs);
            waiters.push({
              count,
              resolve: () => {
                clearTimeout(timer);
                resolve();
              },
            });
          }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
