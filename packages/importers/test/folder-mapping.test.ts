/**
 * Per-folder mapping of a conversation that ran in a folder the store refuses as a project folder
 * (the home folder, `/`, a relative cwd): it is imported into "No project" — never a project owning
 * that folder, never a refused line. A recall-jsonl project line with such a folder is refused
 * (`invalid_folder`). Real SQLite files, real transcript files.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { tempDatabases } from '@recall/config/temp-databases';
import { ccLine } from '@recall/config/source-fixtures';
import { openDatabase } from '@recall/schema';
import { findSession, listProjects } from '@recall/store';
import { expect, test } from 'vitest';
import { importJsonlText, importTranscripts, transcriptFiles } from '../src/index.js';

const { tempDir, tempDb } = tempDatabases((path) => openDatabase(path), 'recall-import-folders-');

test.each([
  ['the home folder', homedir()],
  ['the filesystem root', '/'],
  ['a relative cwd', 'some/relative'],
])('a conversation in %s is imported without a project', async (_label, cwd) => {
  const db = tempDb();
  const dir = tempDir();
  const id = 'bbbbbbbb-0000-4000-8000-000000000001';
  mkdirSync(join(dir, '-x'));
  writeFileSync(join(dir, '-x', `${id}.jsonl`), `${ccLine(id, 'u1', 'user', 'hello', { cwd })}\n${ccLine(id, 'u2', 'assistant', 'hi', { cwd })}\n`);
  const summary = await importTranscripts(db, 'claude-code', transcriptFiles('claude-code', dir), { mapping: { kind: 'per-folder' } });
  expect(summary.errors).toEqual([]);
  expect(summary.projectsCreated).toBe(0);
  expect(findSession(db, id)).toMatchObject({ projectId: null });
  expect(listProjects(db)).toEqual([]);
});

test('a recall-jsonl project with folders ["/"] is refused as invalid_folder; the other lines import', async () => {
  const db = tempDb();
  const text = [
    '{"kind":"project","id":"p_root","name":"Everything","folders":["/"]}',
    '{"kind":"project","id":"p_ok","name":"Ok","folders":["/work/ok"]}',
  ].join('\n');
  const summary = await importJsonlText(db, text);
  expect(summary.errors.map((e) => [e.line, e.code])).toEqual([[1, 'invalid_folder']]);
  expect(listProjects(db).map((p) => [p.id, p.folders.map((f) => f.path)])).toEqual([['p_ok', ['/work/ok']]]);
});
