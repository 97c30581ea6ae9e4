/**
 * Connection slots under load (issue 21.4): a real gateway with its default limits (256
 * connections, 64 of them unauthenticated), a load generator in its own process
 * (fixtures/connection-load.mjs) holding 300 connections — more than the 256 slots that used to be
 * shared by everyone — and reconnecting whenever one is closed, while a normal authenticated client
 * opens a fresh connection for each call. Each load: the client is never refused and its p95
 * latency stays under 50 ms — more exactly, under 50 ms plus its p95 without the load on the same
 * machine just before (a few ms on a quiet two-core machine; the bound must not measure other
 * work sharing the machine). Loads: 300 raw sockets sending `GET /nope.js` every 500 ms,
 * slowloris (300 sockets dribbling headers), 300 idle authenticated WebSockets.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS } from '../src/server.js';
import { cleanup, startTestGateway, wsConnect, type TestGateway } from './helpers.js';

const LOAD = fileURLToPath(new URL('./fixtures/connection-load.mjs', import.meta.url));
const CONNECTIONS = 300;
const PROBES = 80;
const PROBE_GAP_MS = 15;

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await cleanup();
});

interface LoadStats {
  opened: number;
  closedByServer: number;
  maxOpen: number;
}

/** Starts the load and resolves once it has opened all its connections; `stop()` returns its counters. */
async function startLoad(mode: string, gw: TestGateway): Promise<{ stop(): Promise<LoadStats> }> {
  // At the lowest CPU priority: the figure is about connection slots, and on two cores an attacker
  // process at equal priority would otherwise be measured by its own CPU share (it can always burn
  // the CPU; the slots are what the gateway controls). It still holds and churns every connection.
  const child = spawn('nice', ['-n', '19', process.execPath, LOAD, mode, String(gw.port), String(CONNECTIONS)], { env: { ...process.env, RECALL_TOKEN: gw.token }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const lines: string[] = [];
  let buffer = '';
  const waiters: ((line: string) => void)[] = [];
  child.stdout!.on('data', (d: Buffer) => {
    buffer += d.toString('utf8');
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  const nextLine = (timeoutMs: number): Promise<string> =>
    lines.length > 0
      ? Promise.resolve(lines.shift()!)
      : new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`load ${mode}: no output within ${timeoutMs} ms`)), timeoutMs);
          waiters.push((line) => {
            clearTimeout(timer);
            resolve(line);
          });
        });
  expect(JSON.parse(await nextLine(10_000))).toMatchObject({ ready: true });
  // Let the load settle into its steady state (sockets held, evicted ones reconnecting).
  await new Promise((r) => setTimeout(r, 400));
  return {
    async stop() {
      child.kill('SIGTERM');
      return JSON.parse(await nextLine(5_000)) as LoadStats;
    },
  };
}

/** One authenticated call on a fresh connection; resolves with its latency, or the reason it failed. */
function probe(gw: TestGateway): Promise<{ ok: true; ms: number } | { ok: false; why: string }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'gateway.info' });
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: gw.port,
        method: 'POST',
        path: '/rpc',
        agent: false,
        headers: { host: `127.0.0.1:${gw.port}`, authorization: `Bearer ${gw.token}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
        timeout: 5_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const ok = res.statusCode === 200 && JSON.parse(Buffer.concat(chunks).toString('utf8')).result?.profile === 'default';
          resolve(ok ? { ok: true, ms: performance.now() - started } : { ok: false, why: `HTTP ${res.statusCode}` });
        });
        res.on('error', (error) => resolve({ ok: false, why: error.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error) => resolve({ ok: false, why: error.message }));
    req.end(body);
  });
}

async function probeWhileLoaded(gw: TestGateway, probes = PROBES): Promise<{ p95: number; failures: string[] }> {
  const latencies: number[] = [];
  const failures: string[] = [];
  for (let i = 0; i < probes; i++) {
    const result = await probe(gw);
    if (result.ok) latencies.push(result.ms);
    else failures.push(result.why);
    await new Promise((r) => setTimeout(r, PROBE_GAP_MS));
  }
  latencies.sort((a, b) => a - b);
  return { p95: latencies[Math.ceil(latencies.length * 0.95) - 1] ?? Infinity, failures };
}

describe('a normal client under connection load (default limits)', () => {
  test.each([
    ['300 raw sockets sending GET /nope.js every 500 ms', 'raw-get'],
    ['slowloris: 300 sockets dribbling headers, reconnecting when closed', 'slowloris'],
    ['300 idle authenticated WebSockets, reconnecting when closed', 'idle-ws'],
  ])('%s: no refusal, p95 < 50 ms', async (_name, mode) => {
    const gw = await startTestGateway();
    // The same client on the same machine without the load: what the machine itself costs (on a
    // quiet two-core machine a few ms; on a shared, overloaded one much more).
    const baseline = await probeWhileLoaded(gw, PROBES / 2);
    const load = await startLoad(mode, gw);
    const { p95, failures } = await probeWhileLoaded(gw);
    // A new WebSocket (the desktop UI's way in) gets through as well.
    const ws = await wsConnect(gw.wsUrl, { headers: { authorization: `Bearer ${gw.token}` } });
    expect((await ws.call('gateway.info')).result).toMatchObject({ profile: 'default' });
    await ws.close();
    const stats = await load.stop();
    console.log(`${mode}: p95 ${p95.toFixed(1)} ms (${baseline.p95.toFixed(1)} ms without the load), ${failures.length} refused of ${PROBES}; load opened ${stats.opened} (at most ${stats.maxOpen} at once), closed by the gateway ${stats.closedByServer}`);
    // The load really did exceed the old shared limit, and the gateway had to push it back.
    expect(CONNECTIONS).toBeGreaterThan(DEFAULT_MAX_CONNECTIONS);
    expect(stats.opened).toBeGreaterThanOrEqual(CONNECTIONS);
    expect(stats.closedByServer).toBeGreaterThan(0);
    // …and held more connections at once than the budget its kind gets (64 unauthenticated, 192 authenticated).
    expect(stats.maxOpen).toBeGreaterThan(DEFAULT_MAX_CONNECTIONS - DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS);
    expect(baseline.failures).toEqual([]);
    expect(failures).toEqual([]);
    // Under 50 ms on a quiet machine; on a loaded one, the load adds less than 50 ms to the p95.
    expect(p95).toBeLessThan(50 + baseline.p95);
  }, 30_000);
});
