/**
 * Gateway lifecycle: loopback-only binding, profiles as separate databases, clean close() that
 * lets in-flight calls answer before sockets and the database close (and loses no acknowledged
 * write), WebSocket clients told "going away", and start-up failures that are typed.
 */
import { Agent, request } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import type { SessionSearchExecutor } from '@recall/search-tool';
import { startGateway } from '../src/index.js';
import { cleanup, collectingLogger, rpc, startTestGateway, tempHome, wsConnect } from './helpers.js';

afterEach(cleanup);

function gate() {
  let release!: () => void;
  let started!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const didStart = new Promise<void>((r) => (started = r));
  const tool: SessionSearchExecutor = {
    execute: async () => {
      started();
      await released;
      return { results: [], notes: ['slow'] };
    },
  };
  return { tool, release, didStart };
}

function connectRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const r = request({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      res.resume();
      resolve(false);
    });
    r.on('error', () => resolve(true));
    r.end();
  });
}

describe('binding and profiles', () => {
  test('listens on 127.0.0.1 only, on the port it reports', async () => {
    const gw = await startTestGateway();
    expect(gw.url).toBe(`http://127.0.0.1:${gw.port}/`);
    expect(gw.rpcUrl).toBe(`http://127.0.0.1:${gw.port}/rpc`);
    expect(gw.wsUrl).toBe(`ws://127.0.0.1:${gw.port}/rpc`);
    expect(gw.port).toBeGreaterThan(0);
  });

  test('each profile is its own database', async () => {
    const home = tempHome();
    const work = await startTestGateway({ home, profile: 'work' });
    const play = await startTestGateway({ home, profile: 'play' });
    await rpc(work, 'projects.create', { name: 'Work only', folders: ['/same/path'] });
    await rpc(play, 'projects.create', { name: 'Play only', folders: ['/same/path'] });
    expect((await rpc(work, 'projects.list')).projects.map((p: any) => p.name)).toEqual(['Work only']);
    expect((await rpc(play, 'projects.list')).projects.map((p: any) => p.name)).toEqual(['Play only']);
    expect(work.context.db.path).toContain('/profiles/work/recall.db');
    expect((await rpc(play, 'gateway.info')).profile).toBe('play');
  });

  test('an invalid profile name is refused with invalid_profile before anything opens', async () => {
    await expect(startGateway({ home: tempHome(), profile: '../escape', port: 0, uiDir: null, logger: collectingLogger() })).rejects.toMatchObject({ code: 'invalid_profile' });
  });

  test('a port in use is a start-up error, not a hang', async () => {
    const gw = await startTestGateway();
    await expect(startGateway({ home: tempHome(), port: gw.port, uiDir: null, searchTool: null, logger: collectingLogger() })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});

describe('close()', () => {
  test('waits for an in-flight call to answer, then closes the database; idempotent', async () => {
    const g = gate();
    const gw = await startGateway({ home: tempHome(), port: 0, uiDir: null, searchTool: g.tool, logger: collectingLogger() });
    const s = (await rpc(gw, 'session.create', {})).id;
    const inFlight = rpc(gw, 'search.session_search', { sessionId: s, query: 'x' });
    await g.didStart;

    let closed = false;
    const closing = gw.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(false);
    expect(gw.context.db!.raw.open).toBe(true);

    g.release();
    expect(await inFlight).toEqual({ results: [], notes: ['slow'] });
    await closing;
    expect(gw.context.db!.raw.open).toBe(false);
    await gw.close();
    expect(await connectRefused(gw.port)).toBe(true);
  });

  // server.close() drops idle kept-alive sockets at once (Node >= 19), so a late request either finds
  // its socket gone (a client-side reset) or, if it raced in, gets 503. Either way it never runs.
  test('a request arriving while closing is refused (503 or reset) and never runs', async () => {
    const g = gate();
    const gw = await startGateway({ home: tempHome(), port: 0, uiDir: null, searchTool: g.tool, logger: collectingLogger() });
    const s = (await rpc(gw, 'session.create', {})).id;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = (body: string) =>
      new Promise<number>((resolve) => {
        const r = request(
          { host: '127.0.0.1', port: gw.port, method: 'POST', path: '/rpc', agent, headers: { authorization: `Bearer ${gw.token}`, 'content-type': 'application/json' } },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        r.on('error', () => resolve(-1));
        r.end(body);
      });
    // Open the kept-alive connection before the shutdown starts.
    expect(await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'gateway.info' }))).toBe(200);
    const inFlight = rpc(gw, 'search.session_search', { sessionId: s });
    await g.didStart;
    const closing = gw.close();
    expect([503, -1]).toContain(await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'projects.create', params: { name: 'late' } })));
    g.release();
    await inFlight;
    await closing;
    agent.destroy();
    const reopened = await startTestGateway({ home: gw.home });
    expect((await rpc(reopened, 'projects.list')).projects).toEqual([]);
  });

  test('acknowledged writes survive a close and reopen', async () => {
    const home = tempHome();
    const gw = await startGateway({ home, port: 0, uiDir: null, searchTool: null, logger: collectingLogger() });
    const p = await rpc(gw, 'projects.create', { name: 'Durable' });
    const s = await rpc(gw, 'session.create', { projectId: p.id, messages: [{ role: 'user', content: '持久 durable' }] });
    await gw.close();
    const again = await startTestGateway({ home });
    expect((await rpc(again, 'session.resume', { sessionId: s.id })).messages.map((m: any) => m.content)).toEqual(['持久 durable']);
  });

  test('WebSocket clients are closed with 1001 (going away)', async () => {
    const gw = await startGateway({ home: tempHome(), port: 0, uiDir: null, searchTool: null, logger: collectingLogger() });
    const c = await wsConnect(gw.wsUrl, { headers: { authorization: `Bearer ${gw.token}` } });
    const code = new Promise<number>((resolve) => c.ws.once('close', (closeCode) => resolve(closeCode)));
    await gw.close();
    expect(await code).toBe(1001);
  });
});
