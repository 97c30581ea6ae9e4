/**
 * The project lint rules bite (tooling/scripts/lint-rules.mjs, run by `pnpm lint`): in a copy of
 * the workspace, the untouched tree passes, and one file with SQL outside the storage adapters
 * fails the run with a message that names the file and says where SQL belongs — while the same SQL
 * in an adapter, a test or tooling passes (the rule's scope is the shipped src of packages/* and apps/*).
 * The homes are the storage packages and adapter folders (no per-file exceptions), and a package's
 * core never imports its own `src/sqlite/` adapter folder (the adapter imports the core).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
let copy = '';
beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'recall-lint-rules-'));
  const list = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' });
  execFileSync('sh', ['-c', `tar -cf - -T - | tar -xf - -C "${copy}"`], { cwd: REPO, input: list });
  // The script lists files with git (tracked and untracked alike): a bare repository is enough.
  execFileSync('git', ['init', '-q'], { cwd: copy });
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

function lint(): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, ['tooling/scripts/lint-rules.mjs'], { cwd: copy, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

const SQL_MESSAGE = 'SQL is written only in the storage adapters';

describe('lint rule: no SQL outside the storage adapters', () => {
  test('the workspace as it is passes', () => {
    const r = lint();
    expect(r.output).toMatch(/no problems/);
    expect(r.status).toBe(0);
  });

  test.each([
    ['packages/chat/src/sneaky.ts', "export const n = (db: any) => db.raw.prepare('select count(*) from messages').get();", true],
    ['packages/importers/src/sneaky.ts', 'export const q = (pool: any, id: string) => pool.query(`delete from sessions where id = $1`, [id]);', true],
    ['apps/cli/src/sneaky.ts', "export const s = 'insert into projects (id, name) values (?, ?)';", true],
    ['packages/gateway-rpc/src/sneaky.ts', "export const t = (db: any) => db.raw.pragma('data_version');", true],
    ['packages/store/src/sneaky.ts', "export const a = 'select id from sessions where project_id = ?';", false],
    ['packages/store-postgres/src/adapter/sneaky.ts', "export const b = 'update sessions set title = $1 where id = $2';", false],
    ['packages/semantic/src/sneaky.ts', "export const f = (db: any) => db.raw.prepare('select id from semantic_chunks').all();", true],
    ['packages/semantic/src/sqlite/sneaky.ts', "export const f = (db: any) => db.raw.prepare('select id from semantic_chunks').all();", false],
    ['packages/importers/src/sources/sneaky.ts', "export const g = 'select id, title from sessions order by started_at';", false],
    ['packages/chat/test/sneaky.test.ts', "export const c = 'select count(*) from messages';", false],
    ['tooling/bench/src/sneaky.ts', "export const d = 'select count(*) from messages';", false],
    ['apps/desktop-ui/src/sneaky.ts', "export const e = 'Select a project, then delete the old one?';", false],
  ])('%s: fails = %s', (file, text, fails) => {
    const path = join(copy, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${text}\n`);
    try {
      const r = lint();
      if (fails) {
        expect(r.status).toBe(1);
        expect(r.output).toContain(`${file}: `);
        expect(r.output).toContain(SQL_MESSAGE);
        expect(r.output).toContain('@recall/storage-ports');
      } else {
        expect(r.output).toMatch(/no problems/);
        expect(r.status).toBe(0);
      }
    } finally {
      rmSync(path);
    }
  });
});

const IMPORT_MESSAGE = 'never imports its own adapter folder (src/sqlite/)';

describe('lint rule: a package core never imports its own SQLite adapter folder', () => {
  test.each([
    ['packages/semantic/src/sneaky.ts', "import { claimChunks } from './sqlite/claims.js';\nexport const c = claimChunks;", true],
    ['packages/semantic/src/sneaky.ts', "export { sqliteSemanticIndex } from '@recall/semantic/sqlite';", true],
    ['packages/semantic/src/sneaky.ts', "export const load = () => import('./sqlite/index.js');", true],
    ['packages/semantic/src/nested/sneaky.ts', "import type { ConfiguredSourceOptions } from '../sqlite/source.js';\nexport type O = ConfiguredSourceOptions;", true],
    ['packages/semantic/src/sqlite/sneaky.ts', "import { chunkText } from '../chunker.js';\nexport const c = chunkText;", false],
    ['apps/cli/src/sneaky.ts', "export { sqliteSemanticIndex } from '@recall/semantic/sqlite';", false],
    ['packages/semantic/test/sneaky.test.ts', "import { claimChunks } from '../src/sqlite/claims.js';\nexport const c = claimChunks;", false],
  ])('%s: fails = %s', (file, text, fails) => {
    const path = join(copy, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${text}\n`);
    try {
      const r = lint();
      if (fails) {
        expect(r.status).toBe(1);
        expect(r.output).toContain(`${file}: imports `);
        expect(r.output).toContain(IMPORT_MESSAGE);
      } else {
        expect(r.output).toMatch(/no problems/);
        expect(r.status).toBe(0);
      }
    } finally {
      rmSync(path);
    }
  });
});
