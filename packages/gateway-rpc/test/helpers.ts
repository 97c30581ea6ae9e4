/**
 * Test helpers: real gateways on 127.0.0.1:0 over a temp home (real SQLite files), raw HTTP
 * requests via node:http (so tests control Host/Authorization exactly), a small WebSocket JSON-RPC
 * client, and row counts for "nothing was written" assertions. No mocks: every test talks to the
 * real server and the real store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { startGateway, type Gateway, type StartGatewayOptions } from '../src/index.js';
import type { GatewayLogger } from '../src/index.js';

export interface LogEntry {
  level: 'info' | 'warn' | 'error';
  message: string;
  meta?: Record<string, unknown> | undefined;
}

export function collectingLogger(): GatewayLogger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  return {
    entries,
    info: (message, meta) => entries.push({ level: 'info', message, meta }),
    warn: (message, meta) => entries.push({ level: 'warn', message, meta }),
    error: (message, meta) => entries.push({ level: 'error', message, meta }),
  };
}

const cleanups: (() => Promise<void> | void)[] = [];

export function tempHome(): string {
  const dir = mkdtempSync(join(tmpdir(), 'recall-gw-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Call from afterEach: closes gateways and removes temp dirs, most recent first. */
export async function cleanup(): Promise<void> {
  for (const fn of cleanups.splice(0).reverse()) await fn();
}

export interface TestGateway extends Gateway {
  logs: LogEntry[];
}

export async function startTestGateway(options: Partial<StartGatewayOptions> = {}): Promise<TestGateway> {
  const logger = collectingLogger();
  const gw = await startGateway({ home: options.home ?? tempHome(), port: 0, uiDir: null, logger, searchTool: null, ...options });
  cleanups.push(() => gw.close());
  return Object.assign(gw, { logs: logger.entries });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

export interface RawRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Omit the Host header default (127.0.0.1:port) and use headers.host as given. */
}

/** A raw HTTP request to the gateway; Host defaults to 127.0.0.1:PORT, nothing else is added. */
export function rawRequest(port: number, req: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: `127.0.0.1:${port}` };
    for (const [k, v] of Object.entries(req.headers ?? {})) if (v !== undefined) headers[k] = v;
    if (req.body !== undefined && headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) {
      headers['content-length'] = String(Buffer.byteLength(req.body));
    }
    const r = request({ host: '127.0.0.1', port, method: req.method ?? 'GET', path: req.path ?? '/', headers, setHost: false, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text === '' ? undefined : JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    r.on('error', reject);
    if (req.body !== undefined) r.write(req.body);
    r.end();
  });
}

/** POST a raw body to /rpc with the gateway's token. */
export function postRpc(gw: Gateway, body: string | Buffer, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(gw.port, {
    method: 'POST',
    path: '/rpc',
    headers: { authorization: `Bearer ${gw.token}`, 'content-type': 'application/json', ...headers },
    body,
  });
}

export interface RpcErrorShape {
  code: number;
  message: string;
  data?: { code?: string; issues?: { path: (string | number)[]; message: string }[] } & Record<string, unknown>;
}

let nextId = 1;

/** One JSON-RPC call over HTTP; returns the whole response object. */
export async function rpcRaw(gw: Gateway, method: string, params?: unknown): Promise<{ id: unknown; result?: unknown; error?: RpcErrorShape }> {
  const id = nextId++;
  const res = await postRpc(gw, JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.text}`);
  const body = res.json as { id: unknown; result?: unknown; error?: RpcErrorShape };
  if (body.id !== id) throw new Error(`id mismatch: ${res.text}`);
  return body;
}

/** One JSON-RPC call over HTTP that must succeed. */
export async function rpc<T = any>(gw: Gateway, method: string, params?: unknown): Promise<T> {
  const body = await rpcRaw(gw, method, params);
  if (body.error) throw new Error(`${method} failed: ${JSON.stringify(body.error)}`);
  return body.result as T;
}

/** One JSON-RPC call over HTTP that must fail; returns the error object. */
export async function rpcError(gw: Gateway, method: string, params?: unknown): Promise<RpcErrorShape> {
  const body = await rpcRaw(gw, method, params);
  if (!body.error) throw new Error(`${method} unexpectedly succeeded: ${JSON.stringify(body.result)}`);
  return body.error;
}

export interface RowCounts {
  projects: number;
  folders: number;
  sessions: number;
  messages: number;
  /** Sum of a content fingerprint so edits (not only inserts) are caught. */
  fingerprint: string;
}

export function rowCounts(gw: Gateway): RowCounts {
  const raw = gw.context.db.raw;
  const count = (table: string) => raw.prepare(`select count(*) from ${table}`).pluck().get() as number;
  const fingerprint = raw
    .prepare(
      `select
        (select group_concat(id || ':' || coalesce(project_id,'-') || ':' || coalesce(cwd,'-') || ':' || coalesce(title,'-') || ':' || archived, ',') from (select * from sessions order by id)) || '|' ||
        (select group_concat(id || ':' || visibility || ':' || length(content) || ':' || coalesce(edited_at,0), ',') from (select * from messages order by id)) || '|' ||
        (select group_concat(id || ':' || name || ':' || archived || ':' || coalesce(description,'-'), ',') from (select * from projects order by id)) || '|' ||
        (select group_concat(project_id || ':' || path, ',') from (select * from project_folders order by path))`,
    )
    .pluck()
    .get() as string | null;
  return { projects: count('projects'), folders: count('project_folders'), sessions: count('sessions'), messages: count('messages'), fingerprint: fingerprint ?? '' };
}

// ---- WebSocket ---------------------------------------------------------------------------------

export interface WsClient {
  ws: WebSocket;
  call<T = any>(method: string, params?: unknown): Promise<{ result?: T; error?: RpcErrorShape }>;
  /** Raw frame send; resolves with the next non-notification message. */
  sendRaw(text: string): Promise<unknown>;
  notifications: { method: string; params: any }[];
  waitForNotification(predicate: (n: { method: string; params: any }) => boolean, timeoutMs?: number): Promise<{ method: string; params: any }>;
  close(): Promise<void>;
}

export function wsConnect(url: string, options: { headers?: Record<string, string> } = {}): Promise<WsClient> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: options.headers ?? {} });
    const pending = new Map<unknown, (msg: any) => void>();
    const rawWaiters: ((msg: unknown) => void)[] = [];
    const notifications: { method: string; params: any }[] = [];
    const notifWaiters: { predicate: (n: { method: string; params: any }) => boolean; resolve: (n: any) => void }[] = [];
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as any;
      if (msg && !Array.isArray(msg) && msg.method === 'event' && msg.id === undefined) {
        notifications.push(msg);
        for (const w of [...notifWaiters]) {
          if (w.predicate(msg)) {
            notifWaiters.splice(notifWaiters.indexOf(w), 1);
            w.resolve(msg);
          }
        }
        return;
      }
      const id = Array.isArray(msg) ? undefined : msg?.id;
      const waiter = pending.get(id);
      if (waiter) {
        pending.delete(id);
        waiter(msg);
      } else rawWaiters.shift()?.(msg);
    });
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })));
    ws.once('open', () => {
      let id = 1000;
      resolve({
        ws,
        notifications,
        call: (method, params) =>
          new Promise((res) => {
            const myId = id++;
            pending.set(myId, res);
            ws.send(JSON.stringify({ jsonrpc: '2.0', id: myId, method, ...(params === undefined ? {} : { params }) }));
          }),
        sendRaw: (text) =>
          new Promise((res) => {
            rawWaiters.push(res);
            ws.send(text);
          }),
        waitForNotification: (predicate, timeoutMs = 5000) => {
          const found = notifications.find(predicate);
          if (found) return Promise.resolve(found);
          return new Promise((res, rej) => {
            const timer = setTimeout(() => rej(new Error('timed out waiting for a notification')), timeoutMs);
            notifWaiters.push({
              predicate,
              resolve: (n) => {
                clearTimeout(timer);
                res(n);
              },
            });
          });
        },
        close: () =>
          new Promise((res) => {
            if (ws.readyState === ws.CLOSED) return res();
            ws.once('close', () => res());
            ws.close();
          }),
      });
    });
  });
}
