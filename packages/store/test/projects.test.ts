import { describe, expect, test } from 'vitest';
import {
  addProjectFolder,
  archiveProject,
  createProject,
  createSession,
  deleteProject,
  discoveredFolders,
  getProject,
  listProjects,
  projectForFolder,
  removeProjectFolder,
  setSessionProject,
  updateProject,
} from '../src/index.js';
import { countRows, tempDb } from './support/temp-db.js';

describe('projects', () => {
  test('create validates and trims the name, mints a p_ id and a unique slug', () => {
    const db = tempDb();
    const a = createProject(db, { name: '  Rust CLI  ' });
    const b = createProject(db, { name: 'Rust CLI' });
    expect(a.id).toMatch(/^p_/);
    expect(a.name).toBe('Rust CLI');
    expect(a.slug).toBe('rust-cli');
    expect(b.slug).toBe('rust-cli-2');
    expect(createProject(db, { name: '菜谱 App' }).slug).toBe('菜谱-app');
  });

  test.each([
    ['empty', ''],
    ['blank', '   '],
    ['too long', 'x'.repeat(121)],
    ['control characters', 'a\u0000b'],
  ])('create refuses a %s name with invalid_input and writes nothing', (_label, name) => {
    const db = tempDb();
    expect(() => createProject(db, { name })).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(countRows(db, 'projects')).toBe(0);
  });

  test('rename and edit folders leave session ownership untouched', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P', folders: ['/work/p/'] });
    const s = createSession(db, { projectId: p.id, cwd: '/work/p' });
    expect(updateProject(db, p.id, { name: 'P renamed', description: 'd' }).slug).toBe('p-renamed');
    addProjectFolder(db, p.id, '/work/p2');
    removeProjectFolder(db, p.id, '/work/p');
    expect(getProject(db, p.id).folders).toEqual([{ path: '/work/p2', isPrimary: false }]);
    const row = db.raw.prepare('select project_id, cwd from sessions where id = ?').get(s.id);
    expect(row).toEqual({ project_id: p.id, cwd: '/work/p' });
  });

  test('archive keeps ownership and hides the project from the default list', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const s = createSession(db, { projectId: p.id });
    archiveProject(db, p.id);
    expect(listProjects(db).map((x) => x.id)).toEqual([]);
    expect(listProjects(db, { includeArchived: true })[0]).toMatchObject({ id: p.id, archived: true, sessionCount: 1 });
    expect(db.raw.prepare('select project_id from sessions where id = ?').pluck().get(s.id)).toBe(p.id);
    expect(() => createSession(db, { projectId: p.id })).toThrow(expect.objectContaining({ code: 'project_archived' }));
    archiveProject(db, p.id, false);
    expect(listProjects(db).map((x) => x.id)).toEqual([p.id]);
  });

  test('hard delete is refused while sessions are bound, allowed once they moved', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const s = createSession(db, { projectId: p.id });
    expect(() => deleteProject(db, p.id)).toThrow(expect.objectContaining({ code: 'project_has_sessions', details: expect.objectContaining({ sessionCount: 1 }) }));
    expect(countRows(db, 'projects')).toBe(1);
    setSessionProject(db, s.id, null);
    deleteProject(db, p.id);
    expect(countRows(db, 'projects')).toBe(0);
    expect(() => deleteProject(db, p.id)).toThrow(expect.objectContaining({ code: 'project_not_found' }));
  });

  test('a folder belongs to one project; projectForFolder deduplicates by normalised path', () => {
    const db = tempDb();
    const first = projectForFolder(db, '/home/me/repos/recall/');
    expect(first.created).toBe(true);
    expect(first.project.name).toBe('recall');
    expect(first.project.id).toMatch(/^p_/);
    const again = projectForFolder(db, '/home/me/repos/./recall');
    expect(again).toEqual({ project: expect.objectContaining({ id: first.project.id }), created: false });
    const other = createProject(db, { name: 'Other' });
    expect(() => addProjectFolder(db, other.id, '/home/me/repos/recall')).toThrow(expect.objectContaining({ code: 'folder_in_use' }));
  });

  test('discovered folders are session cwds/git roots no project folder covers', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P', folders: ['/repo/p'] });
    createSession(db, { projectId: p.id, cwd: '/repo/p/sub' });
    createSession(db, { cwd: '/repo/q', gitRepoRoot: '/repo/q' });
    createSession(db, { cwd: '/repo/q/src', gitRepoRoot: '/repo/q' });
    createSession(db, { cwd: '/tmp/scratch' });
    expect(discoveredFolders(db)).toEqual([
      { path: '/repo/q', sessionCount: 2 },
      { path: '/tmp/scratch', sessionCount: 1 },
    ]);
  });

  test('a project id from another profile database is unknown here', () => {
    const home = tempDb('profiles/a/recall.db');
    const other = tempDb('profiles/b/recall.db');
    const p = createProject(home, { name: 'Only in A' });
    const s = createSession(other, {});
    expect(() => setSessionProject(other, s.id, p.id)).toThrow(expect.objectContaining({ code: 'project_not_found' }));
    expect(() => createSession(other, { projectId: p.id })).toThrow(expect.objectContaining({ code: 'project_not_found' }));
    expect(countRows(other, 'sessions')).toBe(1);
  });
});
