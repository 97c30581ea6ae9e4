import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidProfileNameError, openDatabase, profileDatabasePath } from '@recall/schema';

const home = mkdtempSync(join(tmpdir(), 'recall-schema-example-'));
try {
  // <home>/profiles/work/recall.db, created 0600 in 0700 folders, migrated on open.
  const path = profileDatabasePath(home, 'work');
  const db = openDatabase(path, { profile: 'work' });
  try {
    const tables = db.raw
      .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'messages_fts_%' order by name")
      .pluck()
      .all() as string[];
    const migrations = db.raw.prepare('select count(*) from __drizzle_migrations').pluck().get() as number;
    console.log(`profile ${db.profile}: ${migrations} migrations applied`);
    console.log(`tables: ${tables.join(', ')}`);
  } finally {
    db.close();
  }

  // A profile name is a path segment, so it is checked before anything is created.
  try {
    profileDatabasePath(home, '../other');
  } catch (error) {
    if (error instanceof InvalidProfileNameError) console.log(`${error.name} (${error.code})`);
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
