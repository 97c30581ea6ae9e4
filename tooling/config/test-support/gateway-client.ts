/**
 * The client half of the gateway tests, shared by every package that starts a real gateway
 * (gateway-rpc's own tests, the CLI's): raw HTTP requests via node:http (so tests control
 * Host/Authorization exactly), JSON-RPC calls over HTTP, a small WebSocket JSON-RPC client, row
 * counts for "nothing was written" assertions and a few chat/conversation helpers. Typed
 * structurally against what a started gateway exposes, so this file imports no Recall package.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';

export interface LogEntry {
  level: 'info' | 'warn' | 'error';
  message: string;
  meta?: Record<string, unknown> | undefined;
}

/** A logger (the gateway's GatewayLogger shape) that keeps every entry for assertions. */
export function collectingLogger(): { info(m: string, meta?: Record<string, unknown>): void; warn(m: string, meta?: Record<string, unknown>): void; error(m: string, meta?: Record<string, unknown>): void; entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  return {
    entries,
    info: (message, meta) => entries.push({ level: 'info', message, meta }),
    warn: (message, meta) => entries.push({ level: 'warn', message, meta }),
    error: (message, meta) => entries.push({ level: 'error', message, meta }),
  };
}

const cleanups: (() => Promise<void> | void)[] = [];

/** Runs `fn` at the next cleanup() (gateways to close, folders to remove). */
export function onCleanup(fn: () => Promise<void> | void): void {
  cleanups.push(fn);
}

/** A new temp folder for a gateway home, removed at cleanup(). */
export function tempHome(): string {
  const dir = mkdtempSync(join(tmpdir(), 'recall-gw-'));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Call from afterEach: closes gateways and removes temp dirs, most recent first. */
export async function cleanup(): Promise<void> {
  for (const fn of cleanups.splice(0).reverse()) await fn();
}

/** What these helpers need of a started gateway (`@recall/gateway-rpc`'s `Gateway` satisfies it). */
export interface GatewayEndpoint {
  readonly port: number;
  readonly token: string;
  /** `db` is null for a gateway on a team database (PostgreSQL); rowCounts() needs the SQLite file. */
  readonly context: { readonly db: { readonly raw: { prepare(sql: string): { pluck(): { get(): unknown } } } } | null };
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
export function postRpc(gw: GatewayEndpoint, body: string | Buffer, headers: Record<string, string> = {}): Promise<RawResponse> {
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
export async function rpcRaw(gw: GatewayEndpoint, method: string, params?: unknown): Promise<{ id: unknown; result?: unknown; error?: RpcErrorShape }> {
  const id = nextId++;
  const res = await postRpc(gw, JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.text}`);
  const body = res.json as { id: unknown; result?: unknown; error?: RpcErrorShape };
  if (body.id !== id) throw new Error(`id mismatch: ${res.text}`);
  return body;
}

/** One JSON-RPC call over HTTP that must succeed. */
export async function rpc<T = any>(gw: GatewayEndpoint, method: string, params?: unknown): Promise<T> {
  const body = await rpcRaw(gw, method, params);
  if (body.error) throw new Error(`${method} failed: ${JSON.stringify(body.error)}`);
  return body.result as T;
}

/** One JSON-RPC call over HTTP that must fail; returns the error object. */
export async function rpcError(gw: GatewayEndpoint, method: string, params?: unknown): Promise<RpcErrorShape> {
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

export function rowCounts(gw: GatewayEndpoint): RowCounts {
  if (gw.context.db === null) throw new Error('rowCounts: this gateway has no SQLite file (a team database)');
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

/** chat.* notifications of one run, in arrival order. */
export function chatEvents(ws: WsClient, runId: string): any[] {
  return ws.notifications.map((n) => n.params).filter((p) => typeof p?.type === 'string' && p.type.startsWith('chat.') && p.runId === runId);
}

/** Resolves with the run's terminal event (chat.done or chat.error). */
export async function waitForRunEnd(ws: WsClient, runId: string, timeoutMs = 10_000): Promise<any> {
  const n = await ws.waitForNotification((m) => (m.params?.type === 'chat.done' || m.params?.type === 'chat.error') && m.params.runId === runId, timeoutMs);
  return n.params;
}

export async function createProject(gw: GatewayEndpoint, name: string): Promise<string> {
  return (await rpc(gw, 'projects.create', { name })).id as string;
}

export async function createConversation(
  gw: GatewayEndpoint,
  projectId: string | null,
  title: string,
  messages: { role: 'user' | 'assistant' | 'system' | 'tool'; content: string }[] = [],
): Promise<{ id: string; messageIds: number[] }> {
  const session = await rpc(gw, 'session.create', { projectId, title, messages });
  const stored = (await rpc(gw, 'session.messages', { sessionId: session.id })).messages as { id: number }[];
  return { id: session.id as string, messageIds: stored.map((m) => m.id) };
}

export async function messagesOf(gw: GatewayEndpoint, sessionId: string, includeHidden = false): Promise<any[]> {
  return (await rpc(gw, 'session.messages', { sessionId, includeHidden })).messages;
}
