/**
 * Work discovery for new messages by the message high-water mark (discovery.ts, migration 0004),
 * on real SQLite files through the store's write paths and the real pipeline (SemanticIndex with
 * the test-only deterministic embedder): a write queues nothing; the next run finds and indexes
 * new messages of switched-on projects only; older messages reach the index through enable and
 * moves; ids are never reused, so nothing can hide below the mark; a home made before 0004 keeps
 * the work its insert trigger had queued.
 */
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { appendMessage, createProject, createSession, setSessionProject } from '@recall/store';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseSemanticConfig, type SemanticIndex, type SemanticConfig } from '../src/index.js';
import { sqliteSemanticIndex } from '../src/sqlite/index.js';
import { discoverNewMessages, messageMark } from '../src/sqlite/discovery.js';
import { openAgain, tempDb, tempDir } from './support/temp-db.js';
import { testEmbedder, type TestEmbedder } from './support/test-embedder.js';

const config = (): SemanticConfig =>
  parseSemanticConfig({ enabled: true, provider: 'openai-compatible', endpoint: 'http://127.0.0.1:1/v1', model: 'test-hash', dims: 16, maxInputTokens: 64 })!;

function setup(db: RecallDatabase = tempDb(), provider: TestEmbedder = testEmbedder()) {
  const index = sqliteSemanticIndex({ db, config: config(), provider });
  const on = createProject(db, { name: 'On' });
  const off = createProject(db, { name: 'Off' });
  return { db, index, provider, on, off };
}

const dirty = (db: RecallDatabase) => db.raw.prepare('select session_id from semantic_dirty_sessions order by session_id').pluck().all() as string[];
const chunkStatus = (db: RecallDatabase, messageId: number) =>
  db.raw.prepare('select status from semantic_chunks where message_id = ? order by chunk_index').pluck().all(messageId) as string[];

describe('new messages are found by the mark, not by a trigger', () => {
  test('append after enable: the write queues nothing, status says planning, the next run indexes it', async () => {
    const { db, index, provider, on } = setup();
    const s = createSession(db, { projectId: on.id });
    appendMessage(db, s.id, { role: 'user', content: 'before the backfill' });
    await index.enable(on.id);
    await index.run();
    expect(dirty(db)).toEqual([]);

    const m = appendMessage(db, s.id, { role: 'user', content: 'appended after enable' });
    expect(dirty(db)).toEqual([]);
    expect(messageMark(db)).toBeLessThan(m.id);
    expect(await index.status(on.id)).toMatchObject({ status: 'partial', reason: 'planning', eligible: 'unknown', queuedSessions: 1 });
    expect(await index.run()).toMatchObject({ completed: true, written: 1 });
    expect(chunkStatus(db, m.id)).toEqual(['ready']);
    expect(messageMark(db)).toBe(m.id);
    expect(provider.texts().filter((t) => t === 'appended after enable')).toHaveLength(1);
    expect(await index.status(on.id)).toMatchObject({ status: 'ready', eligible: 2, ready: 2, queuedSessions: 0 });
  });

  test.each([
    ['never switched on', false],
    ['switched off again', true],
  ])('append to a project %s: no work queued, nothing planned or sent, the mark moves past it', async (_label, wasOn) => {
    const { db, index, provider, off } = setup();
    const s = createSession(db, { projectId: off.id });
    if (wasOn) {
      await index.enable(off.id);
      await index.run();
      await index.disable(off.id);
    }
    const m = appendMessage(db, s.id, { role: 'user', content: 'SECRET of a project that is not switched on' });
    expect(await index.status(off.id)).toMatchObject({ status: 'disabled', queuedSessions: 0 });
    await index.run();
    expect(dirty(db)).toEqual([]);
    expect(chunkStatus(db, m.id)).toEqual([]);
    expect(provider.texts().some((t) => t.includes('SECRET'))).toBe(false);
    expect(messageMark(db)).toBe(m.id);
  });

  test('messages written before their project was switched on are indexed on enable', async () => {
    const { db, index, on } = setup();
    const s = createSession(db, { projectId: on.id });
    const old = appendMessage(db, s.id, { role: 'user', content: 'written while the project was off' });
    expect(discoverNewMessages(db)).toMatchObject({ sessionsQueued: 0, mark: old.id });
    await index.enable(on.id);
    expect(await index.run()).toMatchObject({ completed: true, written: 1 });
    expect(chunkStatus(db, old.id)).toEqual(['ready']);
  });

  test('moving an older session (all its ids below the mark) into a switched-on project queues and indexes it', async () => {
    const { db, index, provider, on, off } = setup();
    await index.enable(on.id);
    const s = createSession(db, { projectId: off.id });
    const old = appendMessage(db, s.id, { role: 'user', content: 'older message moved later' });
    await index.run();
    expect(messageMark(db)).toBeGreaterThanOrEqual(old.id);
    expect(chunkStatus(db, old.id)).toEqual([]);
    setSessionProject(db, s.id, on.id);
    expect(dirty(db)).toEqual([s.id]);
    await index.run();
    expect(chunkStatus(db, old.id)).toEqual(['ready']);
    expect(provider.texts()).toContain('older message moved later');
  });

  test('ids are never reused (AUTOINCREMENT): after the newest messages are deleted, a new message still lands above the mark', async () => {
    const { db, index, on } = setup();
    await index.enable(on.id);
    const gone = createSession(db, { projectId: on.id });
    const last = appendMessage(db, gone.id, { role: 'user', content: 'the newest message, then deleted' });
    await index.run();
    expect(messageMark(db)).toBe(last.id);
    // A hard delete of the session removes its messages (the highest ids) and their chunks.
    db.raw.prepare('delete from sessions where id = ?').run(gone.id);
    expect(db.raw.prepare('select max(id) from messages').pluck().get()).toBeNull();
    const s = createSession(db, { projectId: on.id });
    const next = appendMessage(db, s.id, { role: 'user', content: 'written after the delete' });
    expect(next.id).toBeGreaterThan(last.id);
    expect(await index.run()).toMatchObject({ completed: true, written: 1 });
    expect(chunkStatus(db, next.id)).toEqual(['ready']);
  });

  test('a large backlog is discovered in bounded steps; every switched-on session is queued once', async () => {
    const { db, index, on, off } = setup();
    await index.enable(on.id);
    const sessions = [on, off, on, off, on].map((p) => createSession(db, { projectId: p.id }));
    let lastId = 0;
    for (let i = 0; i < 25; i++) lastId = appendMessage(db, sessions[i % 5]!.id, { role: 'user', content: `backlog ${i}` }).id;
    db.raw.exec('delete from semantic_dirty_sessions');
    const steps = [];
    for (let i = 0; i < 5; i++) steps.push(discoverNewMessages(db, { maxMessages: 10 }));
    expect(steps.map((r) => r.more)).toEqual([true, true, false, false, false]);
    expect(steps[2]!.mark).toBe(lastId);
    expect(dirty(db)).toEqual([sessions[0]!.id, sessions[2]!.id, sessions[4]!.id].sort());
  });
});

describe('upgrade from 0003 (insert trigger) to 0004 (mark)', () => {
  test('work queued by the old trigger survives, the trigger is gone, and later messages are found by the mark', async () => {
    const dir = tempDir();
    const path = join(dir, 'recall.db');
    const before = openDatabase(path, { migrateUpTo: '0003_semantic_index' });
    const p = createProject(before, { name: 'Enabled before the upgrade' });
    before.raw.prepare("insert into semantic_projects (project_id, enabled, endpoint) values (?, 1, 'http://127.0.0.1:1/v1')").run(p.id);
    const s = createSession(before, { projectId: p.id });
    // Written as a 0003 database was written (the row alone, its insert trigger queues the session):
    // today's store code expects the later migrations' tables, which this file does not have yet.
    const m1 = {
      id: Number(
        before.raw.prepare("insert into messages (session_id, role, content, created_at) values (?, 'user', 'queued by the 0003 insert trigger', ?)").run(s.id, Date.now()).lastInsertRowid,
      ),
    };
    expect(before.raw.prepare('select session_id from semantic_dirty_sessions').pluck().all()).toEqual([s.id]);
    before.close();

    const db = openAgain(path);
    expect(db.raw.prepare("select count(*) from sqlite_master where type = 'trigger' and name = 'messages_semantic_ai'").pluck().get()).toBe(0);
    expect(messageMark(db)).toBe(m1.id);
    expect(dirty(db)).toEqual([s.id]);
    const { index } = setup(db);
    expect(await index.run()).toMatchObject({ completed: true, written: 1 });
    const m2 = appendMessage(db, s.id, { role: 'user', content: 'written after the upgrade' });
    expect(await index.run()).toMatchObject({ completed: true, written: 1 });
    expect([...chunkStatus(db, m1.id), ...chunkStatus(db, m2.id)]).toEqual(['ready', 'ready']);
  });
});
