/**
 * The storage a data command writes through (`recall import`, `recall sync`): the storage ports of
 * the profile's SQLite file, or — with `--database URL`, RECALL_DATABASE_URL or config.json
 * `storage` — of a PostgreSQL team database. The PostgreSQL adapter is loaded only then (it is not
 * published yet: an installation without it says so); the URL's password never appears in an error.
 */
import type { Project } from '@recall/rpc-contract';
import { redactStorageUrl, type Storage } from '@recall/storage-ports';
import { sqliteStorage } from '@recall/store';
import { GatewayError } from '@recall/gateway-rpc';
import type { CliContext } from './context.js';
import { pickProjectRef } from './project-ref.js';

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
  const shown = redactStorageUrl(config.url);
  let adapter: typeof import('@recall/store-postgres');
  try {
    adapter = await import('@recall/store-postgres');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new GatewayError('storage_unsupported', `recall ${command} on a PostgreSQL database needs the team-mode package @recall/store-postgres, which this installation does not include (it is not published yet): run it from a source checkout of Recall, see docs/team-mode.md.`, {
      data: { missing: '@recall/store-postgres', command },
    });
  }
  let storage: Storage;
  try {
    storage = await adapter.openPostgresStorage({ kind: 'postgres', url: config.url, maxConnections: 2 });
  } catch (error) {
    throw new GatewayError('storage_unavailable', `Cannot open the PostgreSQL database ${shown}: ${String((error as Error).message).split(config.url).join(shown)}`, { data: { target: shown } });
  }
  return { storage, where: shown, close: () => storage.close() };
}

/** The project a `--project ID|SLUG|NAME` names, read through the storage ports (the rules of resolveProjectRef). */
export async function resolveProjectRefOn(storage: Storage, ref: string): Promise<Project> {
  return pickProjectRef(ref, await storage.projects.find(ref), async () => storage.projects.list({ includeArchived: true }));
}
