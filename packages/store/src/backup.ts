/**
 * Backup and restore of a profile database file while a gateway may keep serving it.
 *
 * A backup is one self-contained SQLite file (rollback journal, no `-wal`/`-shm`), written to a
 * temporary name beside the target and renamed when complete, mode 0600:
 * - full: `VACUUM INTO` — one read transaction, so the copy is a consistent snapshot however the
 *   gateway writes meanwhile (WAL readers never block writers), compact, and free pages (which may
 *   hold deleted text) are not copied. The live `-wal` file is never copied.
 * - without the derived index: a fresh database (this build's migrations) into which one read
 *   transaction over the attached source copies every table except the derived rows — the keyword
 *   index (FTS5 `messages_fts` and its shadow tables; maintained by the store's write path, so it
 *   can be rebuilt from `messages`) and the semantic chunks and vectors. Its keyword index version
 *   is left unset (the store rebuilds it on open) and every switched-on project is marked for
 *   re-planning, so a restore refills both.
 *
 * A restore checks the file first (`inspectDatabaseFile`: SQLite, Recall's tables, `PRAGMA
 * integrity_check`, migrations this build knows), refuses to replace a profile with newer
 * activity unless forced, migrates and re-indexes a copy beside the profile, and renames it over
 * the profile's file. Whether a gateway is serving the profile is the caller's check (the CLI's).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, copyFileSync, existsSync, fsyncSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { migrationStatus, openDatabase, PRIVATE_FILE_MODE, type RawDatabase, type RecallDatabase } from '@recall/schema';
import { BackupInvalidError, BackupSchemaUnknownError, BackupTargetExistsError, RestoreTargetNewerError } from './errors.js';
import { FTS_TABLE, KEYWORD_INDEX_VERSION, rebuildKeywordIndex } from './fts-index.js';

/** Options of `backupDatabase`. */
export interface BackupOptions {
  /** Leave out the derived rows (keyword index, semantic chunks and vectors); a restore rebuilds them. */
  withoutIndex?: boolean;
}

/** What `backupDatabase` wrote. */
export interface BackupResult {
  path: string;
  bytes: number;
  withoutIndex: boolean;
  /** Wall time in milliseconds. */
  ms: number;
}

/** What `inspectDatabaseFile` found in a backup (or a profile's) file. */
export interface DatabaseFileSummary {
  path: string;
  bytes: number;
  projects: number;
  sessions: number;
  messages: number;
  /** Semantic chunk rows (0 in a backup without the index). */
  semanticChunks: number;
  /** True when the keyword index is complete (built by this version's tokenizer). */
  keywordIndex: boolean;
  /** The newest change it records (message, session or project time, ms since the epoch; 0 = empty). */
  newestActivity: number;
  /** Migrations the file has not applied yet (they run on restore). */
  pendingMigrations: number;
}

/** Derived tables a backup without index leaves out (FTS5's shadow tables go with their table). */
const DERIVED_TABLES = new Set(['semantic_chunks', 'keyword_index_state', 'keyword_scope_totals']);
/** Copied first, in this order, for their foreign keys; every other table follows by name. */
const FIRST_TABLES = ['projects', 'project_folders', 'sessions', 'messages'];

function tempBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a consistent backup of `db` to `toPath` (a new file; throws BackupTargetExistsError when it
 * exists) while other connections keep reading and writing. See the module header for the two
 * kinds. Returns the file's size and the time taken.
 */
export function backupDatabase(db: RecallDatabase, toPath: string, options: BackupOptions = {}): BackupResult {
  const started = performance.now();
  if (existsSync(toPath)) throw new BackupTargetExistsError(toPath);
  const tmp = tempBeside(toPath);
  try {
    if (options.withoutIndex === true) copyWithoutIndex(db, tmp);
    else db.raw.prepare('VACUUM INTO ?').run(tmp);
    if (process.platform !== 'win32') chmodSync(tmp, PRIVATE_FILE_MODE);
    syncFile(tmp);
    if (existsSync(toPath)) throw new BackupTargetExistsError(toPath);
    renameSync(tmp, toPath);
  } finally {
    for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${tmp}${suffix}`, { force: true });
  }
  return { path: toPath, bytes: statSync(toPath).size, withoutIndex: options.withoutIndex === true, ms: performance.now() - started };
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function copyWithoutIndex(db: RecallDatabase, tmp: string): void {
  if (db.path === ':memory:' || db.path === '') throw new BackupInvalidError(db.path, 'not_sqlite');
  const copy = openDatabase(tmp);
  try {
    const raw = copy.raw;
    raw.pragma('foreign_keys = OFF');
    raw.prepare('attach database ? as src').run(db.path);
    const sourceTables = raw.prepare("select name from src.sqlite_master where type = 'table' and name not like 'sqlite_%'").pluck().all() as string[];
    const isFts = (name: string): boolean => name === FTS_TABLE || name.startsWith(`${FTS_TABLE}_`);
    const tables = sourceTables.filter((t) => !isFts(t) && !DERIVED_TABLES.has(t) && t !== '__drizzle_migrations');
    const ordered = [...FIRST_TABLES.filter((t) => tables.includes(t)), ...tables.filter((t) => !FIRST_TABLES.includes(t)).sort()];
    // One transaction: the reads of the attached source all see one snapshot.
    raw.transaction(() => {
      for (const table of ordered) {
        const columns = (raw.prepare(`select name from pragma_table_info(?, 'main')`).pluck().all(table) as string[]).filter((c) =>
          (raw.prepare(`select name from pragma_table_info(?, 'src')`).pluck().all(table) as string[]).includes(c),
        );
        if (columns.length === 0) continue;
        const list = columns.map(quoteIdent).join(', ');
        raw.exec(`insert or replace into main.${quoteIdent(table)} (${list}) select ${list} from src.${quoteIdent(table)}`);
      }
      // The derived rows are rebuilt after a restore: the keyword index on open, the semantic index by re-planning.
      raw.exec("delete from main.keyword_index_state; delete from main.keyword_scope_dirty");
      raw.exec('update main.semantic_projects set planned_fingerprint_id = null');
    }).immediate();
    raw.exec('detach database src');
    raw.pragma('foreign_keys = ON');
    raw.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
}

function countOf(raw: RawDatabase, table: string): number {
  const exists = raw.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(table) !== undefined;
  return exists ? (raw.prepare(`select count(*) from ${quoteIdent(table)}`).pluck().get() as number) : 0;
}

function looksLikeSqlite(path: string): boolean {
  const header = Buffer.alloc(16);
  const fd = openSync(path, 'r');
  try {
    return readSync(fd, header, 0, 16, 0) === 16 && header.toString('latin1') === 'SQLite format 3\u0000';
  } finally {
    closeSync(fd);
  }
}

/**
 * Checks a database file without changing it — SQLite, Recall's tables, `PRAGMA integrity_check`,
 * migrations this build knows — and summarises it. Throws BackupInvalidError (code `backup_invalid`)
 * or BackupSchemaUnknownError (code `backup_schema_unknown`).
 */
export function inspectDatabaseFile(path: string): DatabaseFileSummary {
  if (!existsSync(path) || statSync(path).size === 0 || !looksLikeSqlite(path)) throw new BackupInvalidError(path, 'not_sqlite');
  let db: RecallDatabase;
  try {
    db = openDatabase(path, { readonly: true });
  } catch {
    throw new BackupInvalidError(path, 'not_sqlite');
  }
  try {
    const raw = db.raw;
    let problems: string[];
    try {
      problems = (raw.prepare('pragma integrity_check(20)').pluck().all() as string[]).filter((p) => p !== 'ok');
    } catch (error) {
      problems = [(error as Error).message];
    }
    if (problems.length > 0) throw new BackupInvalidError(path, 'integrity', problems);
    const tables = new Set(raw.prepare("select name from sqlite_master where type = 'table'").pluck().all() as string[]);
    if (!['projects', 'sessions', 'messages', '__drizzle_migrations'].every((t) => tables.has(t))) throw new BackupInvalidError(path, 'not_recall');
    const status = migrationStatus(raw);
    if (status.unknown > 0) throw new BackupSchemaUnknownError(path, status.unknown);
    const newest = raw
      .prepare(
        `select max(coalesce((select max(created_at) from messages), 0), coalesce((select max(max(updated_at), coalesce(max(ended_at), 0)) from sessions), 0),
                    coalesce((select max(updated_at) from projects), 0), coalesce((select max(edited_at) from messages), 0))`,
      )
      .pluck()
      .get() as number;
    const version = tables.has('keyword_index_state') ? (raw.prepare('select version from keyword_index_state where id = 1').pluck().get() as number | undefined) : undefined;
    return {
      path,
      bytes: statSync(path).size,
      projects: countOf(raw, 'projects'),
      sessions: countOf(raw, 'sessions'),
      messages: countOf(raw, 'messages'),
      semanticChunks: countOf(raw, 'semantic_chunks'),
      keywordIndex: version === KEYWORD_INDEX_VERSION,
      newestActivity: newest ?? 0,
      pendingMigrations: status.pending,
    };
  } finally {
    db.close();
  }
}

/** Options of `restoreDatabaseFile`. */
export interface RestoreOptions {
  /** Replace a profile whose activity is newer than the backup. */
  force?: boolean;
}

/** What `restoreDatabaseFile` did. */
export interface RestoreResult {
  backup: DatabaseFileSummary;
  /** The replaced profile's summary, or null when there was none. */
  replaced: DatabaseFileSummary | null;
  /** Messages whose keyword index rows were rebuilt (0 when the backup carried its index). */
  reindexed: number;
}

/**
 * Replaces the database at `targetPath` with the backup at `backupPath`, atomically: the backup is
 * checked (`inspectDatabaseFile`), compared with the current file (refused with
 * RestoreTargetNewerError when the current one has newer activity, unless `force`), copied beside
 * the target, migrated, its keyword index rebuilt when it was left out, and renamed over the target
 * (stale `-wal`/`-shm` of the old file removed first). The caller makes sure nothing has the target
 * open (a serving gateway would keep writing to the replaced file).
 */
export function restoreDatabaseFile(backupPath: string, targetPath: string, options: RestoreOptions = {}): RestoreResult {
  const backup = inspectDatabaseFile(backupPath);
  let replaced: DatabaseFileSummary | null = null;
  if (existsSync(targetPath) && statSync(targetPath).size > 0) {
    // A writable open of the current file checkpoints its WAL into it first, so the summary sees every change.
    openDatabase(targetPath).close();
    replaced = inspectDatabaseFile(targetPath);
    if (replaced.newestActivity > backup.newestActivity && options.force !== true) {
      throw new RestoreTargetNewerError(targetPath, replaced.newestActivity, backup.newestActivity);
    }
  }
  const tmp = tempBeside(targetPath);
  let reindexed = 0;
  try {
    // openDatabase creates the folders 0700 and the file 0600 before the copy lands in it.
    openDatabase(tmp).close();
    for (const suffix of ['-wal', '-shm']) rmSync(`${tmp}${suffix}`, { force: true });
    copyFileSync(backupPath, tmp);
    if (process.platform !== 'win32') chmodSync(tmp, PRIVATE_FILE_MODE);
    const db = openDatabase(tmp); // applies pending migrations
    try {
      if (!backup.keywordIndex) reindexed = rebuildKeywordIndex(db.raw);
      db.raw.pragma('journal_mode = DELETE');
    } finally {
      db.close();
    }
    syncFile(tmp);
    for (const suffix of ['-wal', '-shm', '-journal']) rmSync(`${targetPath}${suffix}`, { force: true });
    renameSync(tmp, targetPath);
  } finally {
    for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${tmp}${suffix}`, { force: true });
  }
  return { backup, replaced, reindexed };
}
