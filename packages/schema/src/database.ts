/**
 * The one place that opens SQLite. `openDatabase()` sets the pragmas every connection needs (WAL,
 * foreign keys, busy timeout), applies pending migrations and returns both the raw better-sqlite3
 * handle (for FTS and hand-tuned SQL) and a drizzle wrapper. Profiles live in separate files under
 * `<home>/profiles/<name>/recall.db`, so one profile can never read another's rows.
 * Conversation history is private: every directory it creates is 0700 and the database file is
 * created 0600 before SQLite opens it (SQLite gives `-wal`/`-shm` the main file's mode), whatever the
 * umask; an existing file or sidecar that others can read is tightened on open.
 */
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { readMigrationFiles, type MigrationMeta } from 'drizzle-orm/migrator';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { InvalidProfileNameError, MigrationError } from './errors.js';
import { EMBEDDED_MIGRATIONS } from './migrations.generated.js';
import * as tables from './tables.js';

/** The better-sqlite3 connection of a RecallDatabase (`db.raw`). */
export type RawDatabase = Database.Database;
/** The drizzle wrapper of a RecallDatabase (`db.orm`), typed with this package's tables. */
export type DrizzleDatabase = BetterSQLite3Database<typeof tables>;

/**
 * An open, migrated profile database as `openDatabase()` returns it. Every @recall/store function
 * takes one. Call `close()` when done (closing twice is harmless).
 */
export interface RecallDatabase {
  /** better-sqlite3 handle; prefer the store's functions over raw SQL outside packages/store. */
  readonly raw: RawDatabase;
  /** drizzle over the same connection. */
  readonly orm: DrizzleDatabase;
  /** The file path it was opened with (or `:memory:`). */
  readonly path: string;
  /** The profile this file belongs to (`null` for ad-hoc paths such as tests). */
  readonly profile: string | null;
  /** Closes the connection; later calls do nothing. */
  close(): void;
}

/** Options of `openDatabase()`; every field is optional. */
export interface OpenDatabaseOptions {
  /** Stop after this migration tag (e.g. "0000_legacy_sessions"); used by upgrade tests. */
  migrateUpTo?: string;
  /**
   * Read migrations from this drizzle-kit folder (`meta/_journal.json` + `*.sql`) instead of the
   * ones embedded in the build. The embedded set is the default, so a bundled or relocated package
   * needs no files at run time.
   */
  migrationsFolder?: string;
  /** Open read-only: no migrations, no WAL switch, the file must exist (default false). */
  readonly?: boolean;
  /** The profile name to record as `db.profile` (default null). */
  profile?: string | null;
  /** busy_timeout in ms; writers wait this long for the lock instead of failing with SQLITE_BUSY. */
  busyTimeoutMs?: number;
}

const PROFILE_RE = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Returns `name` when it is a valid profile name (1-64 letters, digits, `-` or `_`); throws
 * InvalidProfileNameError (code `invalid_profile`) otherwise.
 */
export function assertProfileName(name: string): string {
  if (!PROFILE_RE.test(name)) throw new InvalidProfileNameError(name);
  return name;
}

/**
 * The database file of a profile: `<home>/profiles/<profile>/recall.db`. Throws
 * InvalidProfileNameError (code `invalid_profile`) for an invalid profile name; creates nothing.
 */
export function profileDatabasePath(home: string, profile: string): string {
  return join(home, 'profiles', assertProfileName(profile), 'recall.db');
}

/** Mode (0o700) of every directory Recall creates: history is private to the user who recorded it. */
export const PRIVATE_DIR_MODE = 0o700;
/** Mode (0o600) of every file Recall writes (the database, its `-wal`/`-shm`, exports). */
export const PRIVATE_FILE_MODE = 0o600;

const SQLITE_SIDECARS = ['', '-wal', '-shm', '-journal'] as const;

/**
 * Creates the database's folder (and any missing parents: the home, `profiles/`) 0700 and the file
 * 0600 before SQLite sees it. mkdir's and open's modes are masked by the umask, which can only
 * remove bits, and chmod makes them exact; existing files that others can read are tightened
 * because they hold the same private history (the file may predate this rule).
 */
function preparePrivateFile(path: string, readonly: boolean): void {
  if (process.platform === 'win32') {
    if (!readonly) mkdirSync(dirname(path), { recursive: true });
    return;
  }
  if (!readonly) {
    const dir = dirname(path);
    const created = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    // `created` is the first directory made; every one below it is new too and got the same mode.
    if (created !== undefined) {
      for (let d = dir; d.length >= created.length; d = dirname(d)) {
        chmodSync(d, PRIVATE_DIR_MODE);
        if (d === created) break;
      }
    }
    if (!existsSync(path)) {
      closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
      chmodSync(path, PRIVATE_FILE_MODE);
    }
  }
  for (const suffix of SQLITE_SIDECARS) {
    const file = `${path}${suffix}`;
    try {
      if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, PRIVATE_FILE_MODE);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Missing sidecars are normal; a read-only opener may not own the file (EPERM): not its job.
      if (code !== 'ENOENT' && code !== 'EPERM') throw error;
    }
  }
}

/**
 * Opens (creating it and its folders, 0700/0600, when missing) the SQLite database at `path`, sets
 * WAL, `secure_delete` (writers), foreign keys and a busy timeout (10 s by default), and applies every pending migration
 * (embedded in the build, so no files are needed at run time). `:memory:` works for throwaway use.
 * Throws MigrationError (code `migration_failed`) when a migration fails or leaves foreign key
 * violations, and better-sqlite3's SqliteError when the file cannot be opened; the connection is
 * closed on failure.
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): RecallDatabase {
  if (path !== ':memory:' && path !== '') preparePrivateFile(path, options.readonly ?? false);
  const raw = new Database(path, { readonly: options.readonly ?? false });
  try {
    raw.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 10_000))}`);
    if (!options.readonly) {
      raw.pragma('journal_mode = WAL');
      raw.pragma('synchronous = NORMAL');
      // Deleted content is overwritten with zeros, not left in freed pages: a deleted conversation
      // (and the FTS5 segments a merge frees) must not stay readable in the file (docs/privacy.md).
      raw.pragma('secure_delete = ON');
    }
    raw.pragma('temp_store = MEMORY');
    // Memory-mapped reads: a profile with a million messages outgrows the default page cache, and
    // keyword search over its FTS index is read-heavy (p95 53 → 41 ms at 1M messages, docs/benchmarks.md).
    // This reserves address space, not memory.
    raw.pragma('mmap_size = 1073741824');
    const orm = drizzle(raw, { schema: tables });
    if (!options.readonly) runMigrations(raw, orm, options);
    raw.pragma('foreign_keys = ON');
    return {
      raw,
      orm,
      path,
      profile: options.profile ?? null,
      close: () => {
        if (raw.open) raw.close();
      },
    };
  } catch (error) {
    raw.close();
    throw error;
  }
}

/**
 * Migrations run with foreign keys OFF: drizzle-kit rebuilds tables for some ALTERs, and a DROP of a
 * parent table with FKs ON would cascade-delete children. PRAGMA foreign_keys is a no-op inside a
 * transaction, so it is switched here, and the result is verified with foreign_key_check afterwards.
 */
function runMigrations(raw: RawDatabase, orm: DrizzleDatabase, options: OpenDatabaseOptions): void {
  raw.pragma('foreign_keys = OFF');
  try {
    const migrations = selectMigrations(options);
    // What drizzle's migrate() does after reading the folder: apply the pending ones in one transaction.
    const internals = orm as unknown as { dialect: { migrate(m: MigrationMeta[], session: unknown, config: object): void }; session: unknown };
    internals.dialect.migrate(migrations, internals.session, {});
    const violations = raw.pragma('foreign_key_check') as unknown[];
    if (violations.length > 0) {
      throw new MigrationError(`Migration left ${violations.length} foreign key violation(s).`);
    }
  } catch (error) {
    if (error instanceof MigrationError) throw error;
    throw new MigrationError(`Could not migrate database: ${(error as Error).message}`, error);
  }
}

/** The embedded migrations (or a folder's), cut after `migrateUpTo` for upgrade tests. */
function selectMigrations(options: OpenDatabaseOptions): MigrationMeta[] {
  const all: { tag: string; meta: MigrationMeta }[] =
    options.migrationsFolder === undefined
      ? EMBEDDED_MIGRATIONS.map(({ tag, ...meta }) => ({ tag, meta: { ...meta, sql: [...meta.sql] } }))
      : folderMigrations(options.migrationsFolder);
  if (options.migrateUpTo === undefined) return all.map((m) => m.meta);
  const index = all.findIndex((m) => m.tag === options.migrateUpTo);
  if (index < 0) throw new MigrationError(`Unknown migration tag ${options.migrateUpTo}`);
  return all.slice(0, index + 1).map((m) => m.meta);
}

function folderMigrations(folder: string): { tag: string; meta: MigrationMeta }[] {
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] };
  const metas = readMigrationFiles({ migrationsFolder: folder });
  return metas.map((meta, i) => ({ tag: journal.entries[i]!.tag, meta }));
}
