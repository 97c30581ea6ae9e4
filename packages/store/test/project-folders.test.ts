/**
 * Which paths may become project folders: only absolute, normalised ones; never a filesystem root
 * (`/`, `C:\`, a UNC share root), and the user's home folder only when the caller confirms it.
 * Every writer (createProject, addProjectFolder, projectForFolder) shares the rule, and a root
 * folder already stored by an older version never covers a cwd.
 */
import { homedir } from 'node:os';
import { describe, expect, test } from 'vitest';
import { addProjectFolder, bulkWrite, createProject, createSession, discoveredFolders, projectCoveringFolder, projectForFolder } from '../src/index.js';
import { countRows, tempDb } from './support/temp-db.js';

const refused = (reason: string) => expect.objectContaining({ code: 'invalid_folder', details: expect.objectContaining({ reason }) });

describe('project folder paths', () => {
  test.each(['../../etc', 'repo', './x', 'C:relative'])('a relative path (%j) is refused with invalid_folder and nothing is written', (path) => {
    const db = tempDb();
    expect(() => projectForFolder(db, path)).toThrow(refused('relative'));
    expect(() => createProject(db, { name: 'P', folders: [path] })).toThrow(refused('relative'));
    expect(countRows(db, 'projects')).toBe(0);
    const p = createProject(db, { name: 'Q' });
    expect(() => addProjectFolder(db, p.id, path)).toThrow(refused('relative'));
    expect(countRows(db, 'project_folders')).toBe(0);
  });

  test.each(['/', '//', '/./', '/..', 'C:\\', 'c:/', '\\\\server\\share\\'])('a filesystem root (%j) is refused', (path) => {
    const db = tempDb();
    expect(() => projectForFolder(db, path)).toThrow(refused('root'));
    expect(() => createProject(db, { name: 'P', folders: [path] })).toThrow(refused('root'));
    expect(countRows(db, 'projects')).toBe(0);
  });

  test('the home folder needs confirmHome', () => {
    const db = tempDb();
    const home = homedir();
    expect(() => projectForFolder(db, home)).toThrow(refused('home'));
    expect(() => projectForFolder(db, `${home}/`)).toThrow(refused('home'));
    expect(() => createProject(db, { name: 'P', folders: [home] })).toThrow(refused('home'));
    expect(countRows(db, 'projects')).toBe(0);
    const { project, created } = projectForFolder(db, home, { confirmHome: true });
    expect(created).toBe(true);
    expect(project.folders).toEqual([{ path: home, isPrimary: true }]);
    // Once mapped, the lookup of an owned home folder needs no new confirmation.
    expect(projectForFolder(db, home).project.id).toBe(project.id);
    const other = createProject(db, { name: 'Other', folders: [`${home}/repos/x`] });
    expect(other.folders[0]?.path).toBe(`${home}/repos/x`);
  });

  test('refused before anything is written, even inside a bulk batch (no savepoint there)', () => {
    const db = tempDb();
    bulkWrite(db, () => {
      expect(() => createProject(db, { name: 'P', folders: ['/ok', '/'] })).toThrow(refused('root'));
      expect(() => projectForFolder(db, homedir())).toThrow(refused('home'));
    });
    expect(countRows(db, 'projects')).toBe(0);
    expect(countRows(db, 'project_folders')).toBe(0);
  });

  test('a root folder stored before the rule never covers a cwd', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    db.raw.prepare('insert into project_folders (project_id, path, is_primary, created_at) values (?, ?, 1, 0)').run(p.id, '/');
    expect(projectCoveringFolder(db, '/some/unmapped/folder')).toBeUndefined();
  });

  test('discovered folders never suggest a path that cannot become a project folder (a root, a relative cwd)', () => {
    const db = tempDb();
    createSession(db, { cwd: '/' });
    createSession(db, { cwd: 'relative/dir' });
    createSession(db, { cwd: '/repo/q' });
    expect(discoveredFolders(db)).toEqual([{ path: '/repo/q', sessionCount: 1 }]);
  });
});
