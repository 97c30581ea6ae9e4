/**
 * The UI's only line to the gateway: a typed JSON-RPC 2.0 client over HTTP POST `/rpc` and an event
 * WebSocket at `/rpc` that delivers `event` notifications and reconnects with bounded exponential
 * backoff. The page holds no secret: both authenticate with the HttpOnly session cookie the browser
 * got from the launch URL `recall serve` printed (same origin, so the browser sends it; the page
 * cannot read it). Errors are `RpcError`s that keep
 * the numeric JSON-RPC code and the stable `data.code` string so the UI can show both.
 */
import { CHAT_EVENT_TYPES, EVENT_NOTIFICATION_METHOD, EVENT_TYPES, JSONRPC_METHOD_NOT_FOUND, type WireEvent } from '@recall/rpc-contract';
import type { RpcMethod, RpcMethods } from './types';

export const RPC_PATH = '/rpc';

/** The error every failed call rejects with. `dataCode` is the gateway's stable string code. */
export class RpcError extends Error {
  readonly code: number | string;
  readonly dataCode: string | undefined;
  readonly data: unknown;
  readonly method: string;
  constructor(method: string, code: number | string, message: string, data?: unknown) {
    super(message);
    this.name = 'RpcError';
    this.method = method;
    this.code = code;
    this.data = data;
    this.dataCode = extractDataCode(data);
  }

  /** One line for the user: the message plus the stable code. */
  describe(): string {
    const code = this.dataCode ?? (typeof this.code === 'string' ? this.code : undefined);
    return code ? `${this.message} (${code})` : this.message;
  }
}

function extractDataCode(data: unknown): string | undefined {
  if (data && typeof data === 'object' && 'code' in data) {
    const c = (data as { code: unknown }).code;
    if (typeof c === 'string') return c;
  }
  return undefined;
}

/** Human text for any thrown value, preferring the RPC description. */
export function errorText(err: unknown): string {
  if (err instanceof RpcError) return err.describe();
  if (err instanceof Error) return err.message;
  return String(err);
}

export function isMethodNotFound(err: unknown): boolean {
  return err instanceof RpcError && err.code === JSONRPC_METHOD_NOT_FOUND;
}

interface JsonRpcResponse {
  jsonrpc: '2.0';
  id?: number | string | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export class RpcClient {
  private nextId = 1;
  constructor(private readonly endpoint: string = RPC_PATH) {}

  async call<M extends RpcMethod>(method: M, params: RpcMethods[M]['params']): Promise<RpcMethods[M]['result']> {
    const id = this.nextId++;
    let res: Response;
    try {
      res = await fetch(this.endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        // The session cookie goes with same-origin requests only; never to another origin.
        credentials: 'same-origin',
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      });
    } catch (err) {
      throw new RpcError(method, 'gateway_unreachable', `Cannot reach the Recall gateway (${errorText(err)})`);
    }
    if (res.status === 401 || res.status === 403) {
      throw new RpcError(
        method,
        'unauthorized',
        'The gateway refused the request: this browser has no Recall session (or the gateway restarted). Open the one-time link `recall serve` prints',
      );
    }
    if (res.status === 413) throw new RpcError(method, 'payload_too_large', 'The request is too large for the gateway');
    let body: JsonRpcResponse;
    try {
      body = (await res.json()) as JsonRpcResponse;
    } catch {
      throw new RpcError(method, `http_${res.status}`, `The gateway answered HTTP ${res.status} without JSON`);
    }
    if (body.error) throw new RpcError(method, body.error.code, body.error.message, body.error.data);
    if (!res.ok) throw new RpcError(method, `http_${res.status}`, `The gateway answered HTTP ${res.status}`);
    return body.result as RpcMethods[M]['result'];
  }
}

export type ConnectionState = 'connecting' | 'open' | 'closed';

/**
 * Delay before reconnect attempt n (0-based): 1 s doubling, capped at 5 s — after a gateway restart
 * the page is live again within seconds, not after a 15 s wait. Pure, for tests.
 */
export function backoffDelay(attempt: number, baseMs = 1000, maxMs = 5000): number {
  const n = Math.max(0, Math.min(attempt, 30));
  return Math.min(maxMs, baseMs * 2 ** n);
}

const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set([...EVENT_TYPES, ...CHAT_EVENT_TYPES]);

/** Parses one WebSocket frame into a gateway event (a change or chat.* event of the contract), or null if it is anything else. */
export function parseEventFrame(raw: string): WireEvent | null {
  let msg: unknown;
  try {
    msg = JSON.parse(raw);
  } catch {
    return null;
  }
  const frames = Array.isArray(msg) ? msg : [msg];
  for (const f of frames) {
    if (f && typeof f === 'object' && (f as { method?: unknown }).method === EVENT_NOTIFICATION_METHOD) {
      const p = (f as { params?: unknown }).params;
      const type = p && typeof p === 'object' ? (p as { type?: unknown }).type : undefined;
      if (typeof type === 'string' && KNOWN_EVENT_TYPES.has(type)) return p as WireEvent;
    }
  }
  return null;
}

/**
 * Keeps one event WebSocket open. Calls `onEvent` per notification and `onState` on connection
 * changes; after a drop it reconnects with `backoffDelay`, and after a reconnect it reports a
 * synthetic "resync" so callers can reload whatever they may have missed.
 */
export class EventStream {
  private ws: WebSocket | null = null;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private everOpened = false;

  constructor(
    private readonly handlers: {
      onEvent: (e: WireEvent) => void;
      onState: (s: ConnectionState, retryInMs?: number) => void;
      onResync: () => void;
    },
    private readonly path: string = RPC_PATH,
  ) {}

  start(): void {
    this.stopped = false;
    globalThis.addEventListener?.('online', this.retryNow);
    globalThis.document?.addEventListener('visibilitychange', this.retryNow);
    this.open();
  }

  /** The network is back or the tab is shown again: try at once instead of waiting out the delay. */
  private readonly retryNow = (): void => {
    if (this.stopped || this.ws || !this.timer) return;
    if (globalThis.document?.visibilityState === 'hidden') return;
    clearTimeout(this.timer);
    this.timer = null;
    this.attempt = 0;
    this.open();
  };

  stop(): void {
    this.stopped = true;
    globalThis.removeEventListener?.('online', this.retryNow);
    globalThis.document?.removeEventListener('visibilitychange', this.retryNow);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.onclose = null;
      ws.onerror = null;
      ws.onmessage = null;
      ws.onopen = null;
      // Closing a socket that is still CONNECTING logs a browser warning; let it open and close then.
      if (ws.readyState === WebSocket.CONNECTING) ws.onopen = () => ws.close();
      else ws.close();
    }
  }

  private url(): string {
    const loc = globalThis.location;
    const scheme = loc.protocol === 'https:' ? 'wss:' : 'ws:';
    // No credential in the URL: the browser sends the session cookie with the upgrade.
    return `${scheme}//${loc.host}${this.path}`;
  }

  private open(): void {
    if (this.stopped) return;
    this.handlers.onState('connecting');
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      const wasReconnect = this.everOpened;
      this.everOpened = true;
      this.attempt = 0;
      this.handlers.onState('open');
      if (wasReconnect) this.handlers.onResync();
    };
    ws.onmessage = (ev: MessageEvent) => {
      if (typeof ev.data !== 'string') return;
      const e = parseEventFrame(ev.data);
      if (e) this.handlers.onEvent(e);
    };
    ws.onerror = () => {
      /* onclose follows and schedules the retry */
    };
    ws.onclose = () => {
      if (this.ws === ws) this.ws = null;
      this.scheduleReconnect();
    };
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    const delay = backoffDelay(this.attempt++);
    this.handlers.onState('closed', delay);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.open();
    }, delay);
  }
}
