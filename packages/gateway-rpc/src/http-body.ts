/**
 * Reading a JSON-RPC request body with a cap: at most `limit` bytes are kept; past it the rest is
 * dropped as it arrives and the caller answers 413.
 */
import type { IncomingMessage } from 'node:http';

/** The whole body, or `'too_large'` as soon as it passes `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        chunks.length = 0;
        resolveBody('too_large');
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!done) {
        done = true;
        resolveBody(Buffer.concat(chunks, size));
      }
    });
    req.on('error', (error) => {
      if (!done) {
        done = true;
        reject(error);
      }
    });
  });
}
