/**
 * The Storage bundle a host holds (one per profile or team database) and openStorage(), which
 * picks the adapter for a configuration. The adapters are passed in (`StorageOpeners`) rather than
 * imported, so this package stays a leaf: the CLI's composition root hands over the SQLite opener
 * and loads the PostgreSQL one with import() only when configured.
 */
import { StorageConfigError, StorageUnavailableError } from './errors.js';
import type { WriteBatches } from './batches.js';
import type { BulkImport, TransferSource } from './bulk.js';
import type { ChangeFeed } from './feed.js';
import type { KeywordIndex } from './keyword.js';
import type { MessageStore } from './messages.js';
import type { ProjectStore } from './projects.js';
import type { PurgeStore } from './purges.js';
import type { ChunkStore, ClaimQueue } from './semantic.js';
import type { SessionStore } from './sessions.js';
import type { StorageStats } from './stats.js';

/** The kinds of storage: one SQLite file per profile (default) or a shared PostgreSQL database (team mode). */
export type StorageKind = 'sqlite' | 'postgres';

/** Where the data lives. A postgres `url` may carry a password: never log it or put it in an error. */
export type StorageConfig =
  | { kind: 'sqlite'; path: string; readonly?: boolean }
  | { kind: 'postgres'; url: string; maxConnections?: number };

/** The semantic (stage B) part of a storage: chunk rows and claims. */
export interface SemanticStorage {
  readonly chunks: ChunkStore;
  readonly claims: ClaimQueue;
}

/** Everything a host reads and writes through. */
export interface Storage {
  readonly kind: StorageKind;
  readonly projects: ProjectStore;
  readonly sessions: SessionStore;
  readonly messages: MessageStore;
  readonly keyword: KeywordIndex;
  readonly changes: ChangeFeed;
  /** Present when the adapter carries the semantic index's rows (SQLite: when @recall/semantic attached them). */
  readonly semantic?: SemanticStorage;
  /** Reading every row with its ids for a transfer (both adapters). */
  readonly transfer?: TransferSource;
  /** Importing transferred rows unchanged (PostgreSQL). */
  readonly bulk?: BulkImport;
  /** Many writes in one transaction, a refused one undone alone (importers; both adapters). */
  readonly batches?: WriteBatches;
  /** Deleting for real: conversations, projects with their conversations, hidden messages (both adapters). */
  readonly purges?: PurgeStore;

  /** Counts and samples for status screens (both adapters). */
  readonly stats?: StorageStats;
  /** The profile this storage serves when it knows it (SQLite: the profile database's name); callers compare it with the profile they expect. */
  readonly profile?: string | null;
  /**
   * Runs `fn` with a storage whose reads are limited to `scope` by the backend itself, as defence in
   * depth under the callers' own scope filters. PostgreSQL: one read-only transaction as a role under
   * row-level security with the scope set locally, so even a query that forgot its filter returns
   * nothing of another project (one connection for the whole of `fn`; writes inside fail). SQLite
   * (one file per profile, one process): `fn` gets the same storage. Use the `withReadScope()`
   * function to call it on any storage.
   */
  withReadScope?<T>(scope: ReadScope, fn: (scoped: Storage) => Promise<T>): Promise<T>;
  /** Closes connections and subscriptions (idempotent). */
  close(): Promise<void>;
}

/**
 * What a scoped read may see: one project's sessions (and their messages, keyword rows and chunks),
 * or an explicit list of sessions (a project-less conversation's own compression history). An empty
 * list sees nothing.
 */
export type ReadScope = { kind: 'project'; projectId: string } | { kind: 'sessions'; sessionIds: readonly string[] };

/** Runs `fn` inside `storage.withReadScope(scope, …)` when the adapter has one, else on `storage` itself. */
export function withReadScope<T>(storage: Storage, scope: ReadScope, fn: (scoped: Storage) => Promise<T>): Promise<T> {
  return storage.withReadScope ? storage.withReadScope(scope, fn) : fn(storage);
}

/** Opens one kind of storage. */
export type StorageOpener<K extends StorageKind> = (config: Extract<StorageConfig, { kind: K }>) => Promise<Storage>;

/** The adapters available to openStorage(); a missing kind is reported as storage_unavailable. */
export interface StorageOpeners {
  sqlite?: StorageOpener<'sqlite'>;
  postgres?: StorageOpener<'postgres'>;
}

/** A postgres URL with its password replaced by `***`, for messages and logs. */
export function redactStorageUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(not a URL)';
  }
}

/**
 * Validates `config` and opens it with the matching opener. Throws StorageConfigError
 * (invalid_storage_config) and StorageUnavailableError (storage_unavailable); what the opener throws
 * otherwise (e.g. a migration error) passes through.
 */
export async function openStorage(config: StorageConfig, openers: StorageOpeners): Promise<Storage> {
  if (typeof config !== 'object' || config === null) throw new StorageConfigError('expected an object with a kind');
  if (config.kind === 'sqlite') {
    if (typeof config.path !== 'string' || config.path === '') throw new StorageConfigError('a sqlite storage needs a path');
    if (!openers.sqlite) throw new StorageUnavailableError('sqlite');
    return openers.sqlite(config);
  }
  if (config.kind === 'postgres') {
    if (typeof config.url !== 'string' || !/^postgres(ql)?:\/\//.test(config.url)) throw new StorageConfigError('a postgres storage needs a postgres:// or postgresql:// url');
    if (!openers.postgres) throw new StorageUnavailableError('postgres');
    return openers.postgres(config);
  }
  throw new StorageConfigError(`unknown kind ${JSON.stringify((config as { kind?: unknown }).kind)}`);
}
