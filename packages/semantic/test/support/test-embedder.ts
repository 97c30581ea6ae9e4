/**
 * TEST-ONLY deterministic embedder (never shipped, never a quality figure): hashes words into
 * buckets, like @recall/config/scripted-embeddings' testVector, in process. Records every call, can
 * be held in flight (`hold()` → the next embed waits until `release()`), and can fail on demand.
 */
import { testVector } from '@recall/config/scripted-embeddings';
import { EmbeddingAbortedError, EmbeddingUnavailableError, l2normalize, type EmbeddingProvider, type ProviderInfo } from '../../src/index.js';

export interface TestEmbedder extends EmbeddingProvider {
  calls: string[][];
  texts(): string[];
  hold(): void;
  /** Resolves when a held call has started. */
  started(): Promise<void>;
  release(): void;
  failWith: Error | null;
}

export function testEmbedder(overrides: Partial<ProviderInfo> = {}): TestEmbedder {
  const info: ProviderInfo = {
    provider: 'openai-compatible',
    endpoint: 'http://127.0.0.1:1/v1',
    model: 'test-hash',
    dims: 16,
    maxInputTokens: 64,
    charsPerToken: 3,
    maxBatch: 64,
    remote: true,
    languages: 'model-dependent',
    ...overrides,
  };
  let held = false;
  let gate: { promise: Promise<void>; resolve: () => void } | null = null;
  let startedResolve: (() => void) | null = null;
  let startedPromise = new Promise<void>((r) => (startedResolve = r));
  const self: TestEmbedder = {
    info,
    calls: [],
    failWith: null,
    texts: () => self.calls.flat(),
    hold() {
      held = true;
      let resolve!: () => void;
      gate = { promise: new Promise<void>((r) => (resolve = r)), resolve };
      gate.resolve = resolve;
      startedPromise = new Promise<void>((r) => (startedResolve = r));
    },
    started: () => startedPromise,
    release() {
      held = false;
      gate?.resolve();
    },
    async embed(texts, options = {}) {
      if (self.failWith) throw self.failWith;
      self.calls.push([...texts]);
      if (held && gate) {
        startedResolve?.();
        const g = gate;
        await new Promise<void>((resolve, reject) => {
          void g.promise.then(resolve);
          options.signal?.addEventListener('abort', () => reject(new EmbeddingAbortedError()), { once: true });
        });
      }
      return texts.map((t) => l2normalize(Float32Array.from(testVector(t, info.dims))));
    },
    async close() {},
  };
  return self;
}

export const unavailable = () => new EmbeddingUnavailableError('scripted outage');
