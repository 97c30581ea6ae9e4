/**
 * Profiles on disk: each profile is its own SQLite file at `<home>/profiles/<name>/recall.db`, so a
 * profile can never see another's rows and the same folder path in two profiles is two unrelated
 * projects. This module is the gateway's only route to `openDatabase()` (from @recall/schema, the
 * only place SQLite is opened); the server opens one handle per profile for its whole lifetime.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { assertProfileName, openDatabase, profileDatabasePath, type RecallDatabase } from '@recall/schema';

/**
 * Opens (creating and migrating when needed) the profile's database `<home>/profiles/<profile>/recall.db`
 * read-write, as the gateway does. Throws the schema package's `RecallSchemaError`s (e.g.
 * `invalid_profile` for a bad name, `migration_failed`). Close it with `db.close()`.
 */
export function openProfileDatabase(home: string, profile: string): RecallDatabase {
  return openDatabase(profileDatabasePath(home, profile), { profile });
}

/** Profile names that have a directory under `<home>/profiles` (valid names only), sorted. */
export function listProfiles(home: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(join(home, 'profiles'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return entries
    .filter((name) => {
      try {
        assertProfileName(name);
        return true;
      } catch {
        return false;
      }
    })
    .sort();
}
