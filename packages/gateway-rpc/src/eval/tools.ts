/**
 * How the eval builds the session_search tool: through the gateway's own wiring
 * (search-wiring.ts), exactly as `recall search`, MCP and JSON-RPC do, so the eval measures the
 * shipped composition. Keyword-only until a semantic source is configured.
 */
import { createDefaultSearchTool } from '../search-wiring.js';
import type { ToolFactory } from './eval.js';

export function keywordTools(): ToolFactory {
  return {
    describe: () => 'session_search from the gateway wiring (no semantic source configured)',
    create: async (db) => ({ tool: createDefaultSearchTool(db) }),
  };
}
