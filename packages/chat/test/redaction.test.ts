/**
 * No secret reaches the chat model: a real ChatRuns against a scripted OpenAI-compatible server on
 * loopback, with the real session_search tool over a real SQLite file. The user's message, the
 * earlier conversation the tool finds (returned as the tool result of the next request) and the
 * history of a second turn all carry the fake-secret corpus of @recall/redaction (generated fresh,
 * never real credentials); every request body the server received is checked. The stored messages
 * keep the original text. With the policy's surfaces switched off the secrets do arrive, so the
 * check can fail — `<private>` spans never do.
 */
import { describe, expect, onTestFinished, test } from 'vitest';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { appendMessage, createProject, createSession, getMessages } from '@recall/store';
import { createSessionSearchTool } from '@recall/search-tool';
import { RedactionPolicy } from '@recall/redaction';
import { fakeSecretCorpus } from '@recall/redaction/internal';
import { startScriptedOpenAI } from '@recall/config/scripted-openai';
import { tempDatabases } from '@recall/config/temp-databases';
import { ChatRuns, resolveChatSettings } from '../src/index.js';

const { tempDb } = tempDatabases<RecallDatabase>((path) => openDatabase(path), 'recall-chat-redact-');
const corpus = fakeSecretCorpus();

function leaked(secret: string, sent: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 10 <= secret.length; i++) {
    const piece = secret.slice(i, i + 10);
    // JSON escapes newlines and quotes in request bodies: compare against the decoded text too.
    if (!/\s/.test(piece) && sent.includes(piece)) out.push(piece);
  }
  return out;
}

async function converse(redaction: RedactionPolicy | undefined) {
  const openai = await startScriptedOpenAI([
    { toolCalls: [{ name: 'session_search', arguments: { query: 'zanzibar', limit: 50 } }] },
    { text: 'Noted.' },
    { text: 'Second answer.' },
  ]);
  onTestFinished(() => openai.close());
  const db = tempDb();
  const p = createProject(db, { name: 'P' }).id;
  // One conversation per secret, each found by the query, so the tool result carries many of them.
  for (const c of corpus) {
    const earlier = createSession(db, { projectId: p, title: c.name });
    appendMessage(db, earlier.id, { role: 'user', content: `zanzibar credentials: ${c.text}` });
  }
  const chat = createSession(db, { projectId: p, title: 'chat' });
  const settings = resolveChatSettings({ baseUrl: openai.url, model: 'scripted', apiKey: null, maxRetries: 0 });
  const runs = new ChatRuns({ db, profile: 'default', events: { emit: () => {} }, logger: { info: () => {}, warn: () => {}, error: () => {} }, searchTool: createSessionSearchTool({ db }), ...(redaction ? { redaction } : {}) }, settings);
  onTestFinished(() => runs.shutdown());
  const pasted = corpus.slice(0, 12).map((c) => c.text).join('\n');
  expect((await (await runs.start(chat.id, `please check these:\n${pasted}`)).done).status).toBe('completed');
  expect((await (await runs.start(chat.id, 'and once more')).done).status).toBe('completed');
  const bodies = openai.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => r.body as { messages: Array<{ role: string; content: string | null }> });
  // Decoded message texts (tool results are JSON inside JSON) plus the raw bodies.
  const texts = bodies.flatMap((b) => b.messages.map((m) => m.content ?? '')).flatMap((t) => {
    try {
      return [t, JSON.stringify(JSON.parse(t), null, 0).replace(/\\n/g, '\n')];
    } catch {
      return [t];
    }
  });
  return { sent: [...texts, ...bodies.map((b) => JSON.stringify(b))].join('\n'), bodies, db, chatId: chat.id, pasted };
}

describe('the chat surface', () => {
  test('by default no secret of the corpus reaches the model: messages, tool results, later turns', async () => {
    const { sent, bodies, db, chatId, pasted } = await converse(undefined);
    expect(bodies).toHaveLength(3);
    // The tool result really carried the earlier conversation (redacted).
    expect(sent).toContain('credentials:');
    expect(sent).toContain('[redacted:');
    for (const c of corpus) expect(leaked(c.secret, sent), c.name).toEqual([]);
    // Stored messages keep the original.
    expect(getMessages(db, chatId)[0]!.content).toContain(pasted);
  });

  test('with the surfaces switched off the secrets arrive (the check can fail), <private> spans never', async () => {
    const { sent } = await converse(new RedactionPolicy({ surfaces: { chat: false, search_results: false } }));
    const pastedCases = corpus.slice(0, 12);
    expect(pastedCases.filter((c) => leaked(c.secret, sent).length === 0).map((c) => c.name)).toEqual([]);
    // Beyond the pasted ones, the tool result carried secrets of the earlier conversations.
    const fromResults = corpus.slice(12).filter((c) => c.kind !== 'private' && leaked(c.secret, sent).length > 0);
    expect(fromResults.length).toBeGreaterThan(10);
    for (const c of corpus.filter((x) => x.kind === 'private')) expect(leaked(c.secret.replace(/<\/?private>/gi, ''), sent), c.name).toEqual([]);
  });

  test('the policy counts what the chat surfaces redacted', async () => {
    const policy = new RedactionPolicy();
    await converse(policy);
    const stats = policy.stats();
    expect(stats.surfaces.chat.redactions).toBeGreaterThanOrEqual(12);
    expect(stats.surfaces.search_results.redactions).toBeGreaterThan(0);
    expect(stats.surfaces.embedding.redactions).toBe(0);
  });
});
