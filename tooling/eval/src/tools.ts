/**
 * How the eval builds the session_search tool: the same composition the product ships (the
 * gateway's search wiring), assembled here from the public APIs of @recall/search-tool and
 * @recall/semantic — `createSessionSearchTool({ db, semantic })` with the semantic source from
 * `createConfiguredSemanticSource` (null, hence keyword-only and `semantic_status: "disabled"`,
 * until a semantic index is attached).
 */
import type { RecallDatabase } from '@recall/schema';
import { createSessionSearchTool } from '@recall/search-tool';
import { MatrixCache, type SemanticIndex } from '@recall/semantic';
import { createConfiguredReranker, createConfiguredSemanticSource } from '@recall/semantic/sqlite';
import type { ToolFactory } from './eval.js';
import type { SearchExecutor } from './runner.js';

export function keywordTools(): ToolFactory {
  return {
    describe: () => 'session_search as the product composes it (no semantic source configured)',
    create: async (db) => ({ tool: createSessionSearchTool({ db, semantic: null }) }),
  };
}

/**
 * session_search with the semantic index attached, as the gateway wires it: the index's validated
 * config and running provider, its worker's health, a fresh matrix cache. Should this not attach a
 * semantic source, every semantic/hybrid call falls back to keyword and the report flags those rows
 * instead of presenting them as semantic numbers.
 */
export function semanticSearchTool(db: RecallDatabase, index: SemanticIndex, rerank?: { apiKey: string | null; onCall: () => void }): SearchExecutor {
  const semantic = createConfiguredSemanticSource({ db, config: index.config, provider: index.provider, cache: new MatrixCache(), health: () => index.worker?.health ?? null });
  // With a rerank section (--rerank-endpoint), the configured reranker as the CLI composes it (consent-gated, redacted).
  const configured = rerank ? createConfiguredReranker({ db, config: index.config, apiKey: rerank.apiKey }) : null;
  const reranker = configured
    ? {
        topN: configured.topN,
        allows: (scope: Parameters<typeof configured.allows>[0]) => configured.allows(scope),
        rerank: (query: string, texts: readonly string[], options: { signal: AbortSignal }) => {
          rerank!.onCall();
          return configured.rerank(query, texts, options);
        },
      }
    : null;
  return createSessionSearchTool({ db, semantic, reranker });
}
