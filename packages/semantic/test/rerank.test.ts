/**
 * The rerank client and the configured reranker against a real loopback rerank server
 * (tooling/config's scripted rerank: test-only word-overlap scores, never a quality figure): both
 * request shapes, typed errors (timeout, 5xx, 4xx with the key redacted, oversized and malformed
 * answers, abort), consent (nothing is sent for a project that is not switched on — counted at the
 * server), redaction of the fake-secret corpus before it is sent, and the `semantic.rerank` config.
 */
import { startScriptedRerank, type ScriptedRerank } from '@recall/config/scripted-rerank';
import { fakeSecretCorpus } from '@recall/redaction/internal';
import { createProject } from '@recall/store';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { enableProject } from '../src/sqlite/consent.js';
import { createRerankClient, parseSemanticConfig, type RerankClient } from '../src/index.js';
import { createConfiguredReranker, sqliteSemanticIndex } from '../src/sqlite/index.js';
import { tempDb } from './support/temp-db.js';

let server: ScriptedRerank;
beforeAll(async () => {
  server = await startScriptedRerank();
});
afterAll(async () => {
  await server.close();
});

const texts = ['the cat sat on the mat', 'backoff with jitter for the uploader', 'uploader retries'];

describe('rerank client', () => {
  test.each([
    { api: 'tei' as const, endpoint: () => server.url, path: '/rerank', bodyKeys: ['query', 'texts'] },
    { api: 'cohere' as const, endpoint: () => `${server.url}/v1`, path: '/v1/rerank', bodyKeys: ['model', 'query', 'documents', 'top_n'] },
    { api: 'cohere' as const, endpoint: () => server.url, path: '/rerank', bodyKeys: ['model', 'query', 'documents', 'top_n'] },
  ])('$api at $path: one score per text, in input order', async ({ api, endpoint, path, bodyKeys }) => {
    const client = createRerankClient({ endpoint: endpoint(), api, model: 'bge-reranker-v2-m3', timeoutMs: 2_000, apiKey: 'sk-rerank-test' });
    const before = server.requests.length;
    const scores = await client.rerank('uploader backoff', texts);
    expect(scores).toEqual([0, 1, 0.5]);
    const req = server.requests[before]!;
    expect(req.path).toBe(path);
    for (const k of bodyKeys) expect(req.body).toHaveProperty(k);
    expect(req.headers.authorization).toBe('Bearer sk-rerank-test');
    if (api === 'cohere') expect(req.body).toMatchObject({ model: 'bge-reranker-v2-m3', top_n: 3 });
  });

  const client = (timeoutMs = 2_000): RerankClient => createRerankClient({ endpoint: server.url, api: 'cohere', model: 'm', timeoutMs, apiKey: 'sk-secret-key-123', maxResponseBytes: 10_000 });
  test.each([
    { name: 'a hang past the timeout', step: { hang: true as const }, code: 'rerank_unavailable', message: /did not answer within 200 ms/ },
    { name: 'HTTP 503', step: { status: 503, message: 'overloaded' }, code: 'rerank_unavailable', message: /HTTP 503: overloaded/ },
    { name: 'HTTP 401 echoing the key', step: { status: 401, message: 'bad key sk-secret-key-123' }, code: 'rerank_request_failed', message: /HTTP 401\): bad key \[redacted\]/ },
    { name: 'an oversized answer', step: { bigBodyBytes: 20_000 }, code: 'rerank_request_failed', message: /larger than 10000 bytes/ },
    { name: 'a non-JSON answer', step: { raw: 'not json' }, code: 'rerank_request_failed', message: /not JSON/ },
    { name: 'an index it was not sent', step: { raw: '{"results":[{"index":7,"relevance_score":1}]}' }, code: 'rerank_request_failed', message: /not sent/ },
  ])('$name → typed error $code', async ({ step, code, message }) => {
    server.script(step);
    const error = await client(200).rerank('q', texts).catch((e: unknown) => e);
    expect(error).toMatchObject({ code });
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('sk-secret-key-123');
  });

  test('the caller aborting → rerank_aborted', async () => {
    server.script({ hang: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(client(5_000).rerank('q', texts, { signal: controller.signal })).rejects.toMatchObject({ code: 'rerank_aborted' });
  });

  test('a refused connection → rerank_unavailable', async () => {
    const gone = await startScriptedRerank();
    const url = gone.url;
    await gone.close();
    await expect(createRerankClient({ endpoint: url, api: 'tei', model: null, timeoutMs: 1_000 }).rerank('q', texts)).rejects.toMatchObject({ code: 'rerank_unavailable' });
  });
});

describe('semantic.rerank config', () => {
  const base = { enabled: true, provider: 'openai-compatible', endpoint: 'http://127.0.0.1:9/v1', model: 'e', dims: 8 };
  test.each([
    { rerank: { endpoint: 'http://127.0.0.1:8080/', api: 'tei' }, expected: { endpoint: 'http://127.0.0.1:8080', api: 'tei', model: null, topN: 20, timeoutMs: 3_000 } },
    { rerank: { endpoint: 'http://127.0.0.1:8000/v1', model: 'bge-reranker-v2-m3', topN: 8, timeoutMs: 500 }, expected: { endpoint: 'http://127.0.0.1:8000/v1', api: 'cohere', model: 'bge-reranker-v2-m3', topN: 8, timeoutMs: 500 } },
  ])('valid: $rerank.endpoint', ({ rerank, expected }) => {
    expect(parseSemanticConfig({ ...base, rerank })!.rerank).toEqual(expected);
  });
  test.each([
    { rerank: { endpoint: 'http://127.0.0.1:8000/v1' }, issue: /semantic\.rerank\.model: required/ },
    { rerank: { endpoint: 'ftp://x', model: 'm' }, issue: /semantic\.rerank\.endpoint/ },
    { rerank: { endpoint: 'http://x', model: 'm', topN: 500 }, issue: /semantic\.rerank\.topN/ },
    { rerank: { endpoint: 'http://x', model: 'm', timeoutMs: 5 }, issue: /semantic\.rerank\.timeoutMs/ },
    { rerank: { endpoint: 'http://x', model: 'm', apiKey: 'k' }, issue: /semantic\.rerank/ },
  ])('invalid: $issue', ({ rerank, issue }) => {
    expect(() => parseSemanticConfig({ ...base, rerank })).toThrow(issue);
  });
});

describe('the configured reranker', () => {
  function setup(redact?: null) {
    const db = tempDb();
    const on = createProject(db, { name: 'On' });
    const off = createProject(db, { name: 'Off' });
    const config = parseSemanticConfig({ enabled: true, provider: 'openai-compatible', endpoint: 'http://127.0.0.1:9/v1', model: 'e', dims: 8, rerank: { endpoint: server.url, api: 'tei' } })!;
    enableProject(db, on.id, config.endpoint, { rerankEndpoint: server.url });
    const reranker = createConfiguredReranker({ db, config, ...(redact === null ? { redact: null } : {}) })!;
    return { db, on, off, config, reranker };
  }

  test('allows only a project switched on for the embedding endpoint; never a conversation without a project', () => {
    const { db, on, off, config, reranker } = setup();
    expect(reranker.allows({ kind: 'project', projectId: on.id, currentSessionId: null })).toEqual({ allowed: true });
    expect(reranker.allows({ kind: 'project', projectId: off.id, currentSessionId: null }).allowed).toBe(false);
    expect(reranker.allows({ kind: 'own', projectId: null, currentSessionId: 's', sessionIds: ['s'] }).allowed).toBe(false);
    // consent for another embedding endpoint does not count
    enableProject(db, off.id, 'http://elsewhere:1/v1');
    expect(reranker.allows({ kind: 'project', projectId: off.id, currentSessionId: null }).allowed).toBe(false);
    expect(config.rerank).toBeDefined();
  });

  // The consent records the reranker it was given for: one given without it (before the reranker
  // was configured) or for another rerank endpoint does not cover the configured one.
  test.each([
    { name: 'consent naming the configured reranker', consent: { endpoint: 'embed', rerank: 'rerank' }, allowed: true },
    { name: 'consent for embeddings only', consent: { endpoint: 'embed', rerank: null }, allowed: false },
    { name: 'consent for another reranker', consent: { endpoint: 'embed', rerank: 'http://127.0.0.1:9/other' }, allowed: false },
    { name: 'consent for another embedding endpoint naming the reranker', consent: { endpoint: 'http://elsewhere:1/v1', rerank: 'rerank' }, allowed: false },
  ])('$name → allowed: $allowed', ({ consent, allowed }) => {
    const { db, off, config, reranker } = setup();
    const endpoint = consent.endpoint === 'embed' ? config.endpoint : consent.endpoint;
    const rerankEndpoint = consent.rerank === 'rerank' ? server.url : consent.rerank;
    enableProject(db, off.id, endpoint, { rerankEndpoint });
    const answer = reranker.allows({ kind: 'project', projectId: off.id, currentSessionId: null });
    expect(answer.allowed).toBe(allowed);
    if (!answer.allowed && consent.endpoint === 'embed') expect(answer.reason).toContain(`without the reranker at ${server.url}`);
  });

  test('no reranker without a rerank section or with semantic switched off', () => {
    const db = tempDb();
    expect(createConfiguredReranker({ db, config: parseSemanticConfig({ enabled: true, provider: 'openai-compatible', endpoint: 'http://127.0.0.1:9/v1', model: 'e', dims: 8 }) })).toBeNull();
    expect(createConfiguredReranker({ db, config: parseSemanticConfig({ enabled: false, provider: 'openai-compatible', endpoint: 'http://127.0.0.1:9/v1', model: 'e', dims: 8, rerank: { endpoint: server.url, api: 'tei' } }) })).toBeNull();
  });

  test.each([{ redact: undefined }, { redact: null }])('fake secrets in the query and texts (redact: $redact) at the server', async ({ redact }) => {
    const { reranker } = setup(redact as null | undefined);
    const corpus = fakeSecretCorpus();
    const before = server.requests.length;
    await reranker.rerank(`what about ${corpus[0]!.secret}?`, corpus.map((c) => `${c.name}: ${c.text}`), { signal: new AbortController().signal });
    const req = server.requests[before]!;
    const arrived = [req.query, ...req.texts].join('\n');
    const leaks = corpus.filter((c) => arrived.includes(c.secret)).map((c) => c.name);
    if (redact === null) expect(leaks.length).toBeGreaterThan(0);
    else expect(leaks).toEqual([]);
  });

  test('the consent notice and the overview name the reranker', async () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const config = parseSemanticConfig({ enabled: true, provider: 'openai-compatible', endpoint: 'http://127.0.0.1:9/v1', model: 'e', dims: 8, rerank: { endpoint: server.url, model: 'bge-reranker-v2-m3' } })!;
    const index = sqliteSemanticIndex({ db, config, pollMs: 60_000 });
    try {
      const consent = await index.enable(p.id);
      expect(consent.notice).toContain(`reranker at ${server.url} (model bge-reranker-v2-m3)`);
      expect(consent.reranker).toEqual({ endpoint: server.url, model: 'bge-reranker-v2-m3' });
      // the consent row records the reranker, and status reports it
      expect((await index.consents()).find((c) => c.projectId === p.id)?.rerankEndpoint).toBe(server.url);
      expect((await index.status(p.id)).consent.rerankEndpoint).toBe(server.url);
      expect((await index.overview()).provider?.reranker).toEqual({ endpoint: server.url, model: 'bge-reranker-v2-m3' });
      expect(index.reranker).toEqual({ endpoint: server.url, model: 'bge-reranker-v2-m3' });
    } finally {
      await index.close();
    }
  });
});
