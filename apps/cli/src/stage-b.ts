/**
 * Stage B, loaded only when it is asked for. `@recall/semantic` is an optional dependency of the
 * CLI: a stage-A install (keyword recall only) has no copy of it, its embedding model or its native
 * vector scan. This module never imports it statically — it loads the CLI's wiring of stage B
 * (semantic-wiring.ts, search-wiring.ts, which do) with `await import()` only when config.json has a
 * `semantic` section. When that section is there but the package is not installed, the index
 * service and the search tool say so (`index.status`: unavailable, with how to install it;
 * `session_search`: semantic unavailable, keyword results) instead of pretending.
 */
import type { IndexService, SemanticPlugin } from '@recall/gateway-rpc';
import type { RecallDatabase } from '@recall/schema';
import type { RedactionPolicy } from '@recall/redaction';
import type { Storage } from '@recall/storage-ports';
import { createSessionSearchTool, type SessionSearchTool } from '@recall/search-tool';
import { notInstalledIndex, notInstalledSource, SEMANTIC_NOT_INSTALLED } from './stage-b-missing.js';

/** The raw `semantic` section of config.json and the keys its endpoint may receive (never logged). */
export interface StageBSettings {
  config: Record<string, unknown> | null;
  keys?: { embeddingApiKey: string | null; openaiApiKey: string | null; rerankApiKey?: string | null };
  /** How often an idle worker looks for writes made by other processes (default 5000 ms). */
  pollMs?: number;
  /** The process's redaction policy (its `embedding` surface); absent = the built-in rules. */
  redaction?: RedactionPolicy;
  /** A one-shot command (`recall search`): on a team database no matrix cache, every semantic search is the SQL exact scan. */
  oneShot?: boolean;
}

type Wiring = typeof import('./semantic-wiring.js');

let loaded: Promise<Wiring | null> | undefined;
let specifierForTests: string | undefined;

/** Tests only: load this module instead of the wiring (a path that does not exist = not installed). */
export function setStageBModuleForTests(specifier: string | undefined): void {
  specifierForTests = specifier;
  loaded = undefined;
}

/** `@recall/semantic` (or the test stand-in) could not be found — not some other module, which would be a bug. */
function isMissingModule(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  const message = String((error as { message?: unknown }).message ?? '');
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && (message.includes('@recall/semantic') || (specifierForTests !== undefined && message.includes(specifierForTests)));
}

/** The stage-B wiring, or null when `@recall/semantic` is not installed (loaded once). */
export function loadStageB(): Promise<Wiring | null> {
  loaded ??= (import(specifierForTests ?? './semantic-wiring.js') as Promise<Wiring>).then(
    (wiring) => wiring,
    (error: unknown) => {
      if (isMissingModule(error)) return null;
      throw error;
    },
  );
  return loaded;
}

/** For `startGateway({ semantic })`: null without a `semantic` section (keyword only, "not configured"). */
export async function semanticPluginFor(settings: StageBSettings): Promise<SemanticPlugin | null> {
  if (settings.config === null) return null;
  const wiring = await loadStageB();
  if (wiring) return wiring.semanticPlugin(settings);
  const index = notInstalledIndex(settings.config.enabled === true);
  return { start: () => ({ index, search: null }) };
}

/** The index service a one-shot command (`recall index …`) drives; null without a `semantic` section. */
export async function indexServiceFor(db: RecallDatabase, settings: StageBSettings, deps: Parameters<Wiring['createSemanticIndex']>[2]): Promise<IndexService | null> {
  if (settings.config === null) return null;
  const wiring = await loadStageB();
  return wiring ? wiring.createSemanticIndex(db, settings, deps) : notInstalledIndex(settings.config.enabled === true);
}

/** The index service of `recall index …` on a team database (the storage's semantic rows); null without a `semantic` section. */
export async function indexServiceForStorage(storage: Storage, settings: StageBSettings, deps: Parameters<Wiring['createSemanticIndex']>[2]): Promise<IndexService | null> {
  if (settings.config === null) return null;
  const wiring = await loadStageB();
  return wiring ? wiring.createStorageSemanticIndex(storage, settings, deps) : notInstalledIndex(settings.config.enabled === true);
}

/** A session_search tool and what closes it: hybrid when configured and installed, keyword only otherwise. */
export interface ComposedSearchTool {
  readonly tool: Pick<SessionSearchTool, 'execute'>;
  close(): Promise<void>;
}

/** The tool `recall search` and `recall mcp` run, composed like the gateway's. */
export async function searchToolFor(db: RecallDatabase, settings: StageBSettings): Promise<ComposedSearchTool> {
  if (settings.config !== null) {
    const wiring = await loadStageB();
    if (wiring) {
      const composition = wiring.createSearchComposition(db, { semantic: settings.config, ...(settings.keys ? { semanticKeys: settings.keys } : {}), ...(settings.redaction ? { redaction: settings.redaction } : {}) });
      return { tool: composition.tool, close: () => composition.close() };
    }
    if (settings.config.enabled === true) return { tool: createSessionSearchTool({ db, semantic: notInstalledSource() }), close: async () => {} };
  }
  return { tool: createSessionSearchTool({ db }), close: async () => {} };
}

export { SEMANTIC_NOT_INSTALLED };

/** The tool `recall search` and `recall mcp` run on a team database: hybrid over the storage ports when configured and installed, keyword only otherwise. */
export async function storageSearchToolFor(storage: Storage, settings: StageBSettings): Promise<ComposedSearchTool> {
  if (settings.config !== null) {
    const wiring = await loadStageB();
    if (wiring) {
      const composition = wiring.createStorageSearchComposition(storage, {
        semantic: settings.config,
        ...(settings.keys ? { semanticKeys: settings.keys } : {}),
        ...(settings.redaction ? { redaction: settings.redaction } : {}),
        ...(settings.oneShot ? { cache: null } : {}),
      });
      return { tool: composition.tool, close: () => composition.close() };
    }
    if (settings.config.enabled === true) return { tool: createSessionSearchTool({ storage, semantic: notInstalledSource() }), close: async () => {} };
  }
  return { tool: createSessionSearchTool({ storage }), close: async () => {} };
}
