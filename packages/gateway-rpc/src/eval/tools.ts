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
 * session_search with the semantic index attached, as the gateway wires it.
 * TODO(h-scan wiring): until the gateway's search wiring takes a semantic index, this is the
 * keyword-only tool; the eval then records `used_mode` keyword for semantic questions and its
 * semantic rows must not be reported (the status line in the output says so).
 */
export function semanticSearchTool(db: RecallDatabase, index: SemanticIndex): SessionSearchExecutor {
  void index;
  return createDefaultSearchTool(db);
}
