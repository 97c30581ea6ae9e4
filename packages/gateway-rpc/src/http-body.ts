/**
 * Reading a JSON-RPC request body with a cap: at most `limit` bytes are kept. An oversized body is
 * still read — and discarded — up to MAX_DRAIN_BYTES (and DRAIN_TIMEOUT_MS) before the caller
 * answers 413 with `Connection: close`: a server that answers and closes while the client is still
 * uploading leaves unread bytes in the socket, the kernel then resets the connection, and a client
 * in another process (undici's fetch, for one) sees ECONNRESET/EPIPE instead of the 413 (issue 21.9).
 * Past the bound, or when the declared Content-Length is already past it, reading stops at once:
 * the answer is still sent, but whether such a client can read it is up to its own stack.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DOMAIN_ERROR_CODES, JSONRPC_INVALID_REQUEST } from '@recall/rpc-contract';
import type { JsonRpcErrorObject } from './errors.js';

/** Bytes of an oversized body read and discarded at most before answering 413: 16 MiB. */
export const MAX_DRAIN_BYTES = 16 * 1024 * 1024;
/** How long an oversized body is read and discarded at most before answering 413: 5 s. */
export const DRAIN_TIMEOUT_MS = 5_000;

/** Bounds of {@link readBody} past the body limit. */
export interface DrainBounds {
  /** Bytes read in total at most (kept and discarded), default MAX_DRAIN_BYTES. */
  drainBytes?: number;
  /** Time spent discarding at most, default DRAIN_TIMEOUT_MS. */
  drainTimeoutMs?: number;
}

/**
 * The whole body, or `'too_large'` once the body is known to pass `limit` bytes and the rest of it
 * was read and discarded (up to the bounds) — so the caller's 413 reaches the client.
 */
export function readBody(req: IncomingMessage, limit: number, bounds: DrainBounds = {}): Promise<Buffer | 'too_large'> {
  const drainBytes = Math.max(limit, bounds.drainBytes ?? MAX_DRAIN_BYTES);
  const declared = Number(req.headers['content-length'] ?? NaN);
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    let done = false;
    let timer: NodeJS.Timeout | null = null;
    const finish = (result: Buffer | 'too_large' | Error): void => {
      if (done) return;
      done = true;
      if (timer !== null) clearTimeout(timer);
      if (result instanceof Error) reject(result);
      else resolveBody(result);
    };
    /** Stop reading: the rest stays unread and the caller's `Connection: close` ends the socket. */
    const stop = (): void => {
      req.pause();
      req.removeAllListeners('data');
      finish('too_large');
    };
    const becomeOver = (): void => {
      over = true;
      chunks.length = 0;
      timer = setTimeout(stop, bounds.drainTimeoutMs ?? DRAIN_TIMEOUT_MS);
      timer.unref();
    };
    if (Number.isFinite(declared) && declared > limit) {
      if (declared > drainBytes) {
        finish('too_large');
        return;
      }
      becomeOver();
    }
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (!over && size > limit) becomeOver();
      if (over) {
        if (size > drainBytes) stop();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => finish(over ? 'too_large' : Buffer.concat(chunks, size)));
    req.on('error', (error) => finish(error));
  });
}

/** A JSON-RPC error response with no id, as the body of an HTTP refusal. */
export function rpcErrorBody(error: JsonRpcErrorObject): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null, error });
}

/** A JSON answer, not cached and not sniffed. */
export function sendJson(res: ServerResponse, status: number, body: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...extra,
  });
  res.end(body);
}

/** Refusals (before or instead of reading the body): close the connection so an unread body cannot be smuggled as the next request. */
export function refuse(res: ServerResponse, status: number, code: keyof typeof DOMAIN_ERROR_CODES | 'payload_too_large', message: string, extra: Record<string, string> = {}): void {
  const rpcCode = code === 'payload_too_large' ? JSONRPC_INVALID_REQUEST : DOMAIN_ERROR_CODES[code];
  sendJson(res, status, rpcErrorBody({ code: rpcCode, message, data: { code } }), { Connection: 'close', ...extra });
}
