/**
 * How the eval builds the session_search tool: through the gateway's own wiring
 * (search-wiring.ts), exactly as `recall search`, MCP and JSON-RPC do, so the eval measures the
 * shipped composition. Keyword-only until a semantic source is configured.
 */
import type { RecallDatabase } from '@recall/schema';
import type { SemanticIndex } from '@recall/semantic';
import type { SessionSearchExecutor } from '../context.js';
import { createDefaultSearchTool } from '../search-wiring.js';
import type { ToolFactory } from './eval.js';

export function keywordTools(): ToolFactory {
  return {
    describe: () => 'session_search from the gateway wiring (no semantic source configured)',
    create: async (db) => ({ tool: createDefaultSearchTool(db) }),
  };
}

/**
 * session_search with the semantic index attached, exactly as the gateway wires it
 * (`createDefaultSearchTool(db, index)`). Should that wiring not attach a semantic source, every
 * semantic/hybrid call falls back to keyword and the report flags those rows instead of presenting
 * them as semantic numbers.
 */
export function semanticSearchTool(db: RecallDatabase, index: SemanticIndex): SessionSearchExecutor {
  return createDefaultSearchTool(db, index);
}
