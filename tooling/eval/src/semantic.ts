/**
 * Semantic side of the eval: builds a REAL semantic index for the freshly imported eval database —
 * the built-in USE-lite model by default, or the OpenAI-compatible endpoint given with
 * `--endpoint URL --model M [--dims N]` (key from RECALL_EMBEDDING_API_KEY / OPENAI_API_KEY, read by
 * main.ts only) — through the same `SemanticIndex` the gateway uses (consent per project, planner,
 * chunker, worker), with the provider wrapped in the on-disk embedding cache (embedding-cache.ts,
 * outside the repository) so reruns skip the model. It records what the seed's B0 asks for:
 * provider, model, dims, corpus size (messages, chunks), batch size, embedding time of the cache
 * misses, index time, and the latency of one uncached query embedding (the eval's questions are
 * served from the cache, so the tool-call latencies in the tables exclude the model). No test
 * embedder is ever used here.
 */
import type { RecallDatabase } from '@recall/schema';
import { createProvider, parseSemanticConfig, resolveEmbeddingApiKey, type SemanticIndex, type SemanticConfig } from '@recall/semantic';
import { sqliteSemanticIndex } from '@recall/semantic/sqlite';
import { cachedProvider, DEFAULT_CACHE_DIR } from './embedding-cache.js';
import type { ToolFactory } from './eval.js';
import type { SearchExecutor } from './runner.js';

export interface SemanticSpec {
  /** OpenAI-compatible endpoint; absent = the built-in USE-lite model. */
  endpoint?: string;
  model?: string;
  dims?: number;
  batchSize?: number;
  cacheDir?: string;
  /** The semantic config's `fusion` overrides (e.g. a similarity floor or rank bonus being measured). */
  fusion?: Record<string, number>;
  /** The semantic config's `rerank` section (`--rerank-endpoint` …): rerank the fused top results. */
  rerank?: { endpoint: string; api: 'tei' | 'cohere'; model?: string; topN?: number };
}

export interface SemanticKeys {
  embeddingApiKey: string | null;
  openaiApiKey: string | null;
  /** RECALL_RERANK_API_KEY (sent only to --rerank-endpoint). */
  rerankApiKey?: string | null;
}

/** Builds session_search for `db` with the given semantic index (tools.ts: the product's composition). */
export type SemanticToolBuilder = (db: RecallDatabase, index: SemanticIndex, rerank?: { apiKey: string | null; onCall: () => void }) => SearchExecutor;

export function semanticConfigFor(spec: SemanticSpec): SemanticConfig {
  const extra = { ...(spec.batchSize ? { batchSize: spec.batchSize } : {}), ...(spec.fusion ? { fusion: spec.fusion } : {}), ...(spec.rerank ? { rerank: spec.rerank } : {}) };
  const raw = spec.endpoint ? { enabled: true, provider: 'openai-compatible', endpoint: spec.endpoint, model: spec.model, dims: spec.dims, ...extra } : { enabled: true, provider: 'use-lite', ...extra };
  return parseSemanticConfig(raw)!;
}

export function semanticTools(spec: SemanticSpec, keys: SemanticKeys, buildTool: SemanticToolBuilder): ToolFactory {
  const config = semanticConfigFor(spec);
  const describe = `session_search with a semantic index: ${config.provider} ${config.model} (${config.dims}-d, ${config.endpoint}), embeddings cached in ${spec.cacheDir ?? DEFAULT_CACHE_DIR} (query vectors too: the latencies below exclude the model's per-query cost, given separately as "single query embedding")${spec.fusion ? `; fusion overrides ${JSON.stringify(spec.fusion)}` : ''}${config.rerank ? `; reranked by ${config.rerank.model ?? 'the model'} at ${config.rerank.endpoint} (${config.rerank.api}, top ${config.rerank.topN}, position-aware blending)` : ''}`;
  return {
    describe: () => describe,
    async create(db, log) {
      const inner = createProvider(config, { apiKey: resolveEmbeddingApiKey(config, keys) });
      let lastLog = 0;
      const provider = cachedProvider(inner, {
        ...(spec.cacheDir ? { dir: spec.cacheDir } : {}),
        onProgress: (done, stats) => {
          const now = Date.now();
          if (now - lastLog < 5000) return;
          lastLog = now;
          log(`eval: embedding: ${done} new texts in ${(stats.embedMs / 1000).toFixed(0)} s (${(done / (stats.embedMs / 1000)).toFixed(1)}/s), ${stats.hits} from the cache`);
        },
      });
      const index = sqliteSemanticIndex({ db, config, provider });
      const facts: Record<string, unknown> = {
        provider: config.provider,
        model: config.model,
        dims: provider.info.dims,
        endpoint: config.endpoint,
        'batch size': provider.info.maxBatch,
        'max input tokens': provider.info.maxInputTokens,
      };
      const prepare = async (): Promise<void> => {
        const projects = db.raw.prepare('select id from projects').pluck().all() as string[];
        for (const p of projects) await index.enable(p);
        const t0 = performance.now();
        let lastReport = 0;
        const result = await index.run({
          onProgress: () => {
            const now = Date.now();
            if (now - lastReport < 10_000) return;
            lastReport = now;
            const ready = db.raw.prepare("select count(*) from semantic_chunks where status = 'ready'").pluck().get() as number;
            const all = db.raw.prepare('select count(*) from semantic_chunks').pluck().get() as number;
            log(`eval: indexing: ${ready}/${all} chunks ready after ${((performance.now() - t0) / 1000).toFixed(0)} s`);
          },
        });
        const indexMs = performance.now() - t0;
        const counts = db.raw.prepare("select count(*) as chunks, count(distinct message_id) as messages, sum(status = 'ready') as ready, sum(status = 'failed') as failed from semantic_chunks").get() as { chunks: number; messages: number; ready: number; failed: number };
        if (!result.completed) throw new Error(`eval: the semantic backfill stopped (${result.reason}) with ${counts.ready}/${counts.chunks} chunks ready`);
        Object.assign(facts, {
          'messages embedded': counts.messages,
          chunks: counts.chunks,
          'chunks failed': counts.failed,
          'texts embedded now (cache misses)': provider.stats.misses,
          'cache hits': provider.stats.hits,
          'embedding time of the misses': `${(provider.stats.embedMs / 1000).toFixed(1)} s${provider.stats.misses ? ` (${(provider.stats.misses / (provider.stats.embedMs / 1000)).toFixed(1)} texts/s)` : ''}`,
          'index wall time': `${(indexMs / 1000).toFixed(1)} s`,
        });
        // Query-side cost: the eval's questions are served from the cache, so time single uncached
        // embeddings (what one session_search pays for its query) on 20 stored texts made new.
        const probes = (db.raw.prepare('select content from messages order by id limit 20').pluck().all() as string[]).map((t, i) => `${t.slice(0, 200)} (probe ${i} ${Date.now()})`);
        const probeMs: number[] = [];
        for (const text of probes) {
          const t1 = performance.now();
          await inner.embed([text]);
          probeMs.push(performance.now() - t1);
        }
        probeMs.sort((a, b) => a - b);
        if (probeMs.length) facts['single query embedding p50 / p95 (uncached, 20 probes)'] = `${probeMs[Math.ceil(0.5 * probeMs.length) - 1]!.toFixed(0)} / ${probeMs[Math.ceil(0.95 * probeMs.length) - 1]!.toFixed(0)} ms`;
        log(`eval: semantic index ready: ${counts.ready} chunks of ${counts.messages} messages in ${(indexMs / 1000).toFixed(1)} s (${provider.stats.misses} embedded, ${provider.stats.hits} cached)`);
      };
      let rerankCalls = 0;
      if (config.rerank) {
        facts.reranker = `${config.rerank.api} ${config.rerank.model ?? ''} at ${config.rerank.endpoint}, top ${config.rerank.topN}`.replace('  ', ' ');
        Object.defineProperty(facts, 'rerank requests', { enumerable: true, get: () => rerankCalls });
      }
      const tool = config.rerank ? buildTool(db, index, { apiKey: keys.rerankApiKey ?? null, onCall: () => rerankCalls++ }) : buildTool(db, index);
      return { tool, prepare, close: () => index.close(), facts };
    },
  };
}
