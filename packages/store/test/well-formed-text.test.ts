/**
 * One rule for text that is not well-formed UTF-16: every lone surrogate is replaced with one U+FFFD
 * before it is stored (SQLite would otherwise keep its WTF-8 bytes, which read back as three U+FFFD),
 * and what a write returns is exactly what a later read returns. Real SQLite files.
 */
import { describe, expect, test } from 'vitest';
import {
  appendMessage,
  appendMessages,
  createProject,
  createSession,
  editMessage,
  getMessages,
  getProject,
  getSession,
  setSessionCwd,
  updateProject,
  updateSession,
} from '../src/index.js';
import { tempDb } from './support/temp-db.js';

const LONE_HIGH = 'SURR\ud800';
const LONE_LOW = '\udc00x';
const PAIR = 'ok \ud83d\ude00'; // a valid pair stays as it is

describe('lone surrogates', () => {
  test('messages: the append answer equals what is read back', () => {
    const db = tempDb();
    const s = createSession(db);
    const m = appendMessage(db, s.id, { role: 'user', content: LONE_HIGH, toolName: 'a\udfffb', externalId: 'e\ud800' });
    expect(m.content).toBe('SURR\ufffd');
    expect(m.toolName).toBe('a\ufffdb');
    expect(m.externalId).toBe('e\ufffd');
    const [m2, m3] = appendMessages(db, s.id, [{ role: 'assistant', content: LONE_LOW }, { role: 'assistant', content: PAIR }]).messages;
    expect([m2?.content, m3?.content]).toEqual(['\ufffdx', PAIR]);
    expect(getMessages(db, s.id).map((x) => x.content)).toEqual(['SURR\ufffd', '\ufffdx', PAIR]);
    expect(getMessages(db, s.id)[0]).toEqual(m);
    // Idempotency by external id survives the replacement.
    expect(appendMessages(db, s.id, [{ role: 'user', content: LONE_HIGH, externalId: 'e\ud800' }]).inserted).toBe(0);
    const edited = editMessage(db, m.id, 'edit\ud800');
    expect(edited.content).toBe('edit\ufffd');
    expect(getMessages(db, s.id)[0]?.content).toBe('edit\ufffd');
  });

  test('first messages of createSession, titles and session metadata', () => {
    const db = tempDb();
    const s = createSession(db, { title: 't\ud800', model: 'm\udc00', messages: [{ role: 'user', content: LONE_HIGH }] });
    expect([s.title, s.model]).toEqual(['t\ufffd', 'm\ufffd']);
    expect(getSession(db, s.id)).toEqual(s);
    expect(getMessages(db, s.id)[0]?.content).toBe('SURR\ufffd');
    const updated = updateSession(db, s.id, { title: 'again\ud800', endReason: 'r\ud800' });
    expect([updated.title, updated.endReason]).toEqual(['again\ufffd', 'r\ufffd']);
    expect(getSession(db, s.id)).toEqual(updated);
    const moved = setSessionCwd(db, s.id, { cwd: '/work/\ud800', gitBranch: 'b\ud800' });
    expect([moved.cwd, moved.gitBranch]).toEqual(['/work/\ufffd', 'b\ufffd']);
  });

  test('project names and descriptions: the answer equals what is stored', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'x\ud800y', description: 'd\udc00', icon: 'i\ud800' });
    expect([p.name, p.description, p.icon]).toEqual(['x\ufffdy', 'd\ufffd', 'i\ufffd']);
    expect(getProject(db, p.id)).toEqual(p);
    const u = updateProject(db, p.id, { name: 'n\ud800', description: 'e\ud800' });
    expect([u.name, u.description]).toEqual(['n\ufffd', 'e\ufffd']);
    expect(getProject(db, p.id)).toEqual(u);
  });
});
