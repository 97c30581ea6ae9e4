/**
 * The keyword `session_search` tool a search worker thread builds (search-pool.ts →
 * search-worker.ts): the profile database opened read-only and `createSessionSearchTool()` on it.
 * Plain data in, so it crosses the thread boundary; semantic search runs in-process instead (it
 * shares the index's provider), so a worker never needs stage B.
 */
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { createSessionSearchTool } from '@recall/search-tool';
import type { SessionSearchExecutor } from './context.js';

/** Plain data (structured-cloneable): what a search worker thread receives to build its tool. */
export interface SearchToolInput {
  /** The profile's database file (`profileDatabasePath(home, profile)`). */
  dbPath: string;
  profile: string;
}

/** A worker's tool and the connection it owns. */
export interface OpenedSearchTool {
  readonly tool: SessionSearchExecutor;
  /** The worker's own read-only connection. */
  readonly db: RecallDatabase;
  /** Closes the tool's own connection. */
  close(): void | Promise<void>;
}

/** The worker threads' default factory: keyword search on a read-only connection. */
export function openSearchTool(input: SearchToolInput): OpenedSearchTool {
  const db = openDatabase(input.dbPath, { readonly: true, profile: input.profile });
  try {
    return { tool: createSessionSearchTool({ db }), db, close: () => db.close() };
  } catch (error) {
    db.close();
    throw error;
  }
}
