/**
 * Opening the team database (PostgreSQL) for the commands that serve it (`serve`, `mcp`). The
 * adapter, @recall/store-postgres, is loaded with import() only when a postgres storage is
 * configured: a stage-A install ships without it and says so instead of failing with a module
 * stack. The URL may hold a password: every message here names the database through
 * redactStorageUrl, and the driver's own message is scrubbed of the URL before it is shown.
 */
import { redactStorageUrl, type Storage } from '@recall/storage-ports';
import { GatewayError } from '@recall/gateway-rpc';
import type { CliContext } from './context.js';

/** The configured team database's URL with its password masked, or null on a SQLite profile. */
export function shownDatabase(ctx: CliContext): string | null {
  return ctx.config.storage.kind === 'postgres' ? redactStorageUrl(ctx.config.storage.url) : null;
}

/** The team-mode adapter module, or `storage_unsupported` when this installation does not include it. */
async function loadAdapter(command: string): Promise<typeof import('@recall/store-postgres')> {
  try {
    return await import('@recall/store-postgres');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new GatewayError(
      'storage_unsupported',
      `recall ${command} on a PostgreSQL team database needs the team-mode package @recall/store-postgres, which this installation does not include (it is not published yet): run it from a source checkout of Recall, see docs/team-mode.md.`,
      { data: { missing: '@recall/store-postgres' } },
    );
  }
}

/** `storage_unavailable` (retryable) for a failed open, the driver's message scrubbed of the URL and the password. */
function openFailure(url: string, error: unknown): GatewayError {
  const shown = redactStorageUrl(url);
  const password = safePassword(url);
  let reason = String((error as Error).message).split(url).join(shown);
  if (password) reason = reason.split(password).join('***');
  return new GatewayError('storage_unavailable', `Cannot open the PostgreSQL database ${shown}: ${reason}`, { data: { target: shown, retryable: true } });
}

/** The configured team database's URL (the caller has checked the storage kind). */
function postgresUrl(ctx: CliContext, caller: string): string {
  const storage = ctx.config.storage;
  if (storage.kind !== 'postgres') throw new Error(`${caller}: not a postgres storage`);
  return storage.url;
}

/**
 * Opens the configured PostgreSQL storage (pool + migrations under the advisory lock, so several
 * gateways may start at once). Throws `storage_unsupported` when the adapter is not installed and
 * `storage_unavailable` (retryable) when the database cannot be opened; neither message holds the password.
 */
export async function openTeamStorage(ctx: CliContext, command: string, options: { maxConnections?: number } = {}): Promise<Storage> {
  const url = postgresUrl(ctx, 'openTeamStorage');
  const adapter = await loadAdapter(command);
  try {
    return await adapter.openPostgresStorage({ kind: 'postgres', url, ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }) });
  } catch (error) {
    throw openFailure(url, error);
  }
}

/**
 * Opens the configured team database's pool (no migrations: open the storage first, which applies
 * them) for the PostgreSQL-only maintenance of `recall index hnsw`, with the adapter module that
 * holds that maintenance. The same errors as openTeamStorage; no message holds the password.
 */
export async function openTeamDatabase(ctx: CliContext, command: string): Promise<{ adapter: typeof import('@recall/store-postgres'); pool: import('@recall/store-postgres').RecallPostgres['pool']; close(): Promise<void> }> {
  const url = postgresUrl(ctx, 'openTeamDatabase');
  const adapter = await loadAdapter(command);
  try {
    const db = await adapter.openPostgres(url, { maxConnections: 2, migrate: false });
    return { adapter, pool: db.pool, close: () => db.close() };
  } catch (error) {
    throw openFailure(url, error);
  }
}

function safePassword(url: string): string {
  try {
    const password = new URL(url).password;
    return password ? decodeURIComponent(password) : '';
  } catch {
    return '';
  }
}
