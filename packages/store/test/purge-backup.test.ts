/**
 * Deleting for real and backing up: a hard-deleted conversation leaves no byte of its text in the
 * database file, its `-wal`/`-shm` or a backup made afterwards (checked by scanning raw bytes, with
 * a control that finds the marker before the delete), a project delete without its conversations is
 * refused, hidden messages can be purged, and backups (with and without the derived index) restore
 * to the same rows with the index rebuilt.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import {
  appendMessages,
  backupDatabase,
  createContinuation,
  createDelegation,
  createProject,
  createSession,
  deleteConversation,
  deleteMessage,
  inspectDatabaseFile,
  keywordSearch,
  purgeHiddenMessages,
  purgeProject,
  restoreDatabaseFile,
  rewindSession,
} from '../src/index.js';
import { countRows, openAgain, tempDb, tempDir } from './support/temp-db.js';

function markers(): { en: string; zh: string; needles: Buffer[] } {
  const hex = randomBytes(12).toString('hex');
  const en = `zq${hex}`;
  const zh = '獬豸貔貅饕餮';
  // The FTS index stores terms, not the text: lower-case words and CJK bigrams. Search for both.
  return { en, zh, needles: [Buffer.from(en.slice(0, 16)), Buffer.from(zh), Buffer.from('獬豸'), Buffer.from('饕餮')] };
}

function filesOf(path: string): string[] {
  return [path, `${path}-wal`, `${path}-shm`].filter((f) => existsSync(f));
}

function found(files: readonly string[], needles: readonly Buffer[]): string[] {
  const hits: string[] = [];
  for (const file of files) {
    const bytes = readFileSync(file);
    for (const needle of needles) if (bytes.includes(needle)) hits.push(`${file}: ${needle.toString('utf8')}`);
  }
  return hits;
}

function addChunks(db: RecallDatabase, sessionId: string): void {
  db.raw.prepare("insert or ignore into semantic_fingerprints (id, key, provider, endpoint, model, dims, chunker_version) values (1, 'k', 'test', 'local', 'm', 4, 1)").run();
  const ids = db.raw.prepare('select id from messages where session_id = ?').pluck().all(sessionId) as number[];
  const insert = db.raw.prepare("insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, end, content_hash, chunker_version, vector, status) values (1, ?, ?, 0, 0, 1, 'h', 1, ?, 'ready')");
  for (const id of ids) insert.run(id, sessionId, Buffer.from(new Float32Array([0.5, 0.5, 0.5, 0.5]).buffer));
}

/** A project with a three-segment conversation (root, continuation, delegation) holding the markers, and another conversation that stays. */
function seed(db: RecallDatabase) {
  const m = markers();
  const p = createProject(db, { name: 'Secrets' });
  const root = createSession(db, { projectId: p.id, title: `plan ${m.en}`, messages: [{ role: 'user', content: `the key is ${m.en} 以及 ${m.zh}` }] });
  const cont = createContinuation(db, root.id, { note: `carry ${m.en}` }).session;
  const child = createDelegation(db, cont.id);
  appendMessages(db, child.id, [{ role: 'assistant', content: `sub-agent saw ${m.zh}` }]);
  const keep = createSession(db, { projectId: p.id, title: 'keep', messages: [{ role: 'user', content: 'ordinary words stay searchable' }] });
  addChunks(db, root.id);
  addChunks(db, keep.id);
  // Plenty of other rows so the index has several segments and pages.
  for (let i = 0; i < 20; i++) appendMessages(db, keep.id, Array.from({ length: 50 }, (_, j) => ({ role: 'user' as const, content: `filler ${i} ${j} ${randomBytes(8).toString('hex')} 普通的话` })));
  return { m, p, root, cont, child, keep };
}

describe('hard delete', () => {
  test('a deleted conversation leaves no trace of its text in the database, -wal, -shm or a later backup', () => {
    const dir = tempDir();
    const db = tempDb('recall.db', dir);
    const { m, p, root, child, keep } = seed(db);
    db.raw.pragma('wal_checkpoint(PASSIVE)');
    expect(found(filesOf(db.path), m.needles).length).toBeGreaterThan(0); // the control: the scan can see it
    expect(keywordSearch(db, { kind: 'project', projectId: p.id }, m.en).hits.length).toBeGreaterThan(0);

    const result = deleteConversation(db, child.id); // any segment names the whole conversation
    expect(result.sessionIds).toHaveLength(3);
    expect(result.sessionIds[0]).toBe(root.id);
    expect(result.messages).toBe(3);
    expect(result.scrubbed).toBe(true);
    expect(countRows(db, 'sessions')).toBe(1);
    expect(db.raw.prepare('select count(*) from semantic_chunks where session_id = ?').pluck().get(root.id)).toBe(0);
    expect(db.raw.prepare('select count(*) from semantic_chunks where session_id = ?').pluck().get(keep.id)).toBeGreaterThan(0);
    expect(keywordSearch(db, { kind: 'project', projectId: p.id }, m.en).hits).toHaveLength(0);
    expect(keywordSearch(db, { kind: 'project', projectId: p.id }, 'ordinary').hits).toHaveLength(1);

    const backup = join(dir, 'after.db');
    backupDatabase(db, backup);
    const lean = join(dir, 'after-lean.db');
    backupDatabase(db, lean, { withoutIndex: true });
    expect(found([...filesOf(db.path), backup, lean], m.needles)).toEqual([]);
    db.close();
    expect(found(filesOf(db.path), m.needles)).toEqual([]);
  });

  test('a project is deleted with its conversations only when asked; its text goes too', () => {
    const dir = tempDir();
    const db = tempDb('recall.db', dir);
    const { m, p } = seed(db);
    const other = createProject(db, { name: 'Other' });
    createSession(db, { projectId: other.id, messages: [{ role: 'user', content: 'unrelated' }] });
    expect(() => purgeProject(db, p.id)).toThrow(expect.objectContaining({ code: 'project_has_sessions', details: expect.objectContaining({ sessionCount: 4 }) }));
    expect(countRows(db, 'sessions')).toBe(5);
    const result = purgeProject(db, p.id, { withConversations: true });
    expect(result.sessionIds).toHaveLength(4);
    expect(countRows(db, 'projects')).toBe(1);
    expect(countRows(db, 'sessions')).toBe(1);
    expect(found(filesOf(db.path), m.needles)).toEqual([]);
    expect(() => purgeProject(db, p.id)).toThrow(expect.objectContaining({ code: 'project_not_found' }));
  });

  test('an empty project is deleted without the flag', () => {
    const db = tempDb();
    const p = createProject(db, { name: 'Empty' });
    expect(purgeProject(db, p.id)).toMatchObject({ sessionIds: [], messages: 0, projectIds: [p.id] });
    expect(countRows(db, 'projects')).toBe(0);
  });

  test('rewound and soft-deleted messages stay stored until purged; live ones stay after', () => {
    const dir = tempDir();
    const db = tempDb('recall.db', dir);
    const m = markers();
    const s = createSession(db, { messages: [{ role: 'user', content: 'keep me' }, { role: 'assistant', content: `rewound ${m.en}` }, { role: 'user', content: `deleted ${m.zh}` }] });
    const [keep, rewound, gone] = db.raw.prepare('select id from messages order by id').pluck().all() as number[];
    deleteMessage(db, gone!);
    rewindSession(db, s.id, keep!);
    void rewound;
    db.raw.pragma('wal_checkpoint(PASSIVE)');
    expect(found(filesOf(db.path), m.needles).length).toBeGreaterThan(0); // soft deletes and rewinds keep the text
    const result = purgeHiddenMessages(db, s.id);
    expect(result.messages).toBe(2);
    expect(countRows(db, 'messages')).toBe(1);
    expect(found(filesOf(db.path), m.needles)).toEqual([]);
  });
});

describe('backup and restore', () => {
  test.each([false, true])('withoutIndex=%s: restore gives the same rows and a working keyword index', (withoutIndex) => {
    const dir = tempDir();
    const db = tempDb('recall.db', dir);
    const { p, keep } = seed(db);
    const backup = join(dir, 'b.db');
    const result = backupDatabase(db, backup, { withoutIndex });
    expect(existsSync(`${backup}-wal`)).toBe(false);
    const summary = inspectDatabaseFile(backup);
    expect(summary).toMatchObject({ projects: 1, sessions: 4, keywordIndex: !withoutIndex, semanticChunks: withoutIndex ? 0 : 2 });
    expect(summary.messages).toBe(countRows(db, 'messages'));
    expect(result.bytes).toBeGreaterThan(0);
    expect(() => backupDatabase(db, backup)).toThrow(expect.objectContaining({ code: 'backup_target_exists' }));

    const target = join(tempDir(), 'profiles', 'x', 'recall.db');
    const restored = restoreDatabaseFile(backup, target);
    expect(restored.replaced).toBeNull();
    expect(restored.reindexed).toBe(withoutIndex ? summary.messages : 0);
    const again = openAgain(target);
    const rows = (d: RecallDatabase) => d.raw.prepare('select id, session_id, role, content, visibility, created_at from messages order by id').all();
    expect(rows(again)).toEqual(rows(db));
    expect(keywordSearch(again, { kind: 'project', projectId: p.id }, 'ordinary').hits.map((h) => h.sessionId)).toEqual([keep.id]);
    if (withoutIndex) expect(again.raw.prepare('select planned_fingerprint_id from semantic_projects').all()).toEqual([]);
  });

  test('restore refuses a newer profile without force, bad files with stable codes', () => {
    const dir = tempDir();
    const db = tempDb('recall.db', dir);
    seed(db);
    const backup = join(dir, 'b.db');
    backupDatabase(db, backup);
    createSession(db, { title: 'newer', createdAt: Date.now() + 60_000, startedAt: Date.now() + 60_000 } as never);
    db.close();
    expect(() => restoreDatabaseFile(backup, db.path)).toThrow(expect.objectContaining({ code: 'restore_target_newer' }));
    const forced = restoreDatabaseFile(backup, db.path, { force: true });
    expect(forced.replaced?.sessions).toBe(5);
    const back = openDatabase(db.path);
    expect(countRows(back, 'sessions')).toBe(4);
    back.close();

    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'hello, not a database at all');
    expect(() => restoreDatabaseFile(text, db.path)).toThrow(expect.objectContaining({ code: 'backup_invalid', details: expect.objectContaining({ reason: 'not_sqlite' }) }));
    const foreign = openDatabase(join(dir, 'foreign.db'));
    foreign.raw.exec('drop table messages_fts; drop table messages; drop table sessions');
    foreign.close();
    expect(() => inspectDatabaseFile(join(dir, 'foreign.db'))).toThrow(expect.objectContaining({ code: 'backup_invalid', details: expect.objectContaining({ reason: 'not_recall' }) }));
    const newer = openDatabase(join(dir, 'newer.db'));
    newer.raw.prepare("insert into __drizzle_migrations (hash, created_at) values ('f00d', 9999999999999)").run();
    newer.close();
    expect(() => inspectDatabaseFile(join(dir, 'newer.db'))).toThrow(expect.objectContaining({ code: 'backup_schema_unknown' }));
  });

  test('a damaged file fails the integrity check', () => {
    const dir = tempDir();
    const db = tempDb('recall.db', dir);
    seed(db);
    const backup = join(dir, 'b.db');
    backupDatabase(db, backup);
    const bytes = readFileSync(backup);
    // Scribble over the middle of the file (b-tree pages), keep the header.
    for (let i = Math.floor(bytes.length / 2); i < Math.floor(bytes.length / 2) + 8192; i++) bytes[i] = 0x5a;
    writeFileSync(backup, bytes);
    expect(() => inspectDatabaseFile(backup)).toThrow(expect.objectContaining({ code: 'backup_invalid' }));
  });
});
