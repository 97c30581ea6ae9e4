/**
 * Which API key actually reaches which model endpoint, end to end: the built CLI runs `recall
 * serve` as a real child process with a real environment and `<home>/config.json`, and a scripted
 * OpenAI-compatible chat server and embeddings server on 127.0.0.1 record the `Authorization`
 * header of every request. OPENAI_API_KEY must reach an endpoint only when it is OpenAI's or came
 * from OPENAI_BASE_URL; the dedicated RECALL_CHAT_API_KEY / RECALL_EMBEDDING_API_KEY go to the
 * configured endpoint; a withheld key is reported on stderr without the key in it. This checks the
 * wiring (environment → config → chat client / embedding provider), which the config.ts unit tests
 * (api-keys.test.ts) cannot see.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startScriptedEmbeddings, type ScriptedEmbeddings } from '@recall/config/scripted-embeddings';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@recall/config/scripted-openai';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { assertCliBuilt, cleanupTemp, startCli, tempDir } from './cli-helpers.js';

const OPENAI_KEY = 'sk-openai-DO-NOT-FORWARD-1234';
const CHAT_KEY = 'sk-recall-chat-5678';
const EMBED_KEY = 'sk-recall-embed-9012';

let chat: ScriptedOpenAI;
let embeddings: ScriptedEmbeddings;
beforeAll(async () => {
  assertCliBuilt();
  chat = await startScriptedOpenAI();
  embeddings = await startScriptedEmbeddings({ dims: 8 });
});
afterAll(async () => {
  await chat.close();
  await embeddings.close();
});
afterEach(() => cleanupTemp());

/**
 * Variables the developer's shell may carry that would change the answer are always set explicitly.
 * The SDK would read OPENAI_ORG_ID / OPENAI_PROJECT_ID from the environment and send them as headers
 * to whatever endpoint is configured; the gateway passes null for both, which these prove.
 */
const ORG = 'org-DO-NOT-FORWARD';
const PROJECT = 'proj-DO-NOT-FORWARD';
const CLEAR = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', OPENAI_ORG_ID: ORG, OPENAI_PROJECT_ID: PROJECT };

async function serve(config: Record<string, unknown>, env: Record<string, string>) {
  const home = tempDir();
  writeFileSync(join(home, 'config.json'), JSON.stringify(config));
  // config.ts treats an empty variable as unset, so CLEAR removes inherited OPENAI_* values.
  const server = startCli(['serve', '--home', home, '--port', '0', '--no-ui'], { env: { ...CLEAR, ...env } });
  const url = await server.firstLine;
  const token = readFileSync(join(home, 'gateway.token'), 'utf8').trim();
  const call = async (method: string, params: unknown): Promise<any> => {
    const response = await fetch(new URL('/rpc', url), {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await response.json()) as { result?: unknown; error?: unknown };
    if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
    return body.result;
  };
  const stop = async () => {
    server.child.kill('SIGTERM');
    return server.exit;
  };
  return { call, stop };
}

async function seed(call: (method: string, params: unknown) => Promise<any>) {
  const project = await call('projects.create', { name: 'Keys' });
  const session = await call('session.create', { projectId: project.id, title: 'keys' });
  await call('session.append', { sessionId: session.id, role: 'user', content: 'where do the keys go' });
  return { projectId: project.id as string, sessionId: session.id as string };
}

describe('recall serve: the chat request carries only the key its endpoint may receive', () => {
  test.each([
    // [case, config.json chat section (baseUrl filled in), environment, expected bearer or null, stderr warning]
    ['OPENAI_API_KEY is withheld from a chat endpoint named in config.json', { baseUrl: true }, { OPENAI_API_KEY: OPENAI_KEY }, null, /OPENAI_API_KEY is not sent to the chat endpoint/],
    ['OPENAI_BASE_URL + OPENAI_API_KEY travel together', { baseUrl: false }, { OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: 'CHAT_URL' }, OPENAI_KEY, null],
    ['RECALL_CHAT_API_KEY goes to the configured endpoint, OPENAI_API_KEY never', { baseUrl: true }, { OPENAI_API_KEY: OPENAI_KEY, RECALL_CHAT_API_KEY: CHAT_KEY }, CHAT_KEY, null],
  ] as const)('%s', async (_case, chatSection, rawEnv, expected, warning) => {
    const env = Object.fromEntries(Object.entries(rawEnv).map(([k, v]) => [k, v === 'CHAT_URL' ? chat.url : v]));
    const { call, stop } = await serve({ chat: { model: 'scripted-model', ...(chatSection.baseUrl ? { baseUrl: chat.url } : {}) } }, env);
    const { sessionId } = await seed(call);
    const before = chat.requests.length;
    chat.push({ text: 'they stay home' });
    const outcome = await call('chat.send', { sessionId, content: 'and the key?', wait: true });
    expect(outcome.status).toBe('completed');
    const sent = chat.requests.slice(before);
    expect(sent).toHaveLength(1);
    const authorization = String(sent[0]!.headers.authorization ?? '');
    if (expected === null) expect(authorization).not.toContain('sk-');
    else expect(authorization).toBe(`Bearer ${expected}`);
    const headers = JSON.stringify(sent[0]!.headers);
    if (expected !== OPENAI_KEY) expect(headers).not.toContain(OPENAI_KEY);
    expect(headers).not.toContain(ORG);
    expect(headers).not.toContain(PROJECT);
    const exit = await stop();
    expect(exit.code, exit.stderr).toBe(0);
    if (warning === null) expect(exit.stderr).not.toMatch(/not sent to/);
    else expect(exit.stderr).toMatch(warning);
    // The key itself is never printed.
    for (const secret of [OPENAI_KEY, CHAT_KEY]) expect(exit.stderr + exit.stdout).not.toContain(secret);
  });
});

describe('recall serve: the embedding provider follows the same rule', () => {
  test.each([
    ['OPENAI_API_KEY is withheld from a third-party embeddings endpoint', { OPENAI_API_KEY: OPENAI_KEY }, null, /OPENAI_API_KEY is not sent to the embedding endpoint/],
    ['RECALL_EMBEDDING_API_KEY goes to the configured endpoint, OPENAI_API_KEY never', { OPENAI_API_KEY: OPENAI_KEY, RECALL_EMBEDDING_API_KEY: EMBED_KEY }, EMBED_KEY, null],
  ] as const)('%s', async (_case, env, expected, warning) => {
    const semantic = { enabled: true, provider: 'openai-compatible', endpoint: embeddings.url, model: 'scripted', dims: 8, maxRetries: 0, timeoutMs: 5_000 };
    const { call, stop } = await serve({ semantic }, env);
    const { projectId } = await seed(call);
    const before = embeddings.requests.length;
    await call('index.project.enable', { projectId });
    const run = await call('index.run', { projectId, wait: true });
    expect(run).toMatchObject({ completed: true });
    const sent = embeddings.requests.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    for (const request of sent) {
      const authorization = String(request.headers.authorization ?? '');
      if (expected === null) expect(authorization).not.toContain('sk-');
      else expect(authorization).toBe(`Bearer ${expected}`);
      for (const secret of [OPENAI_KEY, ORG, PROJECT]) expect(JSON.stringify(request.headers)).not.toContain(secret);
    }
    const exit = await stop();
    expect(exit.code, exit.stderr).toBe(0);
    if (warning === null) expect(exit.stderr).not.toMatch(/not sent to/);
    else expect(exit.stderr).toMatch(warning);
    for (const secret of [OPENAI_KEY, EMBED_KEY]) expect(exit.stderr + exit.stdout).not.toContain(secret);
  });
});
