/**
 * The storage a data command writes through (`recall import`, `recall sync`): the storage ports of
 * the profile's SQLite file, or — with `--database URL`, RECALL_DATABASE_URL or config.json
 * `storage` — of a PostgreSQL team database. The PostgreSQL adapter is loaded only then (it is not
 * published yet: an installation without it says so); the URL's password never appears in an error.
 */
import type { Project } from '@recall/rpc-contract';
import { redactStorageUrl, type Storage } from '@recall/storage-ports';
import { sqliteStorage } from '@recall/store';
import type { CliContext } from './context.js';
import { resolveProjectRefOnStorage } from './project-ref.js';
import { openTeamStorage } from './team-storage.js';

/** An open storage for one command run; close() ends what it opened (the SQLite file is closed by the runner). */
export interface CommandStorage {
  readonly storage: Storage;
  /** Where the data lives, for messages (a PostgreSQL URL with its password masked). */
  readonly where: string;
  close(): Promise<void>;
}

/** Opens the configured storage for `command`; throws storage_unsupported (adapter missing) or storage_unavailable (cannot connect). */
export async function openCommandStorage(ctx: CliContext, command: string): Promise<CommandStorage> {
  const config = ctx.config.storage;
  if (config.kind !== 'postgres') return { storage: sqliteStorage(ctx.db()), where: `profile "${ctx.config.profile}"`, close: async () => {} };
  const storage = await openTeamStorage(ctx, command, { maxConnections: 2 });
  return { storage, where: redactStorageUrl(config.url), close: () => storage.close() };
}

/** The project a `--project ID|SLUG|NAME` names, read through the storage ports (the rules of resolveProjectRef). */
export async function resolveProjectRefOn(storage: Storage, ref: string): Promise<Project> {
  return resolveProjectRefOnStorage(storage, ref);
}
