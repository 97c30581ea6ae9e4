import { afterEach, describe, expect, it, vi } from 'vitest';
import { backoffDelay, parseEventFrame, RpcClient, RpcError } from '../src/rpc';
import { coverageProgress } from '../src/lib/coverage';
import { isIndexing } from '../src/state/indexStatus';

describe('backoffDelay', () => {
  it('doubles from 500 ms and is capped at 15 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 50].map((n) => backoffDelay(n))).toEqual([500, 1000, 2000, 4000, 8000, 15000, 15000, 15000]);
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
  });
});

describe('RpcClient', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('posts JSON-RPC with the bearer token and returns the result', async () => {
    const fetchMock = vi.fn(async (_url: string, init: RequestInit) => {
      const body = JSON.parse(String(init.body));
      return new Response(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { projects: [] } }), { status: 200 });
    });
    vi.stubGlobal('fetch', fetchMock);
    const rpc = new RpcClient('tok');
    await expect(rpc.call('projects.list', {})).resolves.toEqual({ projects: [] });
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/rpc');
    expect((init.headers as Record<string, string>).Authorization).toBe('Bearer tok');
    expect(JSON.parse(String(init.body))).toMatchObject({ jsonrpc: '2.0', method: 'projects.list', params: {} });
  });

  it('throws typed errors carrying data.code', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () =>
        new Response(
          JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'Project not found', data: { code: 'project_not_found' } } }),
          { status: 200 },
        ),
      ),
    );
    const err = await new RpcClient('t').call('session.project.set', { sessionId: 's', projectId: 'p' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect((err as RpcError).dataCode).toBe('project_not_found');
    expect((err as RpcError).describe()).toBe('Project not found (project_not_found)');
  });

  it('reports 401 as unauthorized', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response('no', { status: 401 })));
    const err = (await new RpcClient('').call('projects.list', {}).catch((e: unknown) => e)) as RpcError;
    expect(err.code).toBe('unauthorized');
  });
});

describe('coverageProgress', () => {
  it('reads flat and nested coverage and refuses to guess', () => {
    expect(coverageProgress({ ready: 5, total: 10 })).toMatchObject({ done: 5, total: 10, ratio: 0.5 });
    expect(coverageProgress({ chunks: { ready: 3, pending: 1, failed: 0 } })).toMatchObject({ done: 3, total: 4, unit: 'chunks' });
    expect(coverageProgress({ something: 1 })).toBeNull();
    expect(coverageProgress(undefined)).toBeNull();
  });

  it('treats partial with pending work as indexing', () => {
    const base = { keyword: { messages: 1, sessions: 1 } };
    expect(isIndexing({ ...base, semantic: { status: 'partial', coverage: { ready: 1, total: 4 } } })).toBe(true);
    expect(isIndexing({ ...base, semantic: { status: 'ready', coverage: { ready: 4, total: 4 } } })).toBe(false);
    expect(isIndexing({ ...base, semantic: { status: 'disabled' } })).toBe(false);
  });
});
