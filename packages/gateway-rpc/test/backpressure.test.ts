/**
 * WebSocket backpressure: a client that sends requests but never reads the answers must not grow
 * the gateway's memory without bound. A real gateway on 127.0.0.1 with a session whose
 * `session.resume` answer is ~4 MB; a `ws` client pauses its socket (reads nothing) and sends 60
 * resume calls (≈240 MB of answers). The gateway must stop reading at its buffered-bytes cap
 * instead of producing every answer, and once the client reads again every call is answered, in
 * order, with nothing lost. A write sent behind such unread answers is not run (not even parsed)
 * until the client reads. The per-socket in-flight bound is tested in search-pool.test.ts.
 */
import { appendMessages, createSession } from '@recall/store';
import { afterEach, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { MAX_WS_BUFFERED_BYTES, MAX_WS_IN_FLIGHT } from '../src/server.js';
import { cleanup, startTestGateway } from './helpers.js';

afterEach(() => cleanup());

const CALLS = 60;
const MESSAGES = 1000;
const MESSAGE_CHARS = 4000;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

test('a paused client issuing many session.resume calls does not grow server memory without bound; all are answered once it reads', async () => {
  const gw = await startTestGateway();
  const session = createSession(gw.context.db, { title: 'big' });
  appendMessages(
    gw.context.db,
    session.id,
    Array.from({ length: MESSAGES }, (_, i) => ({ role: 'user' as const, content: `${i} ${'x'.repeat(MESSAGE_CHARS)}` })),
  );

  const ws = new WebSocket(gw.wsUrl, { headers: { authorization: `Bearer ${gw.token}` } });
  await new Promise<void>((res, rej) => {
    ws.once('open', () => res());
    ws.once('error', rej);
  });
  const answers: number[] = [];
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data)) as { id?: number; result?: { messages: unknown[] } };
    if (typeof msg.id === 'number' && msg.result?.messages.length === MESSAGES) answers.push(msg.id);
  });
  ws.pause();

  global.gc?.();
  const before = process.memoryUsage().rss;
  for (let id = 1; id <= CALLS; id++) ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'session.resume', params: { sessionId: session.id, limit: MESSAGES } }));
  // Bounded wait: long enough for the old gateway to have produced and buffered every answer.
  let peak = before;
  for (let i = 0; i < 30; i++) {
    await sleep(100);
    peak = Math.max(peak, process.memoryUsage().rss);
  }
  const grownMiB = (peak - before) / 2 ** 20;
  // The cap, the answers being built by the in-flight calls (each ~4 MB of rows, objects and JSON
  // text, a few times over) and slack for the allocator; without backpressure the gateway built all 60
  // answers (≈240 MB of JSON) and grew by ~700 MiB.
  const boundMiB = MAX_WS_BUFFERED_BYTES / 2 ** 20 + MAX_WS_IN_FLIGHT * 4 * 3 + 48;
  expect(grownMiB, `RSS grew ${grownMiB.toFixed(0)} MiB`).toBeLessThan(boundMiB);
  expect(answers.length).toBe(0);

  ws.resume();
  for (let i = 0; i < 600 && answers.length < CALLS; i++) await sleep(50);
  expect(answers).toEqual(Array.from({ length: CALLS }, (_, i) => i + 1));
  ws.close();
});

test('while over the cap the gateway stops taking requests off the socket: a write sent behind big unread answers runs only once the client reads', async () => {
  const gw = await startTestGateway();
  const session = createSession(gw.context.db, { title: 'big' });
  appendMessages(
    gw.context.db,
    session.id,
    Array.from({ length: MESSAGES }, (_, i) => ({ role: 'user' as const, content: `${i} ${'x'.repeat(MESSAGE_CHARS)}` })),
  );
  const marker = () => gw.context.db.raw.prepare("select count(*) from messages where content = 'written after the big answers'").pluck().get() as number;

  const ws = new WebSocket(gw.wsUrl, { headers: { authorization: `Bearer ${gw.token}` } });
  await new Promise<void>((res, rej) => {
    ws.once('open', () => res());
    ws.once('error', rej);
  });
  let appendAnswered = false;
  ws.on('message', (data) => {
    if ((JSON.parse(String(data)) as { id?: unknown }).id === 'append') appendAnswered = true;
  });
  ws.pause();
  // ~4 MB answers: 12 of them are far past the 16 MiB cap plus what loopback socket buffers hold.
  const big = 12;
  for (let id = 1; id <= big; id++) ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'session.resume', params: { sessionId: session.id, limit: MESSAGES } }));
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 'append', method: 'session.append', params: { sessionId: session.id, role: 'user', content: 'written after the big answers' } }));
  await sleep(1_500);
  // Without backpressure every frame is parsed and run at once, so the write would already be stored.
  expect(marker()).toBe(0);

  ws.resume();
  for (let i = 0; i < 400 && !appendAnswered; i++) await sleep(50);
  expect(appendAnswered).toBe(true);
  expect(marker()).toBe(1);
  ws.close();
});
