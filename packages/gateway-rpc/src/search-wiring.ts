/**
 * Wiring of the `session_search` tool (from @recall/search-tool) into the gateway: builds the tool
 * for the profile's database, keyword-only until a semantic source exists (stage B). Kept apart from
 * the server so that the composition of tool + semantic source has one home, and so the server can
 * be started with a different executor (or none) in tests and in the CLI.
 */
import type { RecallDatabase } from '@recall/schema';
import type { GatewayLogger, SessionSearchExecutor } from './context.js';

interface SearchToolModule {
  createSessionSearchTool?: (options: { db: RecallDatabase }) => SessionSearchExecutor;
}

/**
 * Returns the tool, or null (with a warning) when @recall/search-tool does not provide it yet —
 * search.session_search then answers `search_unavailable` instead of the gateway failing to start.
 */
export async function createDefaultSearchTool(db: RecallDatabase, logger: GatewayLogger): Promise<SessionSearchExecutor | null> {
  // TODO(search-tool): replace with a static import once @recall/search-tool exports its entry point.
  const specifier = '@recall/search-tool';
  let mod: SearchToolModule;
  try {
    mod = (await import(specifier)) as SearchToolModule;
  } catch (error) {
    logger.warn('session_search tool unavailable: @recall/search-tool could not be loaded', { error: (error as Error).message });
    return null;
  }
  if (typeof mod.createSessionSearchTool !== 'function') {
    logger.warn('session_search tool unavailable: @recall/search-tool has no createSessionSearchTool export');
    return null;
  }
  return mod.createSessionSearchTool({ db });
}
