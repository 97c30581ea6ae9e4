/**
 * Finding a project from what a host types on a command line: an id or a slug, or a directory
 * resolved through the folder mapping (deepest covering folder wins; an unmapped folder has none).
 */
import { describe, expect, test } from 'vitest';
import { addProjectFolder, createProject, findProjectByRef, projectCoveringFolder } from '../src/index.js';
import { tempDb } from './support/temp-db.js';

describe('findProjectByRef', () => {
  test('id or slug; unknown is undefined', () => {
    const db = tempDb();
    const a = createProject(db, { name: 'Rust CLI' });
    expect(findProjectByRef(db, a.id)?.id).toBe(a.id);
    expect(findProjectByRef(db, 'rust-cli')?.id).toBe(a.id);
    expect(findProjectByRef(db, 'nope')).toBeUndefined();
  });
});

describe('projectCoveringFolder', () => {
  test.each([
    ['/work/repo', 'outer'],
    ['/work/repo/', 'outer'],
    ['/work/repo/src/lib', 'outer'],
    ['/work/repo/vendor/sub', 'inner'],
    ['/work/repo/vendor/sub/x/y', 'inner'],
    ['/work/repository', null],
    ['/work', null],
    ['/elsewhere', null],
  ])('%s → %s', (path, expected) => {
    const db = tempDb();
    const outer = createProject(db, { name: 'outer' });
    const inner = createProject(db, { name: 'inner' });
    addProjectFolder(db, outer.id, '/work/repo');
    addProjectFolder(db, inner.id, '/work/repo/vendor/sub');
    const found = projectCoveringFolder(db, path);
    expect(found?.name ?? null).toBe(expected);
  });
});
