/**
 * Wiring of the semantic index (@recall/semantic) into the gateway: validates the raw `semantic`
 * section of config.json, picks the API key the endpoint may receive (`resolveEmbeddingApiKey`:
 * RECALL_EMBEDDING_API_KEY, or OPENAI_API_KEY for OpenAI's own endpoint only — both read by
 * config.ts, never here), and builds the profile's `SemanticIndex` whose throttled progress
 * events become `index.changed` hub events. A `SemanticIndex` is always built, also when semantic
 * is not configured, so `index.*` methods answer uniformly (`disabled`, with the reason).
 */
import type { RecallDatabase } from '@recall/schema';
import { parseSemanticConfig, resolveEmbeddingApiKey, SemanticConfigError, SemanticError, SemanticIndex } from '@recall/semantic';
import { sqliteSemanticIndex } from '@recall/semantic/sqlite';
import type { GatewayLogger } from '@recall/gateway-rpc';
import { ConfigError, registerDomainErrorClass } from '@recall/gateway-rpc';
import type { EventHub } from '@recall/gateway-rpc';
import type { SemanticPlugin } from '@recall/gateway-rpc';
import type { RedactionPolicy } from '@recall/redaction';
import type { Storage } from '@recall/storage-ports';
import { createSearchComposition, createStorageSearchComposition, searchOptionsForIndex } from './search-wiring.js';

export { createSearchComposition, createStorageSearchComposition };

export interface SemanticSettingsInput {
  /** The raw `semantic` section of config.json (`loadConfig().semantic`). */
  config: Record<string, unknown> | null;
  /** `loadConfig().semanticKeys`. Secrets: never logged. */
  keys?: { embeddingApiKey: string | null; openaiApiKey: string | null; rerankApiKey?: string | null };
  /** How often an idle worker looks for writes made by other processes (default 5000 ms). */
  pollMs?: number;
  /** The process's redaction policy: every text embedded goes through its `embedding` surface (absent = the built-in rules). */
  redaction?: RedactionPolicy;
}

/** The index's options from the raw settings (validated here; a typo is a config error). */
function indexOptions(input: SemanticSettingsInput | null, deps: { logger: GatewayLogger; events: EventHub }) {
  let config;
  try {
    config = parseSemanticConfig(input?.config ?? null);
  } catch (error) {
    if (error instanceof SemanticConfigError) throw new ConfigError(error.message, { source: 'config.json', issues: error.details.issues });
    throw error;
  }
  const apiKey = config ? resolveEmbeddingApiKey(config, input?.keys ?? {}) : null;
  return {
    config,
    apiKey,
    logger: { warn: (message: string, data?: Record<string, unknown>) => deps.logger.warn(message, data) },
    onEvent: (event: { projectIds: string[] }) => deps.events.emit({ type: 'index.changed', projectIds: event.projectIds }),
    ...(input?.pollMs === undefined ? {} : { pollMs: input.pollMs }),
    ...(input?.redaction ? { redact: input.redaction.text('embedding') } : {}),
  };
}

export function createSemanticIndex(db: RecallDatabase, input: SemanticSettingsInput | null, deps: { logger: GatewayLogger; events: EventHub }): SemanticIndex {
  return sqliteSemanticIndex({ db, ...indexOptions(input, deps) });
}

/**
 * The index over a storage with semantic rows (a PostgreSQL team database): consent per project,
 * the embedding worker (leased claims, several gateways share the work) and status, as on SQLite.
 */
export async function createStorageSemanticIndex(storage: Storage, input: SemanticSettingsInput | null, deps: { logger: GatewayLogger; events: EventHub }): Promise<SemanticIndex> {
  if (!storage.semantic) throw new ConfigError('This storage carries no semantic index rows.', { source: 'storage' });
  return SemanticIndex.open({ storage: { projects: storage.projects, semantic: storage.semantic }, ...indexOptions(input, deps) });
}

/**
 * Stage B for `startGateway({ semantic })`: the profile's `SemanticIndex` built on the gateway's
 * database (index.changed events on its hub) and, while it is active, the hybrid search tool that
 * shares its provider. Semantic errors become domain errors of the wire (their messages are
 * redacted of keys).
 */
export function semanticPlugin(input: SemanticSettingsInput | null): SemanticPlugin {
  registerDomainErrorClass(SemanticError);
  return {
    async start({ db, storage, events, logger }) {
      const index = db !== null ? createSemanticIndex(db, input, { logger, events }) : await createStorageSemanticIndex(storage, input, { logger, events });
      if (!index.active) return { index, search: null };
      try {
        // The reranker's key and the redaction policy come with the settings (the provider is the index's own).
        const options = { ...searchOptionsForIndex(index), ...(input?.keys ? { semanticKeys: input.keys } : {}), ...(input?.redaction ? { redaction: input.redaction } : {}) };
        return { index, search: db !== null ? createSearchComposition(db, options) : createStorageSearchComposition(storage, options) };
      } catch (error) {
        void index.close();
        throw error;
      }
    },
  };
}
