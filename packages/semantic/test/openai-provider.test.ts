/**
 * The OpenAI-compatible provider against a real loopback /v1/embeddings server through the real
 * `openai` client: float encoding, dimensions only when configured, batching and splitting, input
 * too large, 429/5xx backoff, timeouts, wrong dimensions, and the key never leaking.
 */
import { startScriptedEmbeddings, type ScriptedEmbeddings } from '@recall/config/scripted-embeddings';
import { afterEach, describe, expect, test } from 'vitest';
import { createOpenAICompatibleProvider, type OpenAICompatibleProviderOptions } from '../src/index.js';
import { cosine } from '../src/provider.js';

const SECRET = 'sk-test-SECRET-0123456789abcdef';
let server: ScriptedEmbeddings | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

function provider(s: ScriptedEmbeddings, overrides: Partial<OpenAICompatibleProviderOptions> = {}) {
  return createOpenAICompatibleProvider({
    endpoint: s.url,
    model: 'test-embed',
    dims: 8,
    sendDimensions: false,
    batchSize: 4,
    timeoutMs: 2_000,
    maxRetries: 2,
    maxInputTokens: 512,
    charsPerToken: 3,
    apiKey: SECRET,
    backoffBaseMs: 5,
    ...overrides,
  });
}

const texts = (n: number) => Array.from({ length: n }, (_, i) => `text number ${i}`);

describe('request shape', () => {
  test.each([
    { sendDimensions: false, expectDimensions: undefined },
    { sendDimensions: true, expectDimensions: 8 },
  ])('encoding_format float always; dimensions only when configured ($sendDimensions)', async ({ sendDimensions, expectDimensions }) => {
    server = await startScriptedEmbeddings({ dims: 8 });
    const p = provider(server, { sendDimensions });
    const out = await p.embed(['hello world']);
    expect(out).toHaveLength(1);
    const body = server.requests[0]!.body;
    expect(body.encoding_format).toBe('float');
    expect(body.model).toBe('test-embed');
    expect(body.dimensions).toBe(expectDimensions);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
  });

  test('vectors are L2-normalised even when the server does not normalise', async () => {
    server = await startScriptedEmbeddings({ dims: 8, unnormalised: true });
    const [v] = await provider(server).embed(['alpha beta']);
    expect(v).toBeInstanceOf(Float32Array);
    expect(cosine(v!, v!)).toBeCloseTo(1, 5);
  });

  test.each([
    { n: 1, batchSize: 4, requests: 1 },
    { n: 4, batchSize: 4, requests: 1 },
    { n: 9, batchSize: 4, requests: 3 },
    { n: 10, batchSize: 1, requests: 10 },
  ])('$n inputs with batchSize $batchSize → $requests request(s), order kept', async ({ n, batchSize, requests }) => {
    server = await startScriptedEmbeddings({ dims: 8 });
    const p = provider(server, { batchSize });
    const input = texts(n);
    const out = await p.embed(input);
    expect(server.requests).toHaveLength(requests);
    expect(server.requests.flatMap((r) => r.inputs)).toEqual(input);
    const single = await p.embed([input[n - 1]!]);
    expect(cosine(out[n - 1]!, single[0]!)).toBeCloseTo(1, 5);
  });
});

describe('limits and failures', () => {
  test('413 from a server with a smaller batch limit splits the batch and retries', async () => {
    server = await startScriptedEmbeddings({ dims: 8, maxBatch: 2 });
    const out = await provider(server, { batchSize: 8 }).embed(texts(7));
    expect(out).toHaveLength(7);
    expect(server.requests.filter((r) => r.status === 413).length).toBeGreaterThan(0);
    expect([...server.embedded.values()].every((c) => c === 1)).toBe(true);
    expect(server.embedded.size).toBe(7);
  });

  test.each([400, 500])('HTTP %i "input too large" splits the batch; one oversized input fails alone with a typed error', async (status) => {
    server = await startScriptedEmbeddings({ dims: 8 });
    server.push((r) => (r.inputs.length > 1 ? { status, message: 'input is too large to process' } : null));
    const out = await provider(server).embed(['a b', 'c d']);
    expect(out).toHaveLength(2);
    server.push({ status, message: 'input is too large to process' });
    await expect(provider(server).embed(['only one'])).rejects.toMatchObject({ code: 'embedding_input_too_large' });
  });

  test.each([
    { steps: [{ status: 429 }], ok: true },
    { steps: [{ status: 503 }, { status: 500, message: 'boom' }], ok: true },
    { steps: [{ status: 502 }, { status: 502 }, { status: 502 }], ok: false },
  ])('429/5xx back off and retry a bounded number of times ($steps.length failures)', async ({ steps, ok }) => {
    server = await startScriptedEmbeddings({ dims: 8 });
    server.push(...steps);
    const p = provider(server, { maxRetries: 2 });
    if (ok) {
      await expect(p.embed(['x'])).resolves.toHaveLength(1);
      expect(server.requests).toHaveLength(steps.length + 1);
    } else {
      await expect(p.embed(['x'])).rejects.toMatchObject({ code: 'embedding_unavailable' });
      expect(server.requests).toHaveLength(3);
    }
  });

  test('a hanging server times out, retries, then reports unavailable', async () => {
    server = await startScriptedEmbeddings({ dims: 8 });
    server.push({ hang: true }, { hang: true });
    const p = provider(server, { timeoutMs: 1_000, maxRetries: 1 });
    await expect(p.embed(['x'])).rejects.toMatchObject({ code: 'embedding_unavailable' });
    expect(server.requests).toHaveLength(2);
  });

  test('an abort signal stops a hanging request with embedding_aborted', async () => {
    server = await startScriptedEmbeddings({ dims: 8 });
    server.push({ hang: true });
    const controller = new AbortController();
    const pending = provider(server, { timeoutMs: 30_000 }).embed(['x'], { signal: controller.signal });
    await server.waitForRequests(1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'embedding_aborted' });
  });

  test.each([{ dims: 4 }, { dims: 16 }])('vectors of $dims dimensions (configured 8) are refused with a typed error', async ({ dims }) => {
    server = await startScriptedEmbeddings({ dims: 8 });
    server.push({ dims });
    await expect(provider(server).embed(['x'])).rejects.toMatchObject({ code: 'embedding_dimension_mismatch', details: { expected: 8, actual: dims } });
  });

  test('base64 answers (a server ignoring encoding_format) are refused, not decoded into garbage', async () => {
    server = await startScriptedEmbeddings({ dims: 8 });
    server.push({ base64: true });
    await expect(provider(server).embed(['x'])).rejects.toMatchObject({ code: 'embedding_request_failed' });
  });

  test.each([401, 404])('HTTP %i is not retried and is reported as a refused request', async (status) => {
    server = await startScriptedEmbeddings({ dims: 8 });
    server.push({ status, message: 'nope' });
    await expect(provider(server).embed(['x'])).rejects.toMatchObject({ code: 'embedding_request_failed', details: { status } });
    expect(server.requests).toHaveLength(1);
  });

  test('a closed port is reported as unavailable', async () => {
    server = await startScriptedEmbeddings({ dims: 8 });
    const url = server.url;
    await server.close();
    server = null;
    const p = createOpenAICompatibleProvider({ endpoint: url, model: 'm', dims: 8, sendDimensions: false, batchSize: 4, timeoutMs: 1_000, maxRetries: 1, maxInputTokens: 512, charsPerToken: 3, apiKey: null, backoffBaseMs: 5 });
    await expect(p.embed(['x'])).rejects.toMatchObject({ code: 'embedding_unavailable' });
  });
});

describe('the API key never leaks', () => {
  test.each([
    { status: 401, message: `Incorrect API key provided: ${SECRET}` },
    { status: 500, message: `internal error for key ${SECRET}` },
    { status: 400, message: `bad request (key=${SECRET}) input too large` },
  ])('not in errors or logs when the server echoes it (HTTP $status)', async ({ status, message }) => {
    server = await startScriptedEmbeddings({ dims: 8 });
    for (let i = 0; i < 5; i++) server.push({ status, message });
    const logs: string[] = [];
    const p = provider(server, { maxRetries: 1, logger: { warn: (m, d) => logs.push(m + JSON.stringify(d)) } });
    const error = await p.embed(['x']).then(
      () => null,
      (e: unknown) => e as Error & { details: unknown },
    );
    expect(error).not.toBeNull();
    const visible = [error!.message, JSON.stringify(error!.details), String(error!.stack), ...logs, JSON.stringify(p.info)].join('\n');
    expect(visible).not.toContain(SECRET);
    expect(visible).not.toContain('0123456789abcdef');
  });
});
