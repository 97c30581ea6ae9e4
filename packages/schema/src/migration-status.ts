/**
 * Which migrations a database file has applied, compared with the ones this build embeds: the check
 * a restore runs before it trusts a backup (a file written by a newer Recall has migrations this
 * build does not know and cannot read safely). Reads drizzle's `__drizzle_migrations` bookkeeping
 * table (hash + folder time of each applied migration).
 */
import type { RawDatabase } from './database.js';
import { EMBEDDED_MIGRATIONS } from './migrations.generated.js';

/** The migration state of a database compared with this build (see `migrationStatus`). */
export interface MigrationStatus {
  /** Migrations the file has applied. */
  readonly applied: number;
  /** Applied migrations this build does not know (a newer Recall wrote the file); 0 when readable. */
  readonly unknown: number;
  /** Migrations of this build the file has not applied yet (they run when it is opened read-write). */
  readonly pending: number;
  /** The tag of the newest applied migration this build knows, or null. */
  readonly latestKnownTag: string | null;
}

/**
 * The migration state of an open connection (read-only is enough). A file without drizzle's
 * bookkeeping table reports `applied: 0` and every migration pending.
 */
export function migrationStatus(raw: RawDatabase): MigrationStatus {
  const hasTable = raw.prepare("select 1 from sqlite_master where type = 'table' and name = '__drizzle_migrations'").get() !== undefined;
  const rows = hasTable ? (raw.prepare('select hash, created_at as createdAt from __drizzle_migrations').all() as { hash: string; createdAt: number }[]) : [];
  const known = new Map(EMBEDDED_MIGRATIONS.map((m) => [m.hash, m]));
  let unknown = 0;
  let latest: { tag: string; folderMillis: number } | null = null;
  const appliedHashes = new Set<string>();
  for (const row of rows) {
    const m = known.get(row.hash);
    if (m === undefined) {
      unknown++;
      continue;
    }
    appliedHashes.add(row.hash);
    if (latest === null || m.folderMillis > latest.folderMillis) latest = m;
  }
  const pending = EMBEDDED_MIGRATIONS.filter((m) => !appliedHashes.has(m.hash)).length;
  return { applied: rows.length, unknown, pending, latestKnownTag: latest?.tag ?? null };
}
