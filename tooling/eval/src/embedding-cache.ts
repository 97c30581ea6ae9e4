/**
 * A persistent embedding cache for eval runs: wraps a real EmbeddingProvider so that re-running the
 * eval does not re-embed the same corpus (all of LoCoMo takes minutes on one core with USE-lite).
 * Lives OUTSIDE the repository (default `<os.tmpdir()>/recall-eval-embeddings`), one append-only
 * file per provider fingerprint (provider, endpoint, model, dims — never a key), each record the
 * sha256 of the text followed by its Float32 vector. Only misses reach the provider, in batches of
 * its `maxBatch`; `stats` counts hits, misses and the time spent embedding misses (the "embedding
 * time" the B0 record asks for is measured on a cold cache), and `onProgress` reports misses as
 * they are embedded. A truncated trailing record (a crash mid-append) is ignored on load.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EmbedOptions, EmbeddingProvider, ProviderInfo } from '@recall/semantic';

export const DEFAULT_CACHE_DIR = join(tmpdir(), 'recall-eval-embeddings');

export interface EmbeddingCacheStats {
  hits: number;
  misses: number;
  /** Wall time spent in the wrapped provider for misses. */
  embedMs: number;
  batches: number;
}

export interface CachedProvider extends EmbeddingProvider {
  readonly stats: EmbeddingCacheStats;
  readonly file: string;
}

export function fingerprintOf(info: ProviderInfo): string {
  const canonical = JSON.stringify({ provider: info.provider, endpoint: info.endpoint, model: info.model, dims: info.dims });
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}

function textHash(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export function cachedProvider(inner: EmbeddingProvider, options: { dir?: string; onProgress?: (done: number, stats: EmbeddingCacheStats) => void } = {}): CachedProvider {
  const dir = options.dir ?? DEFAULT_CACHE_DIR;
  mkdirSync(dir, { recursive: true });
  const dims = inner.info.dims;
  const file = join(dir, `${fingerprintOf(inner.info)}-${dims}.bin`);
  const recordBytes = 32 + dims * 4;
  const cache = new Map<string, Float32Array>();
  if (existsSync(file)) {
    const buf = readFileSync(file);
    for (let off = 0; off + recordBytes <= buf.length; off += recordBytes) {
      const key = buf.subarray(off, off + 32).toString('hex');
      const vec = new Float32Array(dims);
      for (let i = 0; i < dims; i++) vec[i] = buf.readFloatLE(off + 32 + i * 4);
      cache.set(key, vec);
    }
  }
  const stats: EmbeddingCacheStats = { hits: 0, misses: 0, embedMs: 0, batches: 0 };
  return {
    info: inner.info,
    stats,
    file,
    async embed(texts: readonly string[], embedOptions?: EmbedOptions): Promise<Float32Array[]> {
      const keys = texts.map(textHash);
      const out: (Float32Array | undefined)[] = keys.map((k) => cache.get(k.toString('hex')));
      // Unique missing texts (a text repeated in one call is embedded once), each with its positions.
      const pending = new Map<string, number[]>();
      out.forEach((v, i) => {
        if (v !== undefined) return;
        const k = keys[i]!.toString('hex');
        pending.set(k, [...(pending.get(k) ?? []), i]);
      });
      const missing = [...pending.values()];
      stats.hits += texts.length - missing.length;
      const batch = Math.max(1, inner.info.maxBatch);
      for (let s = 0; s < missing.length; s += batch) {
        const group = missing.slice(s, s + batch);
        const t0 = performance.now();
        const vectors = await inner.embed(group.map((idx) => texts[idx[0]!]!), embedOptions);
        stats.embedMs += performance.now() - t0;
        stats.batches++;
        stats.misses += group.length;
        const chunks: Buffer[] = [];
        group.forEach((idx, j) => {
          const v = vectors[j]!;
          for (const i of idx) out[i] = v;
          const key = keys[idx[0]!]!;
          cache.set(key.toString('hex'), v);
          const rec = Buffer.alloc(recordBytes);
          key.copy(rec, 0);
          for (let d = 0; d < dims; d++) rec.writeFloatLE(v[d]!, 32 + d * 4);
          chunks.push(rec);
        });
        appendFileSync(file, Buffer.concat(chunks));
        options.onProgress?.(stats.misses, stats);
      }
      return out.map((v) => Float32Array.from(v!));
    },
    close: () => inner.close(),
  };
}
