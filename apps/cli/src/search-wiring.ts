/**
 * Wiring of the `session_search` tool (from @recall/search-tool) into the gateway: the ONE place
 * that composes the tool with the semantic source (from @recall/semantic) for a profile database.
 * `createSearchComposition()` takes the database and the profile's `semantic` config section (raw,
 * validated here by parseSemanticConfig) and returns the tool plus a `close()` that stops a
 * provider it created. It needs nothing from the server, so the gateway, the CLI (`recall search`,
 * `recall mcp`) and the gateway's stage-B plugin all run the same composition (`openSearchComposition()`
 * opens a read-only connection for it). Without a configured and switched-on
 * semantic section the tool is keyword-only and reports `semantic_status: "disabled"`.
 */
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { createSessionSearchTool, type SessionSearchTool } from '@recall/search-tool';
import {
  createProvider,
  MatrixCache,
  parseSemanticConfig,
  resolveEmbeddingApiKey,
  SemanticConfigError,
  storageReranker,
  storageSemanticSource,
  type SemanticIndex,
  type EmbeddingProvider,
  type ScopedSemanticSource,
  type SemanticConfig,
  type WorkerHealth,
} from '@recall/semantic';
import { createConfiguredReranker, createConfiguredSemanticSource } from '@recall/semantic/sqlite';
import { ConfigError } from '@recall/gateway-rpc';
import type { RedactionPolicy } from '@recall/redaction';
import type { Storage } from '@recall/storage-ports';

export interface SearchWiringOptions {
  /** The profile's `semantic` config section: raw (validated here) or already validated; absent/null = keyword-only. */
  semantic?: Record<string, unknown> | SemanticConfig | null;
  /** Keys from config.ts (the only reader of the environment); never logged. */
  semanticKeys?: { embeddingApiKey: string | null; openaiApiKey: string | null; rerankApiKey?: string | null };
  /** A running provider to share (e.g. the gateway's index); otherwise one is created here and closed by close(). */
  provider?: EmbeddingProvider | null;
  /** The in-process index worker's health, when one runs (provider down → `unavailable`). */
  health?: () => WorkerHealth | null;
  /**
   * Matrix cache to use (default: one per composition). On a team database (createStorageSearchComposition)
   * null = none: every search is the adapter's SQL exact scan (one-shot commands, which would exit
   * before a cache paid off).
   */
  cache?: MatrixCache | null;
  /** One deadline per call (default: the tool's 8 s). */
  deadlineMs?: number;
  /**
   * Redaction of what a provider created here embeds and of what the reranker receives (the
   * `embedding` surface; absent = the built-in rules). A shared provider brings its own.
   */
  redaction?: RedactionPolicy;
}

export interface SearchComposition {
  readonly tool: SessionSearchTool;
  readonly semantic: ScopedSemanticSource | null;
  readonly semanticConfig: SemanticConfig | null;
  /** Closes a provider this composition created (a shared one is left to its owner). Idempotent. */
  close(): Promise<void>;
}

function isValidated(section: Record<string, unknown> | SemanticConfig): section is SemanticConfig {
  return Array.isArray((section as SemanticConfig).indexedRoles) && typeof (section as SemanticConfig).dims === 'number' && typeof (section as SemanticConfig).endpoint === 'string';
}

/** The validated config and the provider of a composition (one created here is `owned`: close() stops it). */
function configAndProvider(options: SearchWiringOptions): { config: SemanticConfig | null; provider: EmbeddingProvider | null; owned: EmbeddingProvider | null } {
  const section = options.semantic ?? null;
  let config: SemanticConfig | null;
  try {
    config = section === null ? null : isValidated(section) ? section : parseSemanticConfig(section);
  } catch (error) {
    // Same mapping as semantic-wiring.ts: a typo in config.json is a config error, not keyword-only.
    if (error instanceof SemanticConfigError) throw new ConfigError(error.message, { source: 'config.json', issues: error.details.issues });
    throw error;
  }
  let owned: EmbeddingProvider | null = null;
  let provider: EmbeddingProvider | null = null;
  if (config?.enabled) {
    provider = options.provider ?? null;
    if (!provider) {
      const apiKey = resolveEmbeddingApiKey(config, options.semanticKeys ?? { embeddingApiKey: null, openaiApiKey: null });
      owned = provider = createProvider(config, { apiKey, ...(options.redaction ? { redact: options.redaction.text('embedding') } : {}) });
    }
  }
  return { config, provider, owned };
}

/**
 * The same composition over the storage ports (a PostgreSQL team database): hybrid search with the
 * semantic source over the storage's chunk rows (pgvector's exact scan of the allowed set), keyword
 * only without a configured, switched-on `semantic` section. The optional reranker (`semantic.rerank`)
 * reads each project's consent through the storage's ChunkStore (`consentRecord`), so it runs for a
 * project exactly as on a profile file: only while the consent names the configured reranker.
 */
export function createStorageSearchComposition(storage: Storage, options: SearchWiringOptions = {}): Omit<SearchComposition, 'semantic'> {
  const { config, provider, owned } = configAndProvider(options);
  const semantic = storageSemanticSource({
    storage,
    config,
    provider,
    ...(options.health ? { health: options.health } : {}),
    ...(options.cache !== undefined ? { cache: options.cache } : {}),
  });
  // Optional reranking, as createSearchComposition's: consent-gated per project (read through the ports), redacted, under the call's deadline.
  const reranker = storage.semantic
    ? storageReranker({
        semantic: storage.semantic,
        config,
        apiKey: options.semanticKeys?.rerankApiKey ?? null,
        ...(options.redaction ? { redact: options.redaction.text('embedding') } : {}),
      })
    : null;
  const tool = createSessionSearchTool({ storage, ...(semantic ? { semantic } : {}), reranker, ...(options.deadlineMs !== undefined ? { deadlineMs: options.deadlineMs } : {}) });
  let closed = false;
  return {
    tool,
    semanticConfig: config,
    async close() {
      if (closed) return;
      closed = true;
      await semantic?.close(); // background cache rebuilds end before the storage closes
      await owned?.close();
    },
  };
}

export function createSearchComposition(db: RecallDatabase, options: SearchWiringOptions = {}): SearchComposition {
  const { config, provider, owned } = configAndProvider(options);
  const semantic = createConfiguredSemanticSource({ db, config, provider, cache: options.cache ?? new MatrixCache(), ...(options.health ? { health: options.health } : {}) });
  // Optional reranking (semantic.rerank): consent-gated per project, redacted like embeddings, under the call's deadline.
  const reranker = createConfiguredReranker({
    db,
    config,
    apiKey: options.semanticKeys?.rerankApiKey ?? null,
    ...(options.redaction ? { redact: options.redaction.text('embedding') } : {}),
  });
  const tool = createSessionSearchTool({ db, semantic, reranker, ...(options.deadlineMs !== undefined ? { deadlineMs: options.deadlineMs } : {}) });
  let closed = false;
  return {
    tool,
    semantic,
    semanticConfig: config,
    async close() {
      if (closed) return;
      closed = true;
      await owned?.close();
    },
  };
}

/**
 * For a search worker thread: opens the profile database read-only and composes the tool on it.
 * The caller closes both (`close()` closes the provider, then the connection).
 */
export function openSearchComposition(dbPath: string, profile: string | null, options: SearchWiringOptions = {}): SearchComposition & { readonly db: RecallDatabase } {
  const db = openDatabase(dbPath, { readonly: true, profile });
  try {
    const composition = createSearchComposition(db, options);
    return {
      ...composition,
      db,
      async close() {
        await composition.close();
        db.close();
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The wiring options for a running index: its validated config, its provider (shared) and its worker's health. */
export function searchOptionsForIndex(index: SemanticIndex): SearchWiringOptions {
  return { semantic: index.config, provider: index.provider, health: () => index.worker?.health ?? null };
}
