/**
 * findSessionHeader / getSessionHeader: the session's own row for scope and existence checks, without
 * the visible-message aggregates that findSession computes over every message of the session.
 */
import { describe, expect, test } from 'vitest';
import { appendMessages, createProject, createSession, findSession, findSessionHeader, getSessionHeader, rewindSession, SessionNotFoundError } from '../src/index.js';
import { tempDb } from './support/temp-db.js';

describe('session header', () => {
  test.each([
    ['empty session', 0, 0],
    ['three messages', 3, 0],
    ['rewound to the first of five', 5, 1],
  ])('%s: equals findSession without messageCount and lastMessageAt', (_name, messages, rewindTo) => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    const s = createSession(db, { projectId: p.id, title: 't', source: 'cli', cwd: '/x' });
    const ids = appendMessages(db, s.id, Array.from({ length: messages }, (_, i) => ({ role: 'user' as const, content: `m${i}` }))).messages.map((m) => m.id);
    if (rewindTo > 0) rewindSession(db, s.id, ids[rewindTo - 1]!);
    const { messageCount, lastMessageAt, ...rest } = findSession(db, s.id)!;
    expect(messageCount).toBe(rewindTo > 0 ? rewindTo : messages);
    expect(lastMessageAt === null).toBe(messages === 0);
    expect(findSessionHeader(db, s.id)).toEqual(rest);
    expect(getSessionHeader(db, s.id)).toEqual(rest);
    expect(Object.keys(findSessionHeader(db, s.id)!)).not.toContain('messageCount');
  });

  test('unknown id: undefined, and getSessionHeader throws session_not_found', () => {
    const db = tempDb();
    expect(findSessionHeader(db, 'nope')).toBeUndefined();
    expect(() => getSessionHeader(db, 'nope')).toThrow(SessionNotFoundError);
  });
});
