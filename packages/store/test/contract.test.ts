/**
 * One test per row of the seed's business contract (§2): which operations touch project_id and
 * which touch the working directory.
 */
import { describe, expect, test } from 'vitest';
import type { RecallDatabase } from '@recall/schema';
import {
  addProjectFolder,
  appendMessage,
  createProject,
  createSession,
  getMessages,
  getSession,
  setSessionCwd,
  setSessionProject,
  updateProject,
  upsertSession,
} from '../src/index.js';
import { openAgain, tempDb } from './support/temp-db.js';

function ownership(db: RecallDatabase, id: string) {
  return db.raw.prepare('select project_id as projectId, cwd from sessions where id = ?').get(id) as { projectId: string | null; cwd: string | null };
}

describe('business contract (seed §2)', () => {
  test('create in a project stores the chosen project id and the chosen cwd', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P', folders: ['/p'] });
    const s = createSession(db, { projectId: p.id, cwd: '/somewhere/else' });
    expect(ownership(db, s.id)).toEqual({ projectId: p.id, cwd: '/somewhere/else' });
  });

  test('create with no project stores NULL', () => {
    const db = tempDb();
    const s = createSession(db, { cwd: '/x' });
    expect(ownership(db, s.id)).toEqual({ projectId: null, cwd: '/x' });
  });

  test('a draft persisted on its first message keeps the project it was drafted in', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const draft = { projectId: p.id, title: 'draft' };
    // the user switches the UI to another project before typing; the draft still carries P
    createProject(db, { name: 'Q' });
    const s = createSession(db, { ...draft, messages: [{ role: 'user', content: 'first message' }] });
    expect(s.projectId).toBe(p.id);
    expect(getMessages(db, s.id).map((m) => m.content)).toEqual(['first message']);
  });

  test('resume reads the stored project and cwd from the database', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const s = createSession(db, { projectId: p.id, cwd: '/p' });
    const again = openAgain(db.path);
    expect(getSession(again, s.id)).toMatchObject({ projectId: p.id, cwd: '/p' });
  });

  test('re-saving (upsert) without projectId keeps it; explicit null clears it', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const s = createSession(db, { id: 'sess-1', projectId: p.id });
    upsertSession(db, { id: 'sess-1', title: 'renamed' });
    expect(ownership(db, s.id).projectId).toBe(p.id);
    upsertSession(db, { id: 'sess-1', title: 'again', projectId: undefined });
    expect(ownership(db, s.id).projectId).toBe(p.id);
    upsertSession(db, { id: 'sess-1', projectId: null });
    expect(ownership(db, s.id).projectId).toBeNull();
  });

  test('changing directory updates cwd and git metadata, never the project', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P', folders: ['/p'] });
    const q = createProject(db, { name: 'Q', folders: ['/q'] });
    const s = createSession(db, { projectId: p.id, cwd: '/p' });
    const after = setSessionCwd(db, s.id, { cwd: '/q', gitRepoRoot: '/q', gitBranch: 'main' });
    expect(after).toMatchObject({ projectId: p.id, cwd: '/q', gitRepoRoot: '/q', gitBranch: 'main' });
    expect(q.id).not.toBe(p.id);
  });

  test('move to project updates project_id only: messages and cwd untouched', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const q = createProject(db, { name: 'Q' });
    const s = createSession(db, { projectId: p.id, cwd: '/p' });
    appendMessage(db, s.id, { role: 'user', content: 'hello' });
    const before = db.raw.prepare('select * from messages order by id').all();
    expect(setSessionProject(db, s.id, q.id)).toEqual({ sessionIds: [s.id], projectId: q.id, previousProjectId: p.id });
    expect(ownership(db, s.id)).toEqual({ projectId: q.id, cwd: '/p' });
    expect(db.raw.prepare('select * from messages order by id').all()).toEqual(before);
  });

  test('remove from project sets NULL and keeps cwd', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const s = createSession(db, { projectId: p.id, cwd: '/p' });
    setSessionProject(db, s.id, null);
    expect(ownership(db, s.id)).toEqual({ projectId: null, cwd: '/p' });
  });

  test('renaming a project or editing its folders changes neither ownership nor cwd', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P', folders: ['/p'] });
    const s = createSession(db, { projectId: p.id, cwd: '/elsewhere' });
    updateProject(db, p.id, { name: 'New name' });
    addProjectFolder(db, p.id, '/elsewhere');
    expect(ownership(db, s.id)).toEqual({ projectId: p.id, cwd: '/elsewhere' });
  });

  test('moving to an archived or unknown project is refused and writes nothing', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const s = createSession(db, { projectId: p.id });
    expect(() => setSessionProject(db, s.id, 'p_missing')).toThrow(expect.objectContaining({ code: 'project_not_found' }));
    const archived = createProject(db, { name: 'Old' });
    db.raw.prepare('update projects set archived = 1 where id = ?').run(archived.id);
    expect(() => setSessionProject(db, s.id, archived.id)).toThrow(expect.objectContaining({ code: 'project_archived' }));
    expect(() => setSessionProject(db, 's_missing', p.id)).toThrow(expect.objectContaining({ code: 'session_not_found' }));
    expect(ownership(db, s.id).projectId).toBe(p.id);
  });
});
