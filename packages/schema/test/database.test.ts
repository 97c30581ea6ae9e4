import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { InvalidProfileNameError, openDatabase, profileDatabasePath, type RecallDatabase } from '../src/index.js';

const dirs: string[] = [];
const dbs: RecallDatabase[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'recall-schema-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('openDatabase', () => {
  test('sets pragmas and applies every migration', () => {
    const db = openDatabase(join(tempDir(), 'a.db'));
    dbs.push(db);
    expect(db.raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.raw.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.raw.pragma('busy_timeout', { simple: true })).toBe(10000);
    const tables = db.raw.prepare("select name from sqlite_master where type='table'").pluck().all();
    expect(tables).toEqual(expect.arrayContaining(['projects', 'project_folders', 'sessions', 'messages']));
  });

  test('reopening an up-to-date database applies nothing and keeps rows', () => {
    const path = join(tempDir(), 'b.db');
    const a = openDatabase(path);
    a.raw.prepare("insert into sessions (id) values ('s1')").run();
    a.close();
    const b = openDatabase(path);
    dbs.push(b);
    expect(b.raw.prepare('select count(*) from sessions').pluck().get()).toBe(1);
  });

  test('sessions.project_id refuses to delete a project that still owns sessions', () => {
    const db = openDatabase(join(tempDir(), 'c.db'));
    dbs.push(db);
    db.raw.prepare("insert into projects (id, name, slug) values ('p_1', 'P', 'p')").run();
    db.raw.prepare("insert into sessions (id, project_id) values ('s1', 'p_1')").run();
    expect(() => db.raw.prepare("delete from projects where id = 'p_1'").run()).toThrow(/FOREIGN KEY/);
  });

  test('upgrade: a database made by the first migration keeps every row, with project_id NULL', () => {
    const path = join(tempDir(), 'legacy.db');
    const legacy = openDatabase(path, { migrateUpTo: '0000_legacy_sessions' });
    expect(legacy.raw.prepare("select count(*) from sqlite_master where name = 'projects'").pluck().get()).toBe(0);
    const insertSession = legacy.raw.prepare('insert into sessions (id, parent_session_id, lineage, title, cwd) values (?, ?, ?, ?, ?)');
    insertSession.run('s_old', null, 'root', 'old chat', '/repo/a');
    insertSession.run('s_cont', 's_old', 'compression', 'old chat (cont.)', '/repo/a');
    const insertMessage = legacy.raw.prepare('insert into messages (session_id, role, content, external_id) values (?, ?, ?, ?)');
    for (let i = 0; i < 50; i++) insertMessage.run(i % 2 ? 's_old' : 's_cont', i % 2 ? 'user' : 'assistant', `消息 message ${i}`, `e${i}`);
    const before = legacy.raw.prepare('select * from messages order by id').all();
    legacy.close();

    const upgraded = openDatabase(path);
    dbs.push(upgraded);
    // Later migrations only add columns (origin_message_id: NULL for every pre-existing row).
    expect(upgraded.raw.prepare('select * from messages order by id').all()).toEqual(before.map((m) => ({ ...(m as object), origin_message_id: null })));
    const sessions = upgraded.raw.prepare('select id, project_id, parent_session_id, lineage, title, cwd from sessions order by id').all();
    expect(sessions).toEqual([
      { id: 's_cont', project_id: null, parent_session_id: 's_old', lineage: 'compression', title: 'old chat (cont.)', cwd: '/repo/a' },
      { id: 's_old', project_id: null, parent_session_id: null, lineage: 'root', title: 'old chat', cwd: '/repo/a' },
    ]);
    expect(upgraded.raw.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});

// Migration 0005_change_counter: what another process changed, for the gateway's external-write
// watcher (packages/gateway-rpc/src/external-writes.ts; its tests cover the events end to end).
describe('change_counter', () => {
  const counters = (db: RecallDatabase) => db.raw.prepare('select projects, sessions, messages from change_counter where id = 1').get();
  function seeded(): RecallDatabase {
    const db = openDatabase(join(tempDir(), 'cc.db'));
    dbs.push(db);
    db.raw.prepare("insert into projects (id, name, slug) values ('p_1', 'P', 'p'), ('p_2', 'Q', 'q')").run();
    db.raw.prepare("insert into sessions (id, project_id, title) values ('s1', 'p_1', 't')").run();
    db.raw.prepare("insert into messages (session_id, role, content) values ('s1', 'user', 'hello'), ('s1', 'assistant', 'hi')").run();
    return db;
  }

  test.each([
    ['a visibility flip (rewind/delete)', "update messages set visibility = 'rewound' where session_id = 's1'", 'messages'],
    ['a content edit', "update messages set content = 'edited' where role = 'user'", 'messages'],
    ['a hard delete of a message', "delete from messages where role = 'user'", 'messages'],
    ['a project_id-only move', "update sessions set project_id = 'p_2' where id = 's1'", 'sessions'],
    ['a hide', "update sessions set hidden = 1 where id = 's1'", 'sessions'],
    ['a rename', "update sessions set title = 'renamed' where id = 's1'", 'sessions'],
    ['a project rename', "update projects set name = 'P2' where id = 'p_1'", 'projects'],
    ['a new folder', "insert into project_folders (project_id, path) values ('p_1', '/w')", 'projects'],
  ] as const)('%s moves its family counter', (_what, sql, family) => {
    const db = seeded();
    const before = counters(db) as Record<string, number>;
    db.raw.exec(sql);
    const after = counters(db) as Record<string, number>;
    expect(after[family]).toBeGreaterThan(before[family]!);
  });

  test.each([
    ['an append bumping only updated_at', "update sessions set updated_at = updated_at + 1 where id = 's1'"],
    ['branch bookkeeping (origin_message_id)', 'update messages set origin_message_id = 1'],
  ])('%s moves no counter', (_what, sql) => {
    const db = seeded();
    const before = counters(db);
    db.raw.exec(sql);
    expect(counters(db)).toEqual(before);
  });

  // Any AFTER INSERT trigger on these tables makes every insert of a bulk import a statement
  // transaction at which FTS5 flushes (docs/benchmarks.md): inserts are seen through the newest id.
  test.each(['messages', 'sessions'])('no insert trigger on %s', (table) => {
    const db = openDatabase(join(tempDir(), 'cc.db'));
    dbs.push(db);
    expect(db.raw.prepare("select name from sqlite_master where type = 'trigger' and tbl_name = ? and sql like '%AFTER INSERT%'").all(table)).toEqual([]);
  });

  test('upgrade: a database from before the migration gets the row and counts from then on', () => {
    const path = join(tempDir(), 'before.db');
    const old = openDatabase(path, { migrateUpTo: '0004_semantic_message_mark' });
    old.raw.prepare("insert into sessions (id, title) values ('s1', 't')").run();
    old.close();
    const db = openDatabase(path);
    dbs.push(db);
    expect(counters(db)).toEqual({ projects: 0, sessions: 0, messages: 0 });
    db.raw.exec("update sessions set title = 'u' where id = 's1'");
    expect(counters(db)).toEqual({ projects: 0, sessions: 1, messages: 0 });
  });
});

describe('profileDatabasePath', () => {
  test.each([
    ['default', true],
    ['work-2', true],
    ['a_b', true],
    ['../etc', false],
    ['', false],
    ['a/b', false],
    ['x'.repeat(65), false],
  ])('profile %j valid=%s', (name, valid) => {
    if (valid) expect(profileDatabasePath('/home', name)).toBe(`/home/profiles/${name}/recall.db`);
    else expect(() => profileDatabasePath('/home', name)).toThrow(InvalidProfileNameError);
  });
});
