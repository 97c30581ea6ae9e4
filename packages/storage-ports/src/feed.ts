/**
 * ChangeFeed: writes made by OTHER processes (another gateway, an importer), so a host can tell
 * its clients to refresh. Announcements carry kinds (and ids where the backend knows them), never
 * message text. SQLite polls its change counter; PostgreSQL uses LISTEN/NOTIFY on a dedicated
 * session connection (not a pooled one: transaction poolers drop LISTEN).
 */

/** What changed: which kinds of rows, and the projects/sessions involved when known. */
export interface StorageChange {
  kinds: ReadonlyArray<'projects' | 'sessions' | 'messages' | 'index'>;
  projectIds?: readonly string[];
  sessionIds?: readonly string[];
}

/** A live subscription; close() stops it and frees its connection. */
export interface ChangeSubscription {
  close(): Promise<void>;
}

/** Subscriptions to outside writes. */
export interface ChangeFeed {
  /** Calls `listener` for every change seen after subscribe() resolves (its own process's writes may be included). */
  subscribe(listener: (change: StorageChange) => void): Promise<ChangeSubscription>;
}
