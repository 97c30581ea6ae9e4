/**
 * Migrations are embedded in the build (src/migrations.generated.ts, made from drizzle/ by
 * tooling/scripts/embed-migrations.mjs): the embedded set must equal what drizzle reads from the folder,
 * a bundled copy of the package must migrate a new database with no drizzle/ folder anywhere near
 * it, and `migrationsFolder` still reads a folder when asked.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { build } from 'esbuild';
import { afterEach, describe, expect, test } from 'vitest';
import { openDatabase } from '../src/index.js';
import { EMBEDDED_MIGRATIONS } from '../src/migrations.generated.js';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const FOLDER = join(PACKAGE_DIR, 'drizzle');
const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'recall-migrations-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const userTables = (path: string, options: Parameters<typeof openDatabase>[1] = {}) => {
  const db = openDatabase(path, options);
  try {
    return db.raw.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name").pluck().all() as string[];
  } finally {
    db.close();
  }
};

describe('embedded migrations', () => {
  test('equal what drizzle reads from drizzle/ (run `pnpm --filter @recall/schema db:generate` after a schema change)', () => {
    const journal = JSON.parse(readFileSync(join(FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] };
    const fromFolder = readMigrationFiles({ migrationsFolder: FOLDER }).map((m, i) => ({ tag: journal.entries[i]!.tag, ...m }));
    expect(EMBEDDED_MIGRATIONS).toEqual(fromFolder);
    expect(execFileSync(process.execPath, [join(PACKAGE_DIR, '..', '..', 'tooling', 'scripts', 'embed-migrations.mjs'), '--check'], { encoding: 'utf8', cwd: PACKAGE_DIR })).toBe('');
  });

  test.each([
    { name: 'embedded (default)', options: {} },
    { name: 'a migrationsFolder copy', options: { migrationsFolder: 'copy' } },
  ])('$name gives the same tables and journal', ({ options }) => {
    const dir = tempDir();
    const opts = options.migrationsFolder ? { migrationsFolder: join(dir, 'drizzle') } : {};
    if (options.migrationsFolder) cpSync(FOLDER, join(dir, 'drizzle'), { recursive: true });
    const tables = userTables(join(dir, 'a.db'), opts);
    expect(tables).toEqual(expect.arrayContaining(['projects', 'sessions', 'messages', 'semantic_chunks']));
    expect(tables).toEqual(userTables(join(dir, 'b.db')));
  });

  test('migrateUpTo an unknown tag is a migration_failed error', () => {
    expect(() => openDatabase(join(tempDir(), 'a.db'), { migrateUpTo: '9999_nope' })).toThrow(expect.objectContaining({ code: 'migration_failed' }));
  });

  test('a bundle of the package migrates a new database with no drizzle/ folder next to it', async () => {
    const dir = tempDir();
    const entry = join(dir, 'entry.ts');
    writeFileSync(
      entry,
      `import { openDatabase } from ${JSON.stringify(join(PACKAGE_DIR, 'src', 'index.ts'))};
const db = openDatabase(process.argv[2]);
const tables = db.raw.prepare("select count(*) from sqlite_master where type = 'table' and name = 'messages'").pluck().get();
const applied = db.raw.prepare('select count(*) from __drizzle_migrations').pluck().get();
db.close();
console.log(JSON.stringify({ tables, applied }));
`,
    );
    const outfile = join(dir, 'bundle.mjs');
    await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', outfile, external: ['better-sqlite3'], logLevel: 'silent' });
    // Run from a folder where better-sqlite3 resolves but no drizzle/ exists beside the bundle.
    // (node_modules/.recall-bundle-test/run/bundle.mjs: a file URL '../drizzle' finds nothing there.)
    const runnerDir = join(PACKAGE_DIR, 'node_modules', `.recall-bundle-test-${process.pid}`);
    const runner = join(runnerDir, 'run', 'bundle.mjs');
    cpSync(outfile, runner);
    try {
      const out = execFileSync(process.execPath, [runner, join(dir, 'bundled.db')], { encoding: 'utf8' });
      expect(JSON.parse(out)).toEqual({ tables: 1, applied: EMBEDDED_MIGRATIONS.length });
    } finally {
      rmSync(runnerDir, { recursive: true, force: true });
    }
  });
});
