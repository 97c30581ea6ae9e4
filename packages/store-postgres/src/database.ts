/**
 * The one place that opens PostgreSQL. `openPostgres(url)` makes a `pg` Pool, applies the embedded
 * migrations (drizzle/ compiled into migrations.generated.ts, so no files are read at run time) and
 * returns the pool with a drizzle wrapper. Several servers may open the same database at once: the
 * migration runs on one connection holding a transaction-independent advisory lock, so only one of
 * them applies pending migrations and the others then find nothing to do.
 */
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { MigrationMeta } from 'drizzle-orm/migrator';
import pg from 'pg';
import { InvalidPostgresUrlError, PostgresMigrationError } from './errors.js';
import { EMBEDDED_MIGRATIONS } from './migrations.generated.js';
import * as tables from './tables.js';

/** drizzle over a pg Pool, typed with this package's tables. */
export type PostgresOrm = NodePgDatabase<typeof tables>;

/** An open team database. */
export interface RecallPostgres {
  readonly pool: pg.Pool;
  readonly orm: PostgresOrm;
  /** Ends the pool (waits for checked-out clients to be released). */
  close(): Promise<void>;
}

export interface OpenPostgresOptions {
  /** Apply pending migrations before returning (default true). */
  migrate?: boolean;
  /** Pool size (default 10). */
  maxConnections?: number;
}

/** Key of the advisory lock taken while migrating ("recall" as 32-bit ASCII). */
export const MIGRATION_LOCK_KEY = 0x7265_6361;

function checkUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidPostgresUrlError('not a URL');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new InvalidPostgresUrlError(`protocol ${parsed.protocol} (expected postgres: or postgresql:)`);
  }
}

export async function openPostgres(url: string, options: OpenPostgresOptions = {}): Promise<RecallPostgres> {
  checkUrl(url);
  const pool = new pg.Pool({ connectionString: url, max: options.maxConnections ?? 10 });
  // An idle client's connection error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  try {
    if (options.migrate ?? true) await migratePostgres(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  const orm = drizzle(pool, { schema: tables });
  return { pool, orm, close: () => pool.end() };
}

/** The embedded migrations, optionally only up to `tag` (for upgrade tests). */
function embedded(upTo?: string): MigrationMeta[] {
  const all = EMBEDDED_MIGRATIONS.map(({ tag, ...meta }) => ({ tag, meta: { ...meta, sql: [...meta.sql] } }));
  if (upTo === undefined) return all.map((m) => m.meta);
  const index = all.findIndex((m) => m.tag === upTo);
  if (index < 0) throw new PostgresMigrationError(`Unknown migration tag ${upTo}`);
  return all.slice(0, index + 1).map((m) => m.meta);
}

/**
 * Applies pending migrations (all in one transaction, as drizzle's migrator does) under the
 * advisory lock. Safe to call again: applied migrations are recorded in drizzle.__drizzle_migrations.
 */
export async function migratePostgres(pool: pg.Pool, options: { upTo?: string } = {}): Promise<void> {
  const migrations = embedded(options.upTo);
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const db = drizzle(client);
      const internals = db as unknown as { dialect: { migrate(m: MigrationMeta[], session: unknown, config: object): Promise<void> }; session: unknown };
      await internals.dialect.migrate(migrations, internals.session, {});
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } catch (error) {
    if (error instanceof PostgresMigrationError) throw error;
    throw new PostgresMigrationError(`Could not migrate the PostgreSQL database: ${(error as Error).message}`, error);
  } finally {
    client.release();
  }
}
