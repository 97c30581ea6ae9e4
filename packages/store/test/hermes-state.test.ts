/**
 * `@recall/store/hermes-state` reads Hermes' own state.db (real SQLite files in a temp folder):
 * sessions oldest first, messages through an id cursor in pages, an absent optional column as
 * null, a missing table or required column as HermesStateSchemaError (`hermes_schema_unsupported`),
 * a column name that is not an identifier refused before the file is opened, and the file left
 * byte for byte as it was (opened read-only).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { hermesDb } from '@recall/config/source-fixtures';
import { HermesStateSchemaError, openHermesState } from '../src/hermes-state.js';
import { StoreError } from '../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'recall-hermes-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fileWith = (sql: string) => hermesDb(join(dir, `${++n}`, 'state.db'), sql);

const COLUMNS = {
  sessions: { required: ['id'], optional: ['parent_session_id', 'started_at', 'no_such_column'] },
  messages: { required: ['id', 'session_id', 'role', 'content'], optional: ['compacted', 'not_in_hermes'] },
} as const;

const SMALL = `
  create table sessions (id text primary key, parent_session_id text, started_at real);
  create table messages (id integer primary key, session_id text, role text, content text, compacted integer);
  insert into sessions values ('b', 'a', 20.0), ('a', null, 10.0), ('c', null, null);
  insert into messages (session_id, role, content, compacted) values
    ('a', 'user', 'one', 0), ('a', 'assistant', 'two', 1), ('b', 'user', 'three', 0), ('b', 'assistant', 'four', 0), ('c', 'user', 'five', 0);
`;

describe('openHermesState', () => {
  test('sessions oldest first (no start time first), optional columns Hermes lacks read as null', () => {
    const db = openHermesState(fileWith(SMALL), COLUMNS);
    try {
      expect(db.sessions()).toEqual([
        { id: 'c', parent_session_id: null, started_at: null, no_such_column: null },
        { id: 'a', parent_session_id: null, started_at: 10, no_such_column: null },
        { id: 'b', parent_session_id: 'a', started_at: 20, no_such_column: null },
      ]);
    } finally {
      db.close();
    }
  });

  test.each([1, 2, 5, 100])('messages through the id cursor in pages of %i: each once, in id order', (limit) => {
    const db = openHermesState(fileWith(SMALL), COLUMNS);
    try {
      const seen: unknown[] = [];
      let last = 0;
      for (let page = db.messagesAfter(last, limit); page.length > 0; page = db.messagesAfter(last, limit)) {
        expect(page.length).toBeLessThanOrEqual(limit);
        seen.push(...page.map((r) => r.content));
        last = Number(page.at(-1)!.id);
      }
      expect(seen).toEqual(['one', 'two', 'three', 'four', 'five']);
      expect(db.messagesAfter(2, 1)).toEqual([{ id: 3, session_id: 'b', role: 'user', content: 'three', compacted: 0, not_in_hermes: null }]);
    } finally {
      db.close();
    }
  });

  test.each([
    ['no sessions table', 'create table messages (id integer primary key, session_id text, role text, content text);', 'sessions', '', 'no "sessions" table'],
    ['no messages table', 'create table sessions (id text primary key);', 'messages', '', 'no "messages" table'],
    ['messages lack role and content', 'create table sessions (id text); create table messages (id integer primary key, session_id text);', 'messages', 'role,content', 'table "messages" lacks role, content'],
    ['another tool entirely', 'create table notes (id integer primary key, body text);', 'sessions', '', 'no "sessions" table'],
  ])('%s: hermes_schema_unsupported', (_name, sql, table, missing, detail) => {
    const path = fileWith(sql);
    let thrown: unknown;
    try {
      openHermesState(path, COLUMNS).close();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HermesStateSchemaError);
    expect(thrown).toBeInstanceOf(StoreError);
    expect(thrown).toMatchObject({ code: 'hermes_schema_unsupported', detail, details: { path, table, missing } });
    expect((thrown as Error).message).toBe(`${path} is not a Hermes state.db Recall can read: ${detail}`);
  });

  test.each([['content"; drop table sessions; --'], ['a b'], ['']])('column name %j is refused before the file is opened', (bad) => {
    const columns = { sessions: { required: ['id'], optional: [bad] }, messages: COLUMNS.messages };
    expect(() => openHermesState(join(dir, 'never-created.db'), columns)).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(() => readFileSync(join(dir, 'never-created.db'))).toThrow();
  });

  test('the file is read, never written (same bytes after a full read)', () => {
    const path = fileWith(SMALL);
    const hash = () => createHash('sha256').update(readFileSync(path)).digest('hex');
    const before = hash();
    const db = openHermesState(path, COLUMNS);
    db.sessions();
    db.messagesAfter(0, 100);
    db.close();
    expect(hash()).toBe(before);
  });
});
