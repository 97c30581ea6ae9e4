/**
 * The triggers of migration 0003_semantic_index, through the store's real write paths: edits delete
 * the message's chunks (all fingerprints), work is queued only for switched-on projects (new messages
 * by the discovery step over the message mark, everything else in the writing transaction), and the
 * per-project generation moves whenever a project's searchable vector set may change.
 */
import { appendMessage, compactMessages, createProject, createSession, deleteMessage, editMessage, rewindSession, setSessionProject, updateSession } from '@recall/store';
import { describe, expect, test } from 'vitest';
import type { RecallDatabase } from '@recall/schema';
import { discoverNewMessages } from '../src/sqlite/discovery.js';
import { tempDb } from './support/temp-db.js';

function setup() {
  const db = tempDb();
  const on = createProject(db, { name: 'On' });
  const off = createProject(db, { name: 'Off' });
  db.raw.prepare("insert into semantic_projects (project_id, enabled, endpoint) values (?, 1, 'local:use-lite')").run(on.id);
  db.raw.exec('delete from semantic_dirty_sessions');
  db.raw.prepare("insert into semantic_fingerprints (id, key, provider, endpoint, model, dims, chunker_version) values (1, 'k1', 'use-lite', 'local:use-lite', 'm', 2, 1), (2, 'k2', 'x', 'y', 'z', 2, 1)").run();
  return { db, on, off };
}

const dirty = (db: RecallDatabase) => (db.raw.prepare('select session_id from semantic_dirty_sessions order by session_id').pluck().all() as string[]);
const gen = (db: RecallDatabase, project: string) => (db.raw.prepare('select gen from semantic_generation where project_id = ?').pluck().get(project) as number | undefined) ?? 0;
function addChunk(db: RecallDatabase, fp: number, messageId: number, sessionId: string, status: 'pending' | 'ready' = 'ready') {
  db.raw
    .prepare("insert into semantic_chunks (fingerprint_id, message_id, session_id, chunk_index, start, \"end\", content_hash, chunker_version, vector, status) values (?, ?, ?, 0, 0, 1, 'h', 1, ?, ?)")
    .run(fp, messageId, sessionId, status === 'ready' ? Buffer.alloc(8) : null, status);
}
const chunks = (db: RecallDatabase, messageId: number) => db.raw.prepare('select count(*) from semantic_chunks where message_id = ?').pluck().get(messageId) as number;

describe('work discovery', () => {
  test.each([
    ['a message in a switched-on project', true],
    ['a message in a project never switched on', false],
  ])('%s → queued by the next discovery step: %s', (_label, queued) => {
    const { db, on, off } = setup();
    const s = createSession(db, { projectId: queued ? on.id : off.id });
    db.raw.exec('delete from semantic_dirty_sessions');
    const m = appendMessage(db, s.id, { role: 'user', content: 'hello' });
    // The write itself queues nothing (no insert trigger on messages: it would slow keyword ingest).
    expect(dirty(db)).toEqual([]);
    expect(discoverNewMessages(db)).toEqual({ sessionsQueued: queued ? 1 : 0, mark: m.id, more: false });
    expect(dirty(db)).toEqual(queued ? [s.id] : []);
  });

  test.each(['messages', 'sessions'])('no INSERT trigger on %s (it would make FTS5 flush its pending index at every insert: -30 %% ingest)', (table) => {
    const { db } = setup();
    expect(db.raw.prepare("select name from sqlite_master where type = 'trigger' and tbl_name = ? and upper(sql) like '% INSERT ON %'").all(table)).toEqual([]);
  });

  test('switching a project on queues its sessions; moving a session into it queues that session', () => {
    const { db, on, off } = setup();
    const a = createSession(db, { projectId: off.id });
    const b = createSession(db, { projectId: off.id });
    db.raw.prepare("insert into semantic_projects (project_id, enabled, endpoint) values (?, 1, 'local:use-lite')").run(off.id);
    expect(dirty(db)).toEqual([a.id, b.id].sort());
    db.raw.exec('delete from semantic_dirty_sessions');
    const c = createSession(db, { projectId: null });
    setSessionProject(db, c.id, on.id);
    expect(dirty(db)).toEqual([c.id]);
  });

  test('edits, visibility changes and hiding queue the session of a switched-on project', () => {
    const { db, on } = setup();
    const s = createSession(db, { projectId: on.id });
    const m = appendMessage(db, s.id, { role: 'user', content: 'one' });
    appendMessage(db, s.id, { role: 'assistant', content: 'two' });
    for (const write of [() => editMessage(db, m.id, 'one!'), () => deleteMessage(db, m.id), () => updateSession(db, s.id, { hidden: true })]) {
      db.raw.exec('delete from semantic_dirty_sessions');
      write();
      expect(dirty(db)).toEqual([s.id]);
    }
  });
});

describe('content invariant', () => {
  test('an edit deletes the message chunks of every fingerprint; other messages keep theirs', () => {
    const { db, off } = setup();
    const s = createSession(db, { projectId: off.id });
    const m = appendMessage(db, s.id, { role: 'user', content: 'one' });
    const n = appendMessage(db, s.id, { role: 'user', content: 'two' });
    addChunk(db, 1, m.id, s.id);
    addChunk(db, 2, m.id, s.id, 'pending');
    addChunk(db, 1, n.id, s.id);
    editMessage(db, m.id, 'one, edited');
    expect(chunks(db, m.id)).toBe(0);
    expect(chunks(db, n.id)).toBe(1);
  });

  test('an edit to the same text keeps the chunks', () => {
    const { db, off } = setup();
    const s = createSession(db, { projectId: off.id });
    const m = appendMessage(db, s.id, { role: 'user', content: 'same' });
    addChunk(db, 1, m.id, s.id);
    db.raw.prepare('update messages set content = content where id = ?').run(m.id);
    expect(chunks(db, m.id)).toBe(1);
  });
});

describe('generation', () => {
  test.each([
    ['a chunk becomes ready', (db: RecallDatabase, _s: string, m: number) => db.raw.prepare("update semantic_chunks set status = 'ready', vector = x'0000000000000000' where message_id = ?").run(m), 'pending' as const],
    ['a ready chunk is deleted by an edit', (db: RecallDatabase, _s: string, m: number) => editMessage(db, m, 'changed'), 'ready' as const],
    ['a message with chunks is deleted', (db: RecallDatabase, _s: string, m: number) => deleteMessage(db, m), 'ready' as const],
    ['a session is rewound', (db: RecallDatabase, s: string, m: number) => rewindSession(db, s, m - 1), 'ready' as const],
    ['messages are compacted', (db: RecallDatabase, s: string, m: number) => compactMessages(db, s, m), 'ready' as const],
    ['the session is hidden', (db: RecallDatabase, s: string) => updateSession(db, s, { hidden: true }), 'ready' as const],
  ])('moves when %s', (_label, write, status) => {
    const { db, off } = setup();
    const s = createSession(db, { projectId: off.id });
    appendMessage(db, s.id, { role: 'user', content: 'zero' });
    const m = appendMessage(db, s.id, { role: 'user', content: 'one' });
    addChunk(db, 1, m.id, s.id, status);
    const before = gen(db, off.id);
    write(db, s.id, m.id);
    expect(gen(db, off.id)).toBeGreaterThan(before);
  });

  test('a move bumps the old and the new project; no chunks = no bump', () => {
    const { db, on, off } = setup();
    const s = createSession(db, { projectId: off.id });
    const m = appendMessage(db, s.id, { role: 'user', content: 'one' });
    const quiet = createSession(db, { projectId: off.id });
    const [g0on, g0off] = [gen(db, on.id), gen(db, off.id)];
    setSessionProject(db, quiet.id, on.id);
    expect([gen(db, on.id), gen(db, off.id)]).toEqual([g0on, g0off]);
    addChunk(db, 1, m.id, s.id);
    const [g1on, g1off] = [gen(db, on.id), gen(db, off.id)];
    setSessionProject(db, s.id, on.id);
    expect(gen(db, on.id)).toBeGreaterThan(g1on);
    expect(gen(db, off.id)).toBeGreaterThan(g1off);
  });
});
