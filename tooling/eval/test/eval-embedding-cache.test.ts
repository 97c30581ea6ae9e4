/**
 * The eval's embedding cache (src/embedding-cache.ts) over a real temp folder: misses go to
 * the provider in batches of its maxBatch, a second cache instance reads every vector back from the
 * file bit for bit, a truncated trailing record is ignored, and different fingerprints never share
 * a file. The embedder here is a deterministic TEST embedder (allowed in test code only); it checks
 * the cache's bookkeeping and is never a quality number.
 */
import { appendFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EmbeddingProvider, ProviderInfo } from '@recall/semantic';
import { afterEach, describe, expect, it } from 'vitest';
import { cachedProvider, fingerprintOf } from '../src/embedding-cache.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'recall-embcache-'));
  dirs.push(d);
  return d;
}

function testEmbedder(model = 'test-hash', dims = 8, maxBatch = 3): EmbeddingProvider & { calls: string[][] } {
  const calls: string[][] = [];
  const info: ProviderInfo = { provider: 'openai-compatible', endpoint: 'http://127.0.0.1:1/v1', model, dims, maxInputTokens: 512, charsPerToken: 4, maxBatch, remote: false, languages: 'model-dependent' };
  return {
    info,
    calls,
    async embed(texts) {
      calls.push([...texts]);
      return texts.map((t) => {
        const v = new Float32Array(dims);
        for (let i = 0; i < t.length; i++) v[i % dims] = v[i % dims]! + t.charCodeAt(i) / 1000;
        return v;
      });
    },
    async close() {},
  };
}

describe('eval embedding cache', () => {
  it('embeds only misses, in provider-sized batches, and reads them back bit for bit', async () => {
    const d = dir();
    const inner = testEmbedder();
    const cache = cachedProvider(inner, { dir: d });
    const texts = ['a', 'b', 'c', 'd', 'a', '鲈鱼'];
    const first = await cache.embed(texts);
    expect(inner.calls).toEqual([['a', 'b', 'c'], ['d', '鲈鱼']]);
    expect(cache.stats).toMatchObject({ hits: 1, misses: 5, batches: 2 }); // 'a' twice: embedded once
    expect([...first[4]!]).toEqual([...first[0]!]);

    const inner2 = testEmbedder();
    const again = cachedProvider(inner2, { dir: d });
    const second = await again.embed(texts);
    expect(inner2.calls).toEqual([]);
    expect(again.stats).toMatchObject({ hits: 6, misses: 0 });
    expect(second.map((v) => [...v])).toEqual(first.map((v) => [...v]));
  });

  it('ignores a truncated trailing record (a crash mid-append) and re-embeds that text', async () => {
    const d = dir();
    const cache = cachedProvider(testEmbedder(), { dir: d });
    await cache.embed(['x', 'y']);
    appendFileSync(cache.file, Buffer.alloc(17));
    const size = statSync(cache.file).size;
    const inner = testEmbedder();
    const reopened = cachedProvider(inner, { dir: d });
    await reopened.embed(['x', 'y', 'z']);
    expect(inner.calls).toEqual([['z']]);
    expect(statSync(cache.file).size).toBeGreaterThan(size);
  });

  it.each([
    ['another model', testEmbedder('other-model')],
    ['other dims', testEmbedder('test-hash', 16)],
  ])('keeps %s in its own file', async (_label, other) => {
    const d = dir();
    await cachedProvider(testEmbedder(), { dir: d }).embed(['same text']);
    const c = cachedProvider(other, { dir: d });
    await c.embed(['same text']);
    expect(c.stats.misses).toBe(1);
    expect(readdirSync(d)).toHaveLength(2);
    expect(fingerprintOf(other.info)).not.toBe(fingerprintOf(testEmbedder().info));
  });
});
