/**
 * Reranking through the CLI's composition (search-wiring.ts), end to end in one process: a real
 * SQLite file, the real SemanticIndex consent, a loopback embeddings server and a loopback rerank
 * server (tooling/config; test-only scores, never a quality figure). Counted at the rerank server:
 * hybrid calls of a switched-on project send one request holding only that project's text; keyword
 * mode and projects not switched on send nothing; a hanging or failing reranker leaves the fused
 * results with a note. A fast-check property over random worlds checks that only the caller's
 * project's text ever reaches the reranker.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedEmbeddings, type ScriptedEmbeddings } from '@recall/config/scripted-embeddings';
import { startScriptedRerank, type ScriptedRerank } from '@recall/config/scripted-rerank';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { parseSemanticConfig, type SemanticIndex } from '@recall/semantic';
import { sqliteSemanticIndex } from '@recall/semantic/sqlite';
import { appendMessage, createProject, createSession } from '@recall/store';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { loadConfig, redactConfig } from '../src/config.js';
import { createSearchComposition, searchOptionsForIndex } from '../src/search-wiring.js';

let embeddings: ScriptedEmbeddings;
let rerank: ScriptedRerank;
beforeAll(async () => {
  embeddings = await startScriptedEmbeddings({ dims: 8 });
  rerank = await startScriptedRerank();
});
afterAll(async () => {
  await embeddings.close();
  await rerank.close();
});

const open: Array<{ close(): Promise<void> | void }> = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDb(): RecallDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'recall-rerank-'));
  dirs.push(dir);
  const db = openDatabase(join(dir, 'recall.db'));
  open.push(db);
  return db;
}

function wire(db: RecallDatabase, deadlineMs?: number, withRerank = true) {
  const config = parseSemanticConfig({
    enabled: true,
    provider: 'openai-compatible',
    endpoint: embeddings.url,
    model: 'e',
    dims: 8,
    maxRetries: 0,
    timeoutMs: 2_000,
    ...(withRerank ? { rerank: { endpoint: rerank.url, api: 'tei', timeoutMs: 5_000, topN: 10 } } : {}),
  })!;
  const index = sqliteSemanticIndex({ db, config, pollMs: 60_000 });
  const search = createSearchComposition(db, { ...searchOptionsForIndex(index), semanticKeys: { embeddingApiKey: null, openaiApiKey: null, rerankApiKey: 'rr-key' }, ...(deadlineMs ? { deadlineMs } : {}) });
  open.push(index, search);
  return { index, search };
}

async function world(db: RecallDatabase, index: SemanticIndex) {
  const p = createProject(db, { name: 'P' });
  const off = createProject(db, { name: 'Off' });
  const texts = ['uploader backoff with jitter', 'backoff is capped at thirty seconds', 'the uploader backoff retries forever'];
  for (const t of texts) appendMessage(db, createSession(db, { projectId: p.id }).id, { role: 'user', content: t });
  appendMessage(db, createSession(db, { projectId: off.id }).id, { role: 'user', content: 'off project backoff text' });
  await index.enable(p.id);
  return { p, off, caller: createSession(db, { projectId: p.id }), offCaller: createSession(db, { projectId: off.id }), texts };
}

describe('reranking in the composition', () => {
  test('a switched-on project: one request with only its text and the key; the results come back', async () => {
    const db = tempDb();
    const { index, search } = wire(db);
    const w = await world(db, index);
    await index.run({ projectId: w.p.id });
    const before = rerank.requests.length;
    const r = await search.tool.execute({ query: 'uploader backoff', window: 0 }, { currentSessionId: w.caller.id });
    expect(r.error).toBeUndefined();
    expect(r.results).toHaveLength(3);
    const sent = rerank.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers.authorization).toBe('Bearer rr-key');
    expect(sent[0]!.query).toBe('uploader backoff');
    expect([...sent[0]!.texts].sort()).toEqual([...w.texts].sort());
    expect(r.notes.join(' ')).not.toMatch(/not reranked/);
  });

  test.each([
    { name: 'a project that is not switched on', mode: 'hybrid' as const, off: true },
    { name: 'keyword mode', mode: 'keyword' as const, off: false },
  ])('$name: nothing reaches the reranker', async ({ mode, off }) => {
    const db = tempDb();
    const { index, search } = wire(db);
    const w = await world(db, index);
    const before = rerank.requests.length;
    const r = await search.tool.execute({ query: 'backoff', search_mode: mode, window: 0 }, { currentSessionId: off ? w.offCaller.id : w.caller.id });
    expect(r.results.length).toBeGreaterThan(0);
    expect(rerank.requests.length - before).toBe(0);
  });

  test.each([
    { name: 'a hanging reranker (deadline)', step: { hang: true as const }, note: /not reranked: the reranker did not answer before the search deadline/ },
    { name: 'a failing reranker', step: { status: 500, message: 'boom' }, note: /not reranked: the reranker failed \(The reranker answered HTTP 500: boom\)/ },
  ])('$name: the fused results, with a note', async ({ step, note }) => {
    const db = tempDb();
    const { index, search } = wire(db, 800);
    const w = await world(db, index);
    await index.run({ projectId: w.p.id });
    const plain = wire(db, 800, false).search;
    const args = { query: 'uploader backoff', window: 0 };
    const expected = await plain.tool.execute(args, { currentSessionId: w.caller.id });
    rerank.script(step);
    const r = await search.tool.execute(args, { currentSessionId: w.caller.id });
    expect(r.error).toBeUndefined();
    expect(r.results.map((x) => x.message_id)).toEqual(expected.results.map((x) => x.message_id));
    expect(r.notes.join(' ')).toMatch(note);
  });

  test('property: only the caller project text reaches the reranker (random worlds)', async () => {
    const words = ['alpha', 'beta', 'gamma', 'delta'];
    const start = rerank.requests.length;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ project: fc.integer({ min: 0, max: 2 }), a: fc.constantFrom(...words), b: fc.constantFrom(...words) }), { minLength: 1, maxLength: 12 }),
        fc.constantFrom(...words),
        fc.integer({ min: 0, max: 2 }),
        async (messages, query, callerProject) => {
          const db = tempDb();
          const { index, search } = wire(db);
          const projects = [0, 1, 2].map((i) => createProject(db, { name: `P${i}` }));
          const textsOf = new Map<string, Set<string>>(projects.map((p) => [p.id, new Set<string>()]));
          messages.forEach((m, i) => {
            const p = projects[m.project]!;
            const content = `${m.a} ${m.b} note ${i} of ${p.name}`;
            appendMessage(db, createSession(db, { projectId: p.id }).id, { role: 'user', content });
            textsOf.get(p.id)!.add(content);
          });
          for (const p of projects) await index.enable(p.id);
          const caller = projects[callerProject]!;
          const before = rerank.requests.length;
          await search.tool.execute({ query, window: 0 }, { currentSessionId: createSession(db, { projectId: caller.id }).id });
          for (const req of rerank.requests.slice(before)) for (const t of req.texts) expect(textsOf.get(caller.id)!.has(t), t).toBe(true);
          for (const o of open.splice(0).reverse()) await o.close();
        },
      ),
      { numRuns: 25 },
    );
    // the property was exercised: the reranker did receive texts in some worlds
    expect(rerank.requests.length).toBeGreaterThan(start);
  });
});

describe('the reranker key (RECALL_RERANK_API_KEY, resolveApiKey rules)', () => {
  function load(endpoint: string, env: Record<string, string | undefined>) {
    const home = mkdtempSync(join(tmpdir(), 'recall-rerank-home-'));
    dirs.push(home);
    writeFileSync(join(home, 'config.json'), JSON.stringify({ semantic: { enabled: true, provider: 'use-lite', rerank: { endpoint, model: 'm' } } }));
    return loadConfig({ overrides: { home }, env });
  }
  test.each([
    { name: 'the dedicated key goes to the reranker', endpoint: 'http://127.0.0.1:8000/v1', env: { RECALL_RERANK_API_KEY: 'rr' }, key: 'rr', warning: null },
    { name: 'OPENAI_API_KEY is withheld from a reranker that is not OpenAI', endpoint: 'https://rerank.example/v1', env: { OPENAI_API_KEY: 'sk-o' }, key: undefined, warning: /OPENAI_API_KEY is not sent to the rerank endpoint.*RECALL_RERANK_API_KEY/ },
    { name: 'a key over plain http to another host is warned about', endpoint: 'http://rerank.example:8000/v1', env: { RECALL_RERANK_API_KEY: 'rr' }, key: 'rr', warning: /rerank API key will be sent unencrypted/ },
  ])('$name', ({ endpoint, env, key, warning }) => {
    const config = load(endpoint, env);
    expect(config.semanticKeys.rerankApiKey).toBe(key);
    if (warning) expect(config.warnings.join('\n')).toMatch(warning);
    else expect(config.warnings).toEqual([]);
    expect(JSON.stringify(redactConfig(config))).not.toContain('"rr"');
  });
});
