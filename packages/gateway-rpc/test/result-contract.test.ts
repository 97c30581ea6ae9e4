/**
 * Real answers parse with the contract's result schemas (@recall/rpc-contract RPC_RESULT_SCHEMAS):
 * a real gateway on 127.0.0.1 over a temp SQLite home, filled through `import.jsonl` and the write
 * methods, is asked every method the desktop UI reads — sessions (list, resume, page), projects,
 * conversations, every shape of `search.session_search` (with the real tool in worker threads),
 * `index.status` without and with a semantic index (real loopback embeddings server) — and each
 * answer must pass its schema. The store's objects are strict in the contract, so a field added,
 * renamed or retyped in the store or the gateway fails here until the contract says so. A last
 * test checks that every result schema of the contract was exercised.
 */
import { readFileSync } from 'node:fs';
import { startScriptedEmbeddings, type ScriptedEmbeddings } from '@recall/config/scripted-embeddings';
import { RPC_RESULT_SCHEMAS } from '@recall/rpc-contract';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cleanup, rpc, startTestGateway, type TestGateway } from './helpers.js';

type SchemaMethod = keyof typeof RPC_RESULT_SCHEMAS;
const exercised = new Set<string>();

function expectContract(method: SchemaMethod, result: unknown): void {
  exercised.add(method);
  const parsed = RPC_RESULT_SCHEMAS[method].safeParse(result);
  expect(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`), `${method} answer drifted from @recall/rpc-contract`).toEqual([]);
}

interface Fixture {
  alpha: string;
  beta: string;
  session: string;
  loose: string;
  anchor: number;
  fresh: string;
}

let gw: TestGateway;
let f: Fixture;

beforeAll(async () => {
  gw = await startTestGateway({ searchTool: undefined });
  const text = readFileSync(new URL('./fixtures/small.jsonl', import.meta.url), 'utf8');
  const summary = await rpc(gw, 'import.jsonl', { text });
  expectContract('import.jsonl', summary);
  expect(summary.messages).toBeGreaterThan(3);
  const messages = (await rpc<{ messages: Array<{ id: number }> }>(gw, 'session.messages', { sessionId: 's-alpha-1' })).messages;
  const fresh = await rpc<{ id: string }>(gw, 'session.create', { projectId: 'p_alpha', title: 'asking', messages: [{ role: 'user', content: 'what about the linker?' }] });
  f = { alpha: 'p_alpha', beta: 'p_beta', session: 's-alpha-1', loose: 's-loose', anchor: messages[0]!.id, fresh: fresh.id };
});
afterAll(cleanup);

type Case = [method: SchemaMethod, params: (f: Fixture) => Record<string, unknown>, check?: (result: any) => void];

const reads: Case[] = [
  ['projects.list', () => ({}), (r) => expect(r.projects.length).toBeGreaterThanOrEqual(2)],
  ['projects.list', () => ({ includeArchived: true })],
  ['session.list', () => ({}), (r) => expect(r.sessions.length).toBeGreaterThanOrEqual(4)],
  ['session.list', (f) => ({ projectId: f.alpha })],
  ['session.list', () => ({ projectId: null })],
  ['session.get', (f) => ({ sessionId: f.session })],
  ['session.resume', (f) => ({ sessionId: f.session }), (r) => expect(r.messages.length).toBeGreaterThan(0)],
  ['session.page', (f) => ({ sessionId: f.session })],
  ['session.page', (f) => ({ sessionId: f.session, aroundMessageId: f.anchor }), (r) => expect(r.anchorVisible).toBe(true)],
  ['conversations.list', (f) => ({ projectId: f.alpha, limit: 1 }), (r) => expect(r.nextCursor).not.toBeNull()],
  ['conversations.list', () => ({ projectId: null })],
  ['conversations.get', (f) => ({ sessionId: f.session })],
  ['search.session_search', (f) => ({ sessionId: f.fresh, query: 'LNK2019', search_mode: 'keyword' }), (r) => expect(r.results.length).toBeGreaterThan(0)],
  ['search.session_search', (f) => ({ sessionId: f.fresh, query: '周报 构建系统' }), (r) => expect(r.results.length).toBeGreaterThan(0)],
  ['search.session_search', (f) => ({ sessionId: f.fresh }), (r) => expect(r.shape).toBe('browse')],
  ['search.session_search', (f) => ({ sessionId: f.fresh, session_id: f.session }), (r) => expect(r.shape).toBe('read')],
  ['search.session_search', (f) => ({ sessionId: f.fresh, around_message_id: f.anchor }), (r) => expect(r.shape).toBe('scroll')],
  ['search.session_search', (f) => ({ sessionId: f.fresh, session_id: 's-beta-1' }), (r) => expect(r.error.code).toBe('not_found')],
  ['index.status', () => ({}), (r) => expect(r.semantic.status).toBe('disabled')],
  ['index.status', (f) => ({ projectId: f.alpha })],
  ['chat.status', () => ({}), (r) => expect(r.configured).toBe(false)],
  ['gateway.info', () => ({})],
];

describe('what the desktop reads', () => {
  test.each(reads)('%s (case %#)', async (method, params, check) => {
    const result = await rpc(gw, method, params(f));
    expectContract(method, result);
    check?.(result);
  });
});

describe('what the desktop writes', () => {
  test('projects and conversations through their lifecycle', async () => {
    const project = await rpc(gw, 'projects.create', { name: 'Gamma', folders: ['/x/gamma'] });
    expectContract('projects.create', project);
    expectContract('projects.update', await rpc(gw, 'projects.update', { projectId: project.id, description: 'd', color: '#abc' }));
    expectContract('projects.for_folder', await rpc(gw, 'projects.for_folder', { path: '/x/delta' }));
    const session = await rpc(gw, 'session.create', { projectId: project.id, title: 'draft', messages: [{ role: 'user', content: 'hello' }] });
    expectContract('session.create', session);
    expectContract('session.append', await rpc(gw, 'session.append', { sessionId: session.id, role: 'assistant', content: 'hi' }));
    expectContract('session.title', await rpc(gw, 'session.title', { sessionId: session.id, title: 'renamed' }));
    expectContract('session.project.set', await rpc(gw, 'session.project.set', { sessionId: session.id, projectId: null }));
    expectContract('session.compress', await rpc(gw, 'session.compress', { sessionId: session.id }));
    const other = await rpc(gw, 'session.create', { projectId: project.id, messages: [{ role: 'user', content: 'x' }] });
    expectContract('chat.compress', await rpc(gw, 'chat.compress', { sessionId: other.id }));
    await rpc(gw, 'session.project.set', { sessionId: session.id, projectId: f.alpha });
    expectContract('projects.archive', await rpc(gw, 'projects.archive', { projectId: project.id }));
  });
});

describe('index.* with a semantic index', () => {
  let embeddings: ScriptedEmbeddings;
  beforeAll(async () => {
    embeddings = await startScriptedEmbeddings({ dims: 8 });
  });
  afterAll(async () => {
    await cleanup();
    await embeddings.close();
  });

  test('status before consent, the consent, and status once indexed', async () => {
    const semantic = await startTestGateway({
      semantic: {
        config: { enabled: true, provider: 'openai-compatible', endpoint: embeddings.url, model: 'scripted', dims: 8, maxRetries: 0, timeoutMs: 2_000 },
        keys: { embeddingApiKey: 'k', openaiApiKey: null },
        pollMs: 60_000,
      },
    });
    const project = await rpc(semantic, 'projects.create', { name: 'Indexed' });
    await rpc(semantic, 'session.create', { projectId: project.id, messages: [{ role: 'user', content: 'deploy pipeline question' }] });
    const before = await rpc(semantic, 'index.status', {});
    expectContract('index.status', before);
    expect(before.semantic.provider).not.toBeNull();
    expectContract('index.project.enable', await rpc(semantic, 'index.project.enable', { projectId: project.id }));
    await rpc(semantic, 'index.run', { projectId: project.id, wait: true });
    const after = await rpc(semantic, 'index.status', {});
    expectContract('index.status', after);
    expect(after.semantic.projects[0]).toMatchObject({ status: 'ready', ready: 1 });
    expect(after.semantic.worker).not.toBeNull();
  });
});

test('every result schema of the contract was exercised', () => {
  expect([...exercised].sort()).toEqual(Object.keys(RPC_RESULT_SCHEMAS).sort());
});
