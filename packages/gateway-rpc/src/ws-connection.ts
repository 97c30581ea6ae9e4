/**
 * One authenticated WebSocket of the gateway: JSON-RPC frames in, answers and `event`
 * notifications out, with flow control. A client that sends requests but does not read the answers
 * must not grow our memory: at most MAX_WS_IN_FLIGHT requests of a socket run at once, and while that
 * many run or more than MAX_WS_BUFFERED_BYTES of answers/events wait unsent, the socket is paused (no
 * more frames are read; the client's own TCP window then stops it from sending). Frames already
 * parsed when the pause took effect wait in a short queue. Sends report back when flushed, which is
 * when reading resumes. Events are not requests the client asked for: a client already over the
 * limit when one is due is dropped.
 */
import { DOMAIN_ERROR_CODES } from '@recall/rpc-contract';
import type { WebSocket } from 'ws';
import type { GatewayLogger } from './context.js';
import type { EventHub, HubEvent } from './events.js';
import { notification } from './jsonrpc.js';

/**
 * Unsent bytes (answers and events) a WebSocket may have before we stop reading its requests; an
 * event due while over it drops the client, which is evidently not reading.
 */
export const MAX_WS_BUFFERED_BYTES = 16 * 1024 * 1024;
/** Requests of one WebSocket that may run at once; further frames wait unread. */
export const MAX_WS_IN_FLIGHT = 8;

/** What a socket needs from its gateway. */
export interface WebSocketDeps {
  /** The gateway's open sockets (this one is added, and removed when it closes). */
  readonly clients: Set<WebSocket>;
  readonly events: EventHub;
  readonly logger: GatewayLogger;
  /** True once the gateway is shutting down: new frames are answered `shutting_down`. */
  isClosing(): boolean;
  /** Dispatches one frame's text (tracked by the gateway for a clean shutdown); null = no answer. */
  run(text: string): Promise<string | null>;
  /** Told when a frame starts and stops running, so the connection counts as busy, not idle (connection-slots.ts). */
  activity?: { begin(): void; end(): void };
}

const SHUTTING_DOWN = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: DOMAIN_ERROR_CODES.shutting_down, message: 'The gateway is shutting down.', data: { code: 'shutting_down' } } });

/** Serves one upgraded socket until it closes. */
export function serveWebSocket(ws: WebSocket, deps: WebSocketDeps): void {
  deps.clients.add(ws);
  const queue: string[] = [];
  let running = 0;
  const busy = (): boolean => running >= MAX_WS_IN_FLIGHT || ws.bufferedAmount > MAX_WS_BUFFERED_BYTES;
  const pump = (): void => {
    while (queue.length > 0 && !busy() && ws.readyState === ws.OPEN) run(queue.shift()!);
    const shouldPause = busy() || queue.length > 0;
    if (shouldPause && !ws.isPaused) ws.pause();
    else if (!shouldPause && ws.isPaused && ws.readyState === ws.OPEN) ws.resume();
  };
  const send = (text: string): void => {
    if (ws.readyState !== ws.OPEN) return;
    ws.send(text, () => pump());
  };
  const run = (text: string): void => {
    if (deps.isClosing()) {
      send(SHUTTING_DOWN);
      return;
    }
    running++;
    deps.activity?.begin();
    void deps
      .run(text)
      .then(
        (response) => {
          if (response !== null) send(response);
        },
        (error: unknown) => deps.logger.error('WebSocket dispatch failed', { error: String(error) }),
      )
      .finally(() => {
        running--;
        deps.activity?.end();
        pump();
      });
  };
  const unsubscribe = deps.events.subscribe((event: HubEvent) => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > MAX_WS_BUFFERED_BYTES) {
      ws.terminate();
      return;
    }
    send(notification('event', event));
  });
  ws.on('message', (data) => {
    const buffer = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    let text: string;
    try {
      // fatal: invalid UTF-8 is a parse error, not silently replaced characters in stored text.
      text = new TextDecoder('utf-8', { fatal: true }).decode(buffer);
    } catch {
      text = '\u0000invalid-utf8';
    }
    queue.push(text);
    pump();
  });
  ws.on('error', (error) => deps.logger.warn('WebSocket client error', { error: error.message }));
  ws.on('close', () => {
    queue.length = 0;
    unsubscribe();
    deps.clients.delete(ws);
  });
}
