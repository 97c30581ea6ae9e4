/**
 * Wiring of the `session_search` tool (from @recall/search-tool) into the gateway: builds the tool
 * for the profile's database, keyword-only until a semantic source exists (stage B — the tool then
 * reports `semantic_status: "disabled"` and hybrid degrades to keyword with the reason stated). Kept
 * apart from the server so the composition of tool + semantic source has one home, and so the
 * server can be started with a different executor (or none) by the CLI and tests.
 */
import type { RecallDatabase } from '@recall/schema';
import { createSessionSearchTool } from '@recall/search-tool';
import type { SemanticIndex } from '@recall/semantic';
import type { SessionSearchExecutor } from './context.js';

/** `semantic`: the profile's semantic index (from startGateway; null/absent = keyword-only). */
export function createDefaultSearchTool(db: RecallDatabase, _semantic: SemanticIndex | null = null): SessionSearchExecutor {
  // TODO(stage B): pass `semantic:` from @recall/semantic here once it implements SemanticSource.
  return createSessionSearchTool({ db });
}
