/**
 * Contract tests over a real gateway on 127.0.0.1 (HTTP POST /rpc) with a real profile database:
 * every method's success path, then the refusals — auth, Host, Origin, malformed JSON, invalid
 * requests, unknown methods, wrong param types, unknown ids, oversized bodies — each asserting that
 * nothing was written (row counts and a content fingerprint unchanged).
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { DOMAIN_ERROR_CODES } from '@recall/rpc-contract';
import { cleanup, postRpc, rawRequest, rowCounts, rpc, rpcError, startTestGateway, type TestGateway } from './helpers.js';

afterEach(cleanup);

interface Fixture {
  p: string;
  q: string;
  empty: string;
  s: string;
  cont: string;
  loose: string;
  m1: number;
  m2: number;
  m3: number;
}

async function seed(gw: TestGateway): Promise<Fixture> {
  const p = (await rpc(gw, 'projects.create', { name: 'Alpha', folders: ['/work/alpha'] })).id;
  const q = (await rpc(gw, 'projects.create', { name: 'Beta' })).id;
  const empty = (await rpc(gw, 'projects.create', { name: 'Empty' })).id;
  const s = await rpc(gw, 'session.create', {
    projectId: p,
    title: 'first',
    cwd: '/work/alpha',
    messages: [
      { role: 'user', content: 'how do we deploy 部署?' },
      { role: 'assistant', content: 'with the deploy script' },
      { role: 'user', content: 'thanks' },
    ],
  });
  const msgs = (await rpc(gw, 'session.messages', { sessionId: s.id })).messages;
  const cont = (await rpc(gw, 'session.compress', { sessionId: s.id, note: 'hand-off' })).session.id;
  const loose = (await rpc(gw, 'session.create', { title: 'loose', cwd: '/repos/found' })).id;
  return { p, q, empty, s: s.id, cont, loose, m1: msgs[0].id, m2: msgs[1].id, m3: msgs[2].id };
}

type Case = [method: string, params: (f: Fixture) => unknown, check: (result: any, f: Fixture, gw: TestGateway) => void | Promise<void>];

const successCases: Case[] = [
  ['projects.list', () => ({}), (r, f) => expect(r.projects.map((p: any) => p.id).sort()).toEqual([f.p, f.q, f.empty].sort())],
  [
    'projects.create',
    () => ({ name: 'Gamma', description: 'd', color: '#abc', icon: 'star', folders: ['/x/gamma', '/x/gamma2'] }),
    (r) => {
      expect(r).toMatchObject({ name: 'Gamma', slug: 'gamma', description: 'd', color: '#abc', icon: 'star', archived: false, sessionCount: 0 });
      expect(r.id).toMatch(/^p_/);
      expect(r.folders).toEqual([
        { path: '/x/gamma', isPrimary: true },
        { path: '/x/gamma2', isPrimary: false },
      ]);
    },
  ],
  ['projects.update', (f) => ({ projectId: f.p, name: 'Alpha 2', description: null }), (r, f) => expect(r).toMatchObject({ id: f.p, name: 'Alpha 2', slug: 'alpha-2', description: null, sessionCount: 2 })],
  [
    'projects.archive',
    (f) => ({ projectId: f.p }),
    async (r, f, gw) => {
      expect(r).toMatchObject({ id: f.p, archived: true });
      // Archive keeps ownership.
      expect((await rpc(gw, 'session.get', { sessionId: f.s })).projectId).toBe(f.p);
      expect((await rpc(gw, 'projects.list', {})).projects.map((p: any) => p.id)).not.toContain(f.p);
      expect((await rpc(gw, 'projects.list', { includeArchived: true })).projects.map((p: any) => p.id)).toContain(f.p);
    },
  ],
  [
    'projects.delete',
    (f) => ({ projectId: f.empty }),
    async (r, f, gw) => {
      expect(r).toEqual({ deleted: true });
      expect((await rpc(gw, 'projects.list', { includeArchived: true })).projects.map((p: any) => p.id)).not.toContain(f.empty);
    },
  ],
  ['projects.folders.add', (f) => ({ projectId: f.q, path: '/work/beta/' }), (r) => expect(r.folders).toEqual([{ path: '/work/beta', isPrimary: true }])],
  ['projects.folders.remove', (f) => ({ projectId: f.p, path: '/work/alpha' }), (r) => expect(r.folders).toEqual([])],
  [
    'projects.for_folder',
    () => ({ path: '/repos/found' }),
    async (r, _f, gw) => {
      expect(r.created).toBe(true);
      expect(r.project.folders).toEqual([{ path: '/repos/found', isPrimary: true }]);
      const again = await rpc(gw, 'projects.for_folder', { path: '/repos/found/' });
      expect(again).toMatchObject({ created: false, project: { id: r.project.id } });
    },
  ],
  ['projects.discovered', () => ({}), (r) => expect(r.folders).toEqual([{ path: '/repos/found', sessionCount: 1 }])],
  [
    'session.create',
    (f) => ({ projectId: f.q, title: 'new', cwd: '/tmp/x', model: 'm', source: 'cli', messages: [{ role: 'user', content: 'hi', externalId: 'e1' }] }),
    (r, f) => expect(r).toMatchObject({ projectId: f.q, title: 'new', cwd: '/tmp/x', model: 'm', source: 'cli', lineage: 'root', messageCount: 1 }),
  ],
  [
    'session.resume',
    (f) => ({ sessionId: f.s }),
    (r, f) => {
      expect(r.session).toMatchObject({ id: f.s, projectId: f.p, cwd: '/work/alpha', endReason: 'compression' });
      expect(r.messages.map((m: any) => m.id)).toEqual([f.m1, f.m2, f.m3]);
    },
  ],
  ['session.get', (f) => ({ sessionId: f.cont }), (r, f) => expect(r).toMatchObject({ id: f.cont, parentSessionId: f.s, lineage: 'compression', projectId: f.p })],
  [
    'session.list',
    (f) => ({ projectId: f.p }),
    async (r, f, gw) => {
      expect(r.sessions.map((s: any) => s.id).sort()).toEqual([f.s, f.cont].sort());
      expect((await rpc(gw, 'session.list', { projectId: null })).sessions.map((s: any) => s.id)).toEqual([f.loose]);
      expect((await rpc(gw, 'session.list', {})).sessions).toHaveLength(3);
      expect((await rpc(gw, 'session.list', { limit: 1, offset: 1 })).sessions).toHaveLength(1);
    },
  ],
  ['session.messages', (f) => ({ sessionId: f.s, afterId: f.m1, limit: 1 }), (r, f) => expect(r.messages.map((m: any) => m.id)).toEqual([f.m2])],
  [
    'session.append',
    (f) => ({ sessionId: f.cont, role: 'assistant', content: 'appended', toolName: 't', toolCalls: '[]', toolCallId: 'c1', externalId: 'x1' }),
    async (r, f, gw) => {
      expect(r).toMatchObject({ sessionId: f.cont, role: 'assistant', content: 'appended', toolName: 't', toolCalls: '[]', toolCallId: 'c1', externalId: 'x1', visibility: 'live' });
      // Idempotent by externalId.
      const again = await rpc(gw, 'session.append', { sessionId: f.cont, role: 'assistant', content: 'appended', externalId: 'x1' });
      expect(again.id).toBe(r.id);
    },
  ],
  ['session.edit', (f) => ({ messageId: f.m2, content: 'edited' }), (r, f) => expect(r).toMatchObject({ id: f.m2, content: 'edited', visibility: 'live' })],
  ['session.delete', (f) => ({ messageId: f.m3 }), (r, f) => expect(r).toMatchObject({ id: f.m3, visibility: 'deleted' })],
  [
    'session.rewind',
    (f) => ({ sessionId: f.s, toMessageId: f.m1 }),
    async (r, f, gw) => {
      expect(r).toEqual({ rewound: 2 });
      expect((await rpc(gw, 'session.messages', { sessionId: f.s })).messages.map((m: any) => m.id)).toEqual([f.m1]);
      expect((await rpc(gw, 'session.messages', { sessionId: f.s, includeHidden: true })).messages.map((m: any) => m.visibility)).toEqual(['live', 'rewound', 'rewound']);
    },
  ],
  [
    'session.compact',
    (f) => ({ sessionId: f.s, upToMessageId: f.m2 }),
    async (r, f, gw) => {
      expect(r).toEqual({ compacted: 2 });
      expect((await rpc(gw, 'session.messages', { sessionId: f.s })).messages.map((m: any) => m.visibility)).toEqual(['compacted', 'compacted', 'live']);
    },
  ],
  [
    'session.compress',
    (f) => ({ sessionId: f.loose, note: 'summary of what happened', title: 'loose (cont.)' }),
    (r, f) => {
      expect(r.previous).toMatchObject({ id: f.loose, endReason: 'compression' });
      expect(r.session).toMatchObject({ parentSessionId: f.loose, lineage: 'compression', projectId: null, title: 'loose (cont.)', messageCount: 1 });
    },
  ],
  [
    'session.branch',
    (f) => ({ sessionId: f.s, fromMessageId: f.m2, title: 'branch' }),
    (r, f) => expect(r).toMatchObject({ parentSessionId: f.s, lineage: 'branch', projectId: f.p, title: 'branch', messageCount: 2 }),
  ],
  ['session.reset', (f) => ({ sessionId: f.s }), (r, f) => expect(r).toMatchObject({ parentSessionId: f.s, lineage: 'reset', projectId: f.p, messageCount: 0 })],
  [
    'session.title',
    (f) => ({ sessionId: f.s, title: 'renamed' }),
    async (r, f, gw) => {
      expect(r).toMatchObject({ id: f.s, title: 'renamed' });
      expect(await rpc(gw, 'session.title', { sessionId: f.s, title: null })).toMatchObject({ title: null });
    },
  ],
  [
    'session.project.set',
    (f) => ({ sessionId: f.s, projectId: f.q }),
    (r, f) => expect({ ...r, sessionIds: [...r.sessionIds].sort() }).toEqual({ sessionIds: [f.s, f.cont].sort(), projectId: f.q, previousProjectId: f.p }),
  ],
  [
    'session.cwd.set',
    (f) => ({ sessionId: f.s, cwd: '/work/beta', gitRepoRoot: '/work/beta', gitBranch: 'main' }),
    (r, f) => expect(r).toMatchObject({ id: f.s, cwd: '/work/beta', gitRepoRoot: '/work/beta', gitBranch: 'main', projectId: f.p }),
  ],
  ['session.workspace.move', (f) => ({ sessionId: f.s, cwd: '/wt/alpha-2' }), (r, f) => expect(r).toMatchObject({ id: f.s, cwd: '/wt/alpha-2', gitRepoRoot: null, projectId: f.p })],
  [
    'search.session_search',
    (f) => ({ sessionId: f.loose, query: 'deploy', search_mode: 'keyword', limit: 5 }),
    async (r, f, gw) => {
      // A session without a project recalls only its own conversation: nothing of P.
      expect(r).toMatchObject({ shape: 'discover', requested_mode: 'keyword', used_mode: 'keyword', semantic_status: 'disabled', scope: { kind: 'own_conversation' }, results: [] });
      // Moved into P, the next search finds P's original text with its anchor.
      await rpc(gw, 'session.project.set', { sessionId: f.loose, projectId: f.p });
      const after = await rpc(gw, 'search.session_search', { sessionId: f.loose, query: 'deploy', search_mode: 'keyword' });
      expect(after.scope).toEqual({ kind: 'project', project_id: f.p });
      expect(after.results.map((x: any) => x.session_id)).toContain(f.s);
      expect(after.results.some((x: any) => x.message_id === f.m1 || x.message_id === f.m2)).toBe(true);
    },
  ],
  [
    'index.status',
    () => ({}),
    (r) => {
      expect(r.semantic).toMatchObject({ status: 'disabled' });
      expect(r.semantic.howToConfigure).toMatch(/config\.json/);
      // 3 messages of s + 1 note of cont; `loose` has none.
      expect(r.keyword).toEqual({ messages: 4, sessions: 3, conversations: 2 }); // cont continues s
    },
  ],
  [
    'import.jsonl',
    () => ({
      text: [
        JSON.stringify({ kind: 'project', id: 'p_imported', name: 'Imported' }),
        JSON.stringify({ kind: 'session', id: 's_imported', project_id: 'p_imported', lineage: 'root', source: 'import', title: 'old chat', started_at: '2024-01-02T03:04:05Z' }),
        JSON.stringify({ kind: 'message', session_id: 's_imported', external_id: 'e1', role: 'user', content: '你好 import', created_at: '2024-01-02T03:04:06Z' }),
      ].join('\n'),
    }),
    async (r, _f, gw) => {
      expect(r).toMatchObject({ projects: 1, sessions: 1, messages: 1, errorCount: 0, errors: [] });
      expect((await rpc(gw, 'session.get', { sessionId: 's_imported' })).projectId).toBe('p_imported');
    },
  ],
  [
    'gateway.info',
    () => ({}),
    (r, _f, gw) => {
      // No launcher given: `recall` on the PATH (the CLI passes node + its own bin; apps/cli tests that).
      expect(r).toMatchObject({ profile: 'default', searchAvailable: true, mcpCommand: { command: 'recall', args: ['mcp', '--home', gw.home] } });
    },
  ],
  [
    'rpc.discover',
    () => ({}),
    (r) => {
      const create = r.methods.find((m: any) => m.name === 'session.create');
      expect(create.params.properties.projectId.description).toMatch(/project/i);
    },
  ],
];

/** Methods of modules with their own over-the-wire suites (method-name prefix → test file). */
const COVERED_ELSEWHERE: [prefix: string, file: string][] = [
  ['chat.', './chat.test.ts'],
  ['conversations.export', './data-methods.test.ts'],
  ['conversations.delete', './data-methods.test.ts'],
  ['conversations.purge_hidden', './data-methods.test.ts'],
  ['projects.export', './data-methods.test.ts'],
  ['conversations.', './pages.test.ts'],
  ['session.page', './pages.test.ts'],
  // stage B is plugged in by the CLI, whose tests run index.* against a real semantic index
  ['index.', '../../../apps/cli/test/index.test.ts'],
];

describe('every method: success path over HTTP', () => {
  let gw: TestGateway;
  let f: Fixture;
  beforeEach(async () => {
    // The real session_search tool (keyword-only in stage A).
    gw = await startTestGateway({ searchTool: undefined });
    f = await seed(gw);
  });

  test.each(successCases)('%s', async (method, params, check) => {
    await check(await rpc(gw, method, params(f)), f, gw);
  });

  test('every registered method has a success case here, or in the test file of the module that owns it', () => {
    const here = new Set(successCases.map((c) => c[0]));
    for (const name of gw.registry.names()) {
      if (here.has(name)) continue;
      const owner = COVERED_ELSEWHERE.find(([prefix]) => name.startsWith(prefix));
      expect(owner, `${name} has no success case`).toBeDefined();
      expect(readFileSync(new URL(owner![1], import.meta.url), 'utf8'), `${name} is not exercised in ${owner![1]}`).toContain(`'${name}'`);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Refusals: nothing runs, nothing is written

describe('refusals write nothing', () => {
  let gw: TestGateway;
  let f: Fixture;
  beforeEach(async () => {
    gw = await startTestGateway();
    f = await seed(gw);
  });

  const createBody = (projectId: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session.create', params: { projectId, title: 'x' } });

  test.each([
    ['no Authorization header', {}],
    ['wrong token', { authorization: 'Bearer not-the-token-not-the-token-not-the-token' }],
    ['wrong scheme', { authorization: 'Basic abc' }],
    ['empty bearer', { authorization: 'Bearer ' }],
  ])('401 with %s; the call never runs', async (_name, headers) => {
    const before = rowCounts(gw);
    const res = await rawRequest(gw.port, { method: 'POST', path: '/rpc', headers: { 'content-type': 'application/json', ...headers }, body: createBody(f.p) });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(res.json).toMatchObject({ error: { code: DOMAIN_ERROR_CODES.unauthorized, data: { code: 'unauthorized' } } });
    expect(rowCounts(gw)).toEqual(before);
  });

  test('a token prefix or a token with a suffix is refused', async () => {
    const before = rowCounts(gw);
    for (const token of [gw.token.slice(0, -1), `${gw.token}x`, gw.token.toUpperCase()]) {
      const res = await postRpc(gw, createBody(f.p), { authorization: `Bearer ${token}` });
      expect(res.status).toBe(401);
    }
    expect(rowCounts(gw)).toEqual(before);
  });

  test.each([
    ['another host name', 'evil.example'],
    ['another host with our port', 'evil.example:PORT'],
    ['our host, other port', '127.0.0.1:1'],
    ['localhost, other port', 'localhost:1'],
    ['no port', '127.0.0.1'],
    ['IPv6 loopback', '[::1]:PORT'],
  ])('403 for Host %s (DNS-rebinding guard), even with the token', async (_name, host) => {
    const before = rowCounts(gw);
    const res = await postRpc(gw, createBody(f.p), { host: host.replace('PORT', String(gw.port)) });
    expect(res.status).toBe(403);
    expect(rowCounts(gw)).toEqual(before);
  });

  test.each(['127.0.0.1:PORT', 'localhost:PORT', 'LOCALHOST:PORT'])('Host %s is accepted', async (host) => {
    const res = await postRpc(gw, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'gateway.info' }), { host: host.replace('PORT', String(gw.port)) });
    expect(res.status).toBe(200);
  });

  test('403 for a foreign Origin; our own origin is fine', async () => {
    const before = rowCounts(gw);
    const foreign = await postRpc(gw, createBody(f.p), { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(rowCounts(gw)).toEqual(before);
    const own = await postRpc(gw, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'gateway.info' }), { origin: `http://localhost:${gw.port}` });
    expect(own.status).toBe(200);
  });

  test.each([
    ['truncated JSON', '{"jsonrpc":"2.0","id":1,"method":"session.create","params":{', -32700, null],
    ['not JSON at all', 'session.create please', -32700, null],
    ['empty body', '', -32700, null],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), -32700, null],
    ['JSON but not a request', '"session.create"', -32600, null],
    ['missing jsonrpc', JSON.stringify({ id: 1, method: 'session.create', params: {} }), -32600, 1],
    ['empty batch', '[]', -32600, null],
  ])('%s → %s', async (_name, body, code, id) => {
    const before = rowCounts(gw);
    const res = await postRpc(gw, body);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id, error: { code } });
    expect(rowCounts(gw)).toEqual(before);
  });

  test('unknown method → -32601', async () => {
    const before = rowCounts(gw);
    expect((await rpcError(gw, 'session.destroyEverything', { sessionId: f.s })).code).toBe(-32601);
    expect(rowCounts(gw)).toEqual(before);
  });

  const badParams: [string, (f: Fixture) => unknown][] = [
    ['projects.create', () => ({ name: 42 })],
    ['projects.create', () => ({ name: 'x'.repeat(121) })],
    ['projects.create', () => ({ name: 'ok', folders: 'not-an-array' })],
    ['projects.create', () => ({ name: 'ok', id: 'p_chosen' })],
    ['projects.update', (f) => ({ projectId: f.p, name: null })],
    ['projects.archive', (f) => ({ projectId: f.p, archived: 'yes' })],
    ['projects.delete', () => ({})],
    ['projects.folders.add', (f) => ({ projectId: f.p, path: '' })],
    ['projects.for_folder', () => ({ path: 7 })],
    ['session.create', () => ({ projectId: 5 })],
    ['session.create', () => ({ messages: [{ role: 'robot', content: 'x' }] })],
    ['session.create', () => ({ sessionId: '../../etc' })],
    ['session.list', () => ({ limit: 0 })],
    ['session.list', () => ({ limit: 'all' })],
    ['session.messages', (f) => ({ sessionId: f.s, afterId: -1 })],
    ['session.append', (f) => ({ sessionId: f.s, role: 'user' })],
    ['session.append', (f) => ({ sessionId: f.s, role: 'user', content: ['a'] })],
    ['session.edit', () => ({ messageId: '1', content: 'x' })],
    ['session.edit', () => ({ messageId: 1.5, content: 'x' })],
    ['session.delete', () => ({ messageId: -3 })],
    ['session.rewind', (f) => ({ sessionId: f.s })],
    ['session.title', (f) => ({ sessionId: f.s })],
    ['session.project.set', (f) => ({ sessionId: f.s })],
    ['session.project.set', (f) => ({ sessionId: f.s, projectId: 12 })],
    ['session.cwd.set', (f) => ({ sessionId: f.s, cwd: null })],
    ['session.cwd.set', (f) => ({ sessionId: f.s, cwd: '/x', projectId: f.q })],
    ['session.workspace.move', (f) => ({ sessionId: f.s, cwd: '/x', projectId: f.q })],
    ['search.session_search', (f) => ({ sessionId: f.s, limit: 1000 })],
    ['search.session_search', (f) => ({ sessionId: f.s, search_mode: 'vector' })],
    ['search.session_search', (f) => ({ sessionId: f.s, project_id: f.q })],
    ['index.status', () => ({ verbose: true })],
  ];

  test.each(badParams)('%s with wrong params → -32602 with issues', async (method, params) => {
    const before = rowCounts(gw);
    const error = await rpcError(gw, method, params(f));
    expect(error.code).toBe(-32602);
    expect(error.data?.code).toBe('invalid_params');
    expect(error.data?.issues?.length).toBeGreaterThan(0);
    expect(rowCounts(gw)).toEqual(before);
  });

  const unknownIds: [string, (f: Fixture) => unknown, string][] = [
    ['projects.update', () => ({ projectId: 'p_missing', name: 'x' }), 'project_not_found'],
    ['projects.archive', () => ({ projectId: 'p_missing' }), 'project_not_found'],
    ['projects.delete', () => ({ projectId: 'p_missing' }), 'project_not_found'],
    ['projects.folders.add', () => ({ projectId: 'p_missing', path: '/x' }), 'project_not_found'],
    ['projects.folders.remove', () => ({ projectId: 'p_missing', path: '/x' }), 'project_not_found'],
    ['session.create', () => ({ projectId: 'p_missing', title: 'x', messages: [{ role: 'user', content: 'x' }] }), 'project_not_found'],
    ['session.resume', () => ({ sessionId: 's_missing' }), 'session_not_found'],
    ['session.get', () => ({ sessionId: 's_missing' }), 'session_not_found'],
    ['session.messages', () => ({ sessionId: 's_missing' }), 'session_not_found'],
    ['session.append', () => ({ sessionId: 's_missing', role: 'user', content: 'x' }), 'session_not_found'],
    ['session.edit', () => ({ messageId: 999_999, content: 'x' }), 'message_not_found'],
    ['session.delete', () => ({ messageId: 999_999 }), 'message_not_found'],
    ['session.rewind', () => ({ sessionId: 's_missing', toMessageId: 1 }), 'session_not_found'],
    ['session.rewind', (f) => ({ sessionId: f.s, toMessageId: 999_999 }), 'message_not_found'],
    ['session.compact', () => ({ sessionId: 's_missing', upToMessageId: 1 }), 'session_not_found'],
    ['session.compress', () => ({ sessionId: 's_missing' }), 'session_not_found'],
    ['session.branch', () => ({ sessionId: 's_missing' }), 'session_not_found'],
    ['session.reset', () => ({ sessionId: 's_missing' }), 'session_not_found'],
    ['session.title', () => ({ sessionId: 's_missing', title: 'x' }), 'session_not_found'],
    ['session.project.set', () => ({ sessionId: 's_missing', projectId: null }), 'session_not_found'],
    ['session.project.set', (f) => ({ sessionId: f.s, projectId: 'p_missing' }), 'project_not_found'],
    ['session.cwd.set', () => ({ sessionId: 's_missing', cwd: '/x' }), 'session_not_found'],
    ['session.workspace.move', () => ({ sessionId: 's_missing', cwd: '/x' }), 'session_not_found'],
    ['search.session_search', () => ({ sessionId: 's_missing', query: 'x' }), 'session_not_found'],
  ];

  test.each(unknownIds)('%s with unknown ids → domain code', async (method, params, code) => {
    const before = rowCounts(gw);
    const error = await rpcError(gw, method, params(f));
    expect(error.data?.code).toBe(code);
    expect(error.code).toBe(DOMAIN_ERROR_CODES[code as keyof typeof DOMAIN_ERROR_CODES]);
    expect(rowCounts(gw)).toEqual(before);
  });

  const domainRefusals: [string, string, (f: Fixture) => unknown, string][] = [
    ['deleting a project that owns conversations', 'projects.delete', (f) => ({ projectId: f.p }), 'project_has_sessions'],
    ['a folder owned by another project', 'projects.folders.add', (f) => ({ projectId: f.q, path: '/work/alpha/' }), 'folder_in_use'],
    ['creating with a taken session id', 'session.create', (f) => ({ sessionId: f.s, title: 'dup' }), 'session_exists'],
    ['editing a rewound message', 'session.edit', (f) => ({ messageId: f.m3, content: 'x' }), 'invalid_input'],
    ['rewinding to a message of another session', 'session.rewind', (f) => ({ sessionId: f.cont, toMessageId: f.m1 }), 'invalid_input'],
    ['a blank project name', 'projects.create', () => ({ name: '   ' }), 'invalid_input'],
    ['compressing a session that already continues in a continuation', 'session.compress', (f) => ({ sessionId: f.s }), 'session_already_compressed'],
  ];

  test.each(domainRefusals)('%s → %s (nothing written)', async (_name, method, params, code) => {
    if (code === 'invalid_input' && method === 'session.edit') await rpc(gw, 'session.rewind', { sessionId: f.s, toMessageId: f.m2 });
    const before = rowCounts(gw);
    const error = await rpcError(gw, method, params(f));
    expect(error.data?.code).toBe(code);
    expect(error.code).toBe(DOMAIN_ERROR_CODES[code as keyof typeof DOMAIN_ERROR_CODES]);
    expect(error.message.length).toBeGreaterThan(0);
    expect(rowCounts(gw)).toEqual(before);
  });

  test('moving into an archived project is refused with project_archived', async () => {
    await rpc(gw, 'projects.archive', { projectId: f.q });
    const before = rowCounts(gw);
    const error = await rpcError(gw, 'session.project.set', { sessionId: f.s, projectId: f.q });
    expect(error).toMatchObject({ code: DOMAIN_ERROR_CODES.project_archived, data: { code: 'project_archived' } });
    expect(rowCounts(gw)).toEqual(before);
  });

  test('an archived project keeps its conversations: /compress still works there, a new conversation is refused', async () => {
    await rpc(gw, 'projects.archive', { projectId: f.p });
    const next = await rpc(gw, 'session.compress', { sessionId: f.cont, note: 'again' });
    expect(next.session).toMatchObject({ projectId: f.p, lineage: 'compression', parentSessionId: f.cont });
    const error = await rpcError(gw, 'session.create', { projectId: f.p, title: 'new' });
    expect(error.data?.code).toBe('project_archived');
  });

  test('a second compression names the continuation to use', async () => {
    const error = await rpcError(gw, 'session.compress', { sessionId: f.s });
    expect(error.data).toMatchObject({ code: 'session_already_compressed', sessionId: f.s, continuationId: f.cont });
  });

  test('project_has_sessions carries the bound session count', async () => {
    const error = await rpcError(gw, 'projects.delete', { projectId: f.p });
    expect(error.data).toMatchObject({ code: 'project_has_sessions', projectId: f.p, sessionCount: 2 });
  });

  test('search without a wired tool → search_unavailable', async () => {
    const error = await rpcError(gw, 'search.session_search', { sessionId: f.s, query: 'deploy' });
    expect(error).toMatchObject({ code: DOMAIN_ERROR_CODES.search_unavailable, data: { code: 'search_unavailable' } });
  });

  test('a body over the limit → 413 / -32600 and nothing runs', async () => {
    const small = await startTestGateway({ bodyLimitBytes: 4096 });
    const before = rowCounts(small);
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'projects.create', params: { name: 'x', description: 'y'.repeat(5000) } });
    const res = await postRpc(small, big);
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ error: { code: -32600, data: { code: 'payload_too_large' } } });
    expect(rowCounts(small)).toEqual(before);
    // The server is still healthy afterwards.
    expect((await rpc(small, 'gateway.info')).profile).toBe('default');
  });

  test('a chunked body over the limit (no Content-Length) → 413', async () => {
    const small = await startTestGateway({ bodyLimitBytes: 4096 });
    const before = rowCounts(small);
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'projects.create', params: { name: 'x', description: 'y'.repeat(5000) } });
    const res = await postRpc(small, big, { 'transfer-encoding': 'chunked' });
    expect(res.status).toBe(413);
    expect(rowCounts(small)).toEqual(before);
  });

  test('GET /rpc → 405', async () => {
    const res = await rawRequest(gw.port, { path: '/rpc', headers: { authorization: `Bearer ${gw.token}` } });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });
});

describe('HTTP transport details', () => {
  test('notifications answer 204 with no body but still run; batches answer arrays', async () => {
    const gw = await startTestGateway();
    const res = await postRpc(gw, JSON.stringify({ jsonrpc: '2.0', method: 'projects.create', params: { name: 'via notification' } }));
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(rowCounts(gw).projects).toBe(1);

    const batch = await postRpc(
      gw,
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'projects.create', params: { name: 'one' } },
        { jsonrpc: '2.0', id: 'b', method: 'projects.list' },
        { jsonrpc: '2.0', id: 'c', method: 'nope' },
      ]),
    );
    const body = batch.json as any[];
    expect(body.map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(body[1].result.projects).toHaveLength(2);
    expect(body[2].error.code).toBe(-32601);
  });

  test('responses are JSON, uncached', async () => {
    const gw = await startTestGateway();
    const res = await postRpc(gw, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'gateway.info' }));
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
  });
});
