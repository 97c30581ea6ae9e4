/**
 * The session_search tool as the CLI and the MCP server use it: built by the gateway's own wiring
 * (search-wiring.ts), so `recall search`, `recall mcp` and the JSON-RPC method always run the same
 * tool with the same semantic source. The wiring exposes only `execute`; the name, description
 * and JSON Schema that MCP advertises come from the tool object itself when it carries them, else
 * from @recall/search-tool's exported definitions (the same values).
 */
import type { RecallDatabase } from '@recall/schema';
import type { RecallConfig } from '../config.js';
import {
  createSessionSearchTool,
  SESSION_SEARCH_DESCRIPTION,
  SESSION_SEARCH_TOOL_NAME,
  sessionSearchJsonSchema,
  type SearchCallContext,
  type SessionSearchResult,
} from '@recall/search-tool';
import type { Storage } from '@recall/storage-ports';
import { searchToolFor, storageSearchToolFor } from '../stage-b.js';
import type { RedactionPolicy } from '@recall/redaction';

export interface CliSearchTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
  execute(args: unknown, context: SearchCallContext): Promise<SessionSearchResult>;
  /** Stops the embedding provider the composition started (the built-in model runs in a thread). */
  close(): Promise<void>;
}

/**
 * `config` carries the profile's `semantic` section and keys; without it the tool is keyword-only.
 * `redaction` applies to what the semantic source embeds (the query); results are not redacted here
 * (the MCP server redacts what it returns to a model; `recall search` prints to its own user).
 */
export async function loadSearchTool(db: RecallDatabase, config?: Pick<RecallConfig, 'semantic' | 'semanticKeys'>, redaction?: RedactionPolicy): Promise<CliSearchTool> {
  const composition = await searchToolFor(db, config ? { config: config.semantic, keys: config.semanticKeys, ...(redaction ? { redaction } : {}) } : { config: null });
  const tool = composition.tool;
  const meta = tool as unknown as Partial<Pick<CliSearchTool, 'name' | 'description' | 'parameters'>>;
  return {
    name: typeof meta.name === 'string' ? meta.name : SESSION_SEARCH_TOOL_NAME,
    description: typeof meta.description === 'string' ? meta.description : SESSION_SEARCH_DESCRIPTION,
    parameters: meta.parameters && typeof meta.parameters === 'object' ? meta.parameters : sessionSearchJsonSchema(),
    execute: async (args, context) => (await tool.execute(args as Record<string, unknown>, context)) as SessionSearchResult,
    close: () => composition.close(),
  };
}

/**
 * The session_search tool over the storage ports (a PostgreSQL team database): hybrid when the
 * profile's `semantic` section is configured and switched on (the semantic source reads the
 * storage's chunk rows), keyword-only otherwise. `oneShot` (recall search): no matrix cache, the
 * SQL exact scan answers (nothing loads in the background of a command about to exit). close()
 * stops a provider it started and the cache's background loads, never the storage (the caller owns it).
 */
export async function storageSearchTool(storage: Storage, config?: Pick<RecallConfig, 'semantic' | 'semanticKeys'>, redaction?: RedactionPolicy, oneShot = false): Promise<CliSearchTool> {
  const composition = config
    ? await storageSearchToolFor(storage, { config: config.semantic, keys: config.semanticKeys, ...(redaction ? { redaction } : {}), ...(oneShot ? { oneShot } : {}) })
    : { tool: createSessionSearchTool({ storage }), close: async () => {} };
  const tool = composition.tool;
  const meta = tool as unknown as Partial<Pick<CliSearchTool, 'name' | 'description' | 'parameters'>>;
  return {
    name: typeof meta.name === 'string' ? meta.name : SESSION_SEARCH_TOOL_NAME,
    description: typeof meta.description === 'string' ? meta.description : SESSION_SEARCH_DESCRIPTION,
    parameters: meta.parameters && typeof meta.parameters === 'object' ? meta.parameters : sessionSearchJsonSchema(),
    execute: async (args, context) => (await tool.execute(args as Record<string, unknown>, context)) as SessionSearchResult,
    close: () => composition.close(),
  };
}
