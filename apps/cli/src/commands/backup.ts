/**
 * `recall backup [--to FILE] [--without-index]` and `recall restore FILE [--force]`.
 * A backup is one consistent SQLite file made while a gateway may keep serving the profile
 * (`VACUUM INTO` — one read transaction, never a copy of the live `-wal` file); `--without-index`
 * leaves out the derived rows (keyword index, semantic chunks and vectors), which a restore
 * rebuilds. A restore checks the file (SQLite, a Recall database, `PRAGMA integrity_check`,
 * migrations this version knows), refuses while `recall serve` has the profile open, refuses to
 * replace a profile with newer changes than the backup unless `--force`, and writes atomically
 * (a checked copy beside the profile, renamed over it). The work is the store's
 * (backupDatabase / restoreDatabaseFile); this module is flags, paths and messages.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PRIVATE_DIR_MODE, profileDatabasePath } from '@recall/schema';
import { backupDatabase, restoreDatabaseFile } from '@recall/store';
import { defineCommand } from './command.js';
import { printJson } from './context.js';
import { ProfileInUseError, servingProcess } from './serving-lock.js';

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

function stamp(date = new Date()): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z').replace('T', '-');
}

export const backupCommand = defineCommand<{ to?: string; 'without-index'?: boolean; json?: boolean }>({
  name: 'backup',
  summary: 'Write a consistent copy of a profile to one file (safe while "recall serve" runs; a team database is backed up with pg_dump).',
  usage: 'backup [--to FILE] [--without-index] [--json]',
  optionsHelp: `  --to FILE         where to write it (a new file; default <home>/backups/<profile>-<time>.db)
  --without-index   leave out the keyword and semantic index rows (smaller; "recall restore" rebuilds them)
  --json            print JSON ({ path, bytes, withoutIndex, ms })`,
  options: { to: { type: 'string' }, 'without-index': { type: 'boolean' }, json: { type: 'boolean' } },
  positionals: { min: 0, max: 0 },
  postgresRefusal:
    '"recall backup" copies a profile\'s SQLite file; a PostgreSQL team database is backed up with PostgreSQL\'s own tools: pg_dump (for example pg_dump --format=custom --file=recall.dump "$RECALL_DATABASE_URL"), or your provider\'s snapshots. See docs/team-mode.md.',
  run(ctx, { values }) {
    const db = ctx.db();
    let to: string;
    if (values.to !== undefined) to = resolve(values.to);
    else {
      const dir = join(ctx.config.home, 'backups');
      mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      to = join(dir, `${ctx.config.profile}-${stamp()}${values['without-index'] ? '-without-index' : ''}.db`);
    }
    const result = backupDatabase(db, to, { withoutIndex: values['without-index'] === true });
    if (values.json) {
      printJson(ctx.out, { ...result, ms: Math.round(result.ms) });
      return;
    }
    ctx.out.write(`Backed up profile "${ctx.config.profile}" to ${result.path} (${mib(result.bytes)}, ${(result.ms / 1000).toFixed(1)} s${result.withoutIndex ? ', without the search index: a restore rebuilds it' : ''}).\n`);
  },
});

export const restoreCommand = defineCommand<{ force?: boolean; json?: boolean }>({
  name: 'restore',
  createsData: true,
  summary: 'Replace a profile with a backup file, after checking it (stop "recall serve" first).',
  usage: 'restore FILE [--force] [--json]',
  optionsHelp: `  FILE              a file written by "recall backup"
  --force           replace the profile even when it has changes newer than the backup
  --json            print JSON ({ backup, replaced, reindexed })`,
  options: { force: { type: 'boolean' }, json: { type: 'boolean' } },
  positionals: { min: 1, max: 1, names: 'FILE' },
  postgresRefusal:
    '"recall restore" replaces a profile\'s SQLite file from a "recall backup" file; a PostgreSQL team database is restored with PostgreSQL\'s own tools from a pg_dump file: pg_restore (for example pg_restore --clean --dbname "$RECALL_DATABASE_URL" recall.dump). See docs/team-mode.md.',
  run(ctx, { values, positionals }) {
    const file = resolve(positionals[0]!);
    const { home, profile } = ctx.config;
    const serving = servingProcess(home, profile);
    if (serving) throw new ProfileInUseError(profile, serving);
    const result = restoreDatabaseFile(file, profileDatabasePath(home, profile), { force: values.force === true });
    if (values.json) {
      printJson(ctx.out, result);
      return;
    }
    const b = result.backup;
    ctx.out.write(
      `Restored profile "${profile}" from ${file}: ${b.projects} project(s), ${b.sessions} session(s), ${b.messages} message(s)` +
        `${result.replaced ? ` (replaced ${result.replaced.messages} message(s))` : ''}.\n` +
        (result.reindexed > 0 ? `Rebuilt the keyword index (${result.reindexed} messages).\n` : '') +
        (!b.keywordIndex ? 'Semantic vectors are rebuilt by "recall serve" (or "recall index run") for projects with semantic search switched on.\n' : ''),
    );
  },
});
