/**
 * A full disk (issue 21.5) as the store reports it: a real SQLite file whose size is capped with
 * `PRAGMA max_page_count` fails writes with a real SQLITE_FULL, which every write path of the store
 * turns into `DiskFullError` (`disk_full`) — a single insert, a bulk append, a move — with nothing
 * of the failed write stored and the database still usable once there is room again.
 */
import { appendMessages, asDiskFullError, createProject, createSession, DiskFullError, setSessionProject, StoreError } from '@recall/store';
import { describe, expect, test } from 'vitest';
import { countRows, tempDb } from './support/temp-db.js';

function capAtCurrentSize(db: ReturnType<typeof tempDb>): number {
  const pages = db.raw.pragma('page_count', { simple: true }) as number;
  db.raw.pragma(`max_page_count = ${pages}`);
  return pages;
}

describe('disk full (SQLITE_FULL from a capped database file)', () => {
  test.each([
    ['a project', (db: ReturnType<typeof tempDb>) => createProject(db, { name: 'x'.repeat(100), description: 'd'.repeat(1900) })],
    ['a bulk append', (db: ReturnType<typeof tempDb>, sessionId: string) => appendMessages(db, sessionId, Array.from({ length: 200 }, (_, i) => ({ role: 'user' as const, content: `message ${i} ${'z'.repeat(2000)}` })))],
    ['a conversation', (db: ReturnType<typeof tempDb>) => createSession(db, { title: 't'.repeat(400), cwd: '/c'.repeat(1000) })],
  ])('%s: DiskFullError (disk_full), nothing of it stored, writes work again once there is room', (_name, write) => {
    const db = tempDb();
    const session = createSession(db, {});
    const counts = () => ({ projects: countRows(db, 'projects'), sessions: countRows(db, 'sessions'), messages: countRows(db, 'messages') });
    capAtCurrentSize(db);
    let thrown: unknown;
    let beforeFailedWrite = counts();
    // Write until the capped file is full: the failing write must leave no trace.
    for (let i = 0; i < 1000 && thrown === undefined; i++) {
      beforeFailedWrite = counts();
      try {
        write(db, session.id);
      } catch (error) {
        thrown = error;
      }
    }
    expect(thrown).toBeInstanceOf(DiskFullError);
    expect(thrown).toBeInstanceOf(StoreError);
    expect((thrown as DiskFullError).code).toBe('disk_full');
    expect((thrown as DiskFullError).message).not.toMatch(/SQLITE|database or disk/);
    expect(((thrown as DiskFullError).cause as { code: string }).code).toBe('SQLITE_FULL');
    expect(db.raw.inTransaction).toBe(false);
    expect(counts()).toEqual(beforeFailedWrite);
    expect(db.raw.pragma('integrity_check', { simple: true })).toBe('ok');
    db.raw.pragma('max_page_count = 1073741823');
    expect(createProject(db, { name: 'after' }).name).toBe('after');
    const project = createProject(db, { name: 'move target' });
    expect(setSessionProject(db, session.id, project.id).projectId).toBe(project.id);
  });

  test.each([
    ['SQLITE_FULL', true],
    ['ENOSPC', true],
    ['EDQUOT', true],
    ['SQLITE_BUSY', false],
    ['ENOENT', false],
  ])('asDiskFullError maps %s: %s', (code, mapped) => {
    const error = Object.assign(new Error('x'), { code });
    expect(asDiskFullError(error) instanceof DiskFullError).toBe(mapped);
  });
});
