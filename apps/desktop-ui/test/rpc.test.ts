import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backoffDelay, parseEventFrame, RpcClient, RpcError } from '../src/rpc';
import { coverageProgress } from '../src/lib/coverage';
import { isIndexing } from '../src/state/indexStatus';
import type { IndexStatus } from '@recall/rpc-contract';

describe('backoffDelay', () => {
  it('starts at 1 s, doubles and is capped at 5 s (a restarted gateway is found within seconds)', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 50].map((n) => backoffDelay(n))).toEqual([1000, 2000, 4000, 5000, 5000, 5000, 5000, 5000]);
  });
});

describe('parseEventFrame', () => {
  it('reads event notifications and ignores the rest', () => {
    expect(parseEventFrame('{"jsonrpc":"2.0","method":"event","params":{"type":"sessions.changed","sessionIds":["s1"]}}')).toEqual({
      type: 'sessions.changed',
      sessionIds: ['s1'],
    });
    expect(parseEventFrame('{"jsonrpc":"2.0","id":1,"result":{}}')).toBeNull();
    expect(parseEventFrame('not json')).toBeNull();
    expect(parseEventFrame('{"jsonrpc":"2.0","method":"event","params":{"type":"chat.delta","sessionId":"s","runId":"r","round":1,"text":"hi"}}')).toMatchObject({ type: 'chat.delta', text: 'hi' });
    expect(parseEventFrame('{"jsonrpc":"2.0","method":"event","params":{"type":"not.an.event"}}')).toBeNull();
    expect(parseEventFrame('{"jsonrpc":"2.0","method":"other","params":{"type":"sessions.changed"}}')).toBeNull();
  });
});

describe('RpcClient (against a loopback HTTP server)', () => {
  let server: Server;
  let base = '';
  let last: { auth: string | undefined; body: Record<string, unknown> } | null = null;
  let reply: (body: Record<string, unknown>) => { status: number; json: unknown } = () => ({ status: 200, json: {} });

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      req.on('end', () => {
        const body = JSON.parse(raw) as Record<string, unknown>;
        last = { auth: req.headers.authorization, body };
        const r = reply(body);
        res.writeHead(r.status, { 'content-type': 'application/json' });
        res.end(typeof r.json === 'string' ? r.json : JSON.stringify(r.json));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('posts JSON-RPC without any token (the session cookie authenticates) and returns the result', async () => {
    reply = (b) => ({ status: 200, json: { jsonrpc: '2.0', id: b.id, result: { projects: [] } } });
    await expect(new RpcClient(base).call('projects.list', {})).resolves.toEqual({ projects: [] });
    expect(last?.auth).toBeUndefined();
    expect(last?.body).toMatchObject({ jsonrpc: '2.0', method: 'projects.list', params: {} });
  });

  it('throws typed errors carrying data.code', async () => {
    reply = (b) => ({
      status: 200,
      json: { jsonrpc: '2.0', id: b.id, error: { code: -32001, message: 'Project not found', data: { code: 'project_not_found' } } },
    });
    const err = await new RpcClient(base).call('session.project.set', { sessionId: 's', projectId: 'p' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect((err as RpcError).code).toBe(-32001);
    expect((err as RpcError).dataCode).toBe('project_not_found');
    expect((err as RpcError).describe()).toBe('Project not found (project_not_found)');
  });

  it('reports 401 as unauthorized and an unreachable gateway as such', async () => {
    reply = () => ({ status: 401, json: 'no' });
    const err = (await new RpcClient(base).call('projects.list', {}).catch((e: unknown) => e)) as RpcError;
    expect(err.code).toBe('unauthorized');
    const down = (await new RpcClient('http://127.0.0.1:1/rpc').call('projects.list', {}).catch((e: unknown) => e)) as RpcError;
    expect(down.code).toBe('gateway_unreachable');
  });
});

describe('coverageProgress', () => {
  it.each([
    [{ indexed: 5, total: 10 }, { done: 5, total: 10, pending: 5, unit: 'chunks', ratio: 0.5 }],
    [{ indexed: 3, total: 12 }, { done: 3, total: 12, pending: 9, unit: 'chunks', ratio: 0.25 }],
    [{ indexed: 0, total: 0 }, { done: 0, total: 0, pending: 0, unit: 'chunks', ratio: null }],
    ['unknown' as const, null],
    [null, null],
    [undefined, null],
  ])('reads %j and never guesses', (coverage, progress) => {
    expect(coverageProgress(coverage)).toEqual(progress);
  });

  it('treats partial with pending work as indexing', () => {
    const status = (semantic: Pick<IndexStatus['semantic'], 'status'> & Partial<IndexStatus['semantic']>): IndexStatus => ({
      keyword: { messages: 1, sessions: 1, conversations: 1 },
      semantic: { configured: true, enabled: true, provider: null, worker: null, projects: [], ...semantic },
    });
    expect(isIndexing(status({ status: 'partial', coverage: { indexed: 1, total: 4 } }))).toBe(true);
    expect(isIndexing(status({ status: 'ready', coverage: { indexed: 4, total: 4 } }))).toBe(false);
    expect(isIndexing(status({ status: 'disabled' }))).toBe(false);
  });
});
