/**
 * Real answers parse with the contract's result schemas (@recall/rpc-contract RPC_RESULT_SCHEMAS):
 * a real gateway on 127.0.0.1 over a temp SQLite home, filled through `import.jsonl` and the write
 * methods, is asked every method of the contract — the desktop's reads (sessions: list, resume,
 * page; projects; conversations; every shape of `search.session_search` with the real tool in
 * worker threads), the write methods, `index.*` without and with a semantic index (real loopback
 * embeddings server) and `chat.*` with a scripted OpenAI-compatible server (a run with a
 * session_search tool call) — and each answer must pass its schema. The store's objects are strict
 * in the contract, so a field added, renamed or retyped in the store or the gateway fails here
 * until the contract says so. A last test checks that every method's schema was exercised.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startScriptedEmbeddings, type ScriptedEmbeddings } from '@recall/config/scripted-embeddings';
import { RPC_RESULT_SCHEMAS } from '@recall/rpc-contract';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FIXTURES } from './cli-helpers.js';
import { cleanup, rpc, startTestGateway, type TestGateway } from './helpers.js';
import { semanticPlugin } from '../src/semantic-wiring.js';
import { createConversation, createProject, startChatGateway, waitForRunEnd } from './helpers.js';

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
  const text = readFileSync(join(FIXTURES, 'small.jsonl'), 'utf8');
  const summary = await rpc(gw, 'import.jsonl', { text });
  expectContract('import.jsonl', summary);
  expect(summary.messages).toBeGreaterThan(3);
  const messages = (await rpc<{ messages: Array<{ id: number }> }>(gw, 'session.messages', { sessionId: 's-alpha-1' })).messages;
  const fresh = await rpc<{ id: string }>(gw, 'session.create', { projectId: 'p_alpha', title: 'asking', messages: [{ role: 'user', content: 'what about the linker?' }] });
  // A folder no project covers, for projects.discovered.
  await rpc(gw, 'session.create', { title: 'elsewhere', cwd: '/repos/found' });
  f = { alpha: 'p_alpha', beta: 'p_beta', session: 's-alpha-1', loose: 's-loose', anchor: messages[0]!.id, fresh: fresh.id };
});
afterAll(cleanup);

type Case = [method: SchemaMethod, params: (f: Fixture) => Record<string, unknown>, check?: (result: any) => void];

const reads: Case[] = [
  ['projects.list', () => ({}), (r) => expect(r.projects.length).toBeGreaterThanOrEqual(2)],
  ['projects.list', () => ({ includeArchived: true })],
  ['projects.discovered', () => ({}), (r) => expect(r.folders.length).toBeGreaterThan(0)],
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
  ['session.messages', (f) => ({ sessionId: f.session })],
  ['rpc.discover', () => ({}), (r) => expect(r.methods.length).toBeGreaterThan(40)],
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
    expectContract('projects.folders.add', await rpc(gw, 'projects.folders.add', { projectId: project.id, path: '/x/gamma2', primary: true }));
    const session = await rpc(gw, 'session.create', { projectId: project.id, title: 'draft', messages: [{ role: 'user', content: 'hello' }] });
    expectContract('session.create', session);
    expectContract('session.append', await rpc(gw, 'session.append', { sessionId: session.id, role: 'assistant', content: 'hi' }));
    expectContract('session.title', await rpc(gw, 'session.title', { sessionId: session.id, title: 'renamed' }));
    expectContract('session.cwd.set', await rpc(gw, 'session.cwd.set', { sessionId: session.id, cwd: '/x/gamma/sub', gitRepoRoot: '/x/gamma', gitBranch: 'main' }));
    expectContract('session.project.set', await rpc(gw, 'session.project.set', { sessionId: session.id, projectId: null }));
    expectContract('session.compress', await rpc(gw, 'session.compress', { sessionId: session.id }));
    const other = await rpc(gw, 'session.create', { projectId: project.id, messages: [{ role: 'user', content: 'x' }] });
    expectContract('chat.compress', await rpc(gw, 'chat.compress', { sessionId: other.id }));
    await rpc(gw, 'session.project.set', { sessionId: session.id, projectId: f.alpha });
    expectContract('projects.archive', await rpc(gw, 'projects.archive', { projectId: project.id }));
    expectContract('projects.folders.remove', await rpc(gw, 'projects.folders.remove', { projectId: project.id, path: '/x/gamma2' }));
  });

  test('messages, lineage and directories of a conversation', async () => {
    const session = await rpc(gw, 'session.create', { projectId: f.alpha, messages: ['one', 'two', 'three', 'four'].map((content) => ({ role: 'user', content })) });
    const ids = (await rpc<{ messages: Array<{ id: number }> }>(gw, 'session.messages', { sessionId: session.id })).messages.map((m) => m.id);
    expectContract('session.edit', await rpc(gw, 'session.edit', { messageId: ids[0], content: 'one, edited' }));
    expectContract('session.delete', await rpc(gw, 'session.delete', { messageId: ids[1] }));
    expectContract('session.branch', await rpc(gw, 'session.branch', { sessionId: session.id, title: 'a branch' }));
    expectContract('session.reset', await rpc(gw, 'session.reset', { sessionId: session.id }));
    expectContract('session.workspace.move', await rpc(gw, 'session.workspace.move', { sessionId: session.id, cwd: '/work/alpha-2' }));
    expectContract('session.compact', await rpc(gw, 'session.compact', { sessionId: session.id, upToMessageId: ids[2] }));
    expectContract('session.rewind', await rpc(gw, 'session.rewind', { sessionId: session.id, toMessageId: ids[2] }));
    const empty = await rpc(gw, 'projects.create', { name: 'Empty' });
    expectContract('projects.delete', await rpc(gw, 'projects.delete', { projectId: empty.id }));
  });

  test('export and delete for real', async () => {
    expectContract('projects.export', await rpc(gw, 'projects.export', { projectId: f.alpha, format: 'markdown' }));
    expectContract('conversations.export', await rpc(gw, 'conversations.export', { sessionId: f.session }));
    const session = await rpc(gw, 'session.create', { projectId: f.alpha, messages: [{ role: 'user', content: 'to be purged' }, { role: 'assistant', content: 'and this' }] });
    const ids = (await rpc<{ messages: Array<{ id: number }> }>(gw, 'session.messages', { sessionId: session.id })).messages.map((m) => m.id);
    await rpc(gw, 'session.delete', { messageId: ids[1] });
    expectContract('conversations.purge_hidden', await rpc(gw, 'conversations.purge_hidden', { sessionId: session.id }));
    expectContract('conversations.delete', await rpc(gw, 'conversations.delete', { sessionId: session.id }));
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
      semantic: semanticPlugin({
        config: { enabled: true, provider: 'openai-compatible', endpoint: embeddings.url, model: 'scripted', dims: 8, maxRetries: 0, timeoutMs: 2_000 },
        keys: { embeddingApiKey: 'k', openaiApiKey: null },
        pollMs: 60_000,
      }),
    });
    const project = await rpc(semantic, 'projects.create', { name: 'Indexed' });
    await rpc(semantic, 'session.create', { projectId: project.id, messages: [{ role: 'user', content: 'deploy pipeline question' }] });
    const before = await rpc(semantic, 'index.status', {});
    expectContract('index.status', before);
    expect(before.semantic.provider).not.toBeNull();
    expectContract('index.project.enable', await rpc(semantic, 'index.project.enable', { projectId: project.id }));
    const ran = await rpc(semantic, 'index.run', { projectId: project.id, wait: true });
    expectContract('index.run', ran);
    // The worker woken by the consent may have embedded it already: done either way.
    expect(ran).toMatchObject({ completed: true, reason: 'done' });
    const after = await rpc(semantic, 'index.status', {});
    expectContract('index.status', after);
    expect(after.semantic.projects[0]).toMatchObject({ status: 'ready', ready: 1 });
    expect(after.semantic.worker).not.toBeNull();
    expectContract('index.run', await rpc(semantic, 'index.run', {}));
    expectContract('index.pause', await rpc(semantic, 'index.pause', {}));
    expectContract('index.rebuild', await rpc(semantic, 'index.rebuild', { projectId: project.id }));
    expectContract('index.project.disable', await rpc(semantic, 'index.project.disable', { projectId: project.id }));
  });
});

describe('chat.* with a scripted model', () => {
  test('a run in the background, a cancel of a finished run, and a run with a session_search call answered in full', async () => {
    const { gw: chat, ws } = await startChatGateway({
      script: [{ text: 'first answer' }, { toolCalls: [{ name: 'session_search', arguments: { query: 'quokka' } }] }, { text: 'found the quokka' }],
    });
    const project = await createProject(chat, 'Zoo');
    await createConversation(chat, project, 'earlier', [{ role: 'user', content: 'the quokka lives on Rottnest' }]);
    const conversation = await createConversation(chat, project, 'now');
    const started = await rpc(chat, 'chat.send', { sessionId: conversation.id, content: 'hello' });
    expectContract('chat.send', started);
    expect(Object.keys(started).sort()).toEqual(['runId', 'sessionId', 'userMessageId']);
    expect((await waitForRunEnd(ws, started.runId)).type).toBe('chat.done');
    const cancel = await rpc(chat, 'chat.cancel', { runId: started.runId });
    expectContract('chat.cancel', cancel);
    expect(cancel).toMatchObject({ cancelled: false, status: 'completed' });
    const outcome = await rpc(chat, 'chat.send', { sessionId: conversation.id, content: 'where does the quokka live?', wait: true });
    expectContract('chat.send', outcome);
    expect(outcome).toMatchObject({ status: 'completed', content: 'found the quokka' });
    expect(outcome.toolCalls).toHaveLength(1);
    expect(outcome.toolCalls[0].anchors.length).toBeGreaterThan(0);
  });
});

test('every result schema of the contract was exercised', () => {
  expect([...exercised].sort()).toEqual(Object.keys(RPC_RESULT_SCHEMAS).sort());
});
