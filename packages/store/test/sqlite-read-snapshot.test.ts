/**
 * The SQLite adapter's read transactions: a whole read scope (one session_search) on a read-only
 * connection reads one snapshot, even when another connection commits while it awaits; it ends with
 * the scope whether that resolves or throws; a read-write connection never holds a transaction
 * across an await (a write made meanwhile is committed at once); batch reads leave none open.
 * Real files, two real connections.
 */
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { afterEach, describe, expect, test } from 'vitest';
import { appendMessage, createProject, createSession, sqliteStorage } from '../src/index.js';
import { tempDb } from './support/temp-db.js';

const readers: RecallDatabase[] = [];
afterEach(() => {
  for (const r of readers.splice(0)) r.close();
});

function fixture() {
  const writer = tempDb();
  const project = createProject(writer, { name: 'P' });
  const session = createSession(writer, { projectId: project.id });
  const first = appendMessage(writer, session.id, { role: 'user', content: 'first' });
  const reader = openDatabase(writer.path, { readonly: true });
  readers.push(reader);
  return { writer, reader, project, session, first };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('withReadScope on a read-only connection', () => {
  test('reads one snapshot while another connection commits in between', async () => {
    const { writer, reader, project, session } = fixture();
    const storage = sqliteStorage(reader);
    const seen = await storage.withReadScope!({ kind: 'project', projectId: project.id }, async (scoped) => {
      const before = (await scoped.messages.list(session.id)).length;
      await tick();
      appendMessage(writer, session.id, { role: 'assistant', content: 'second' });
      await tick();
      const after = (await scoped.messages.list(session.id)).length;
      const many = await scoped.messages.findMany([1, 2, 3]);
      return { before, after, many: many.size, open: reader.raw.inTransaction };
    });
    expect(seen).toEqual({ before: 1, after: 1, many: 1, open: true });
    expect(reader.raw.inTransaction).toBe(false);
    expect((await storage.messages.list(session.id)).map((m) => m.content)).toEqual(['first', 'second']);
  });

  const cases: [string, () => Promise<string>, string][] = [
    ['resolves', async () => 'done', 'done'],
    ['rejects', async () => Promise.reject(Object.assign(new Error('boom'), { code: 'session_not_found' })), 'session_not_found'],
    [
      'throws synchronously',
      (): Promise<string> => {
        throw Object.assign(new Error('sync'), { code: 'validation_error' });
      },
      'validation_error',
    ],
  ];
  test.each(cases)('ends its transaction when the scope %s', async (_name, fn, expected) => {
    const { reader, project } = fixture();
    const storage = sqliteStorage(reader);
    // (async () => …)() turns a synchronous throw into a rejection, so every row reads the same way.
    const outcome = await (async () => storage.withReadScope!({ kind: 'project', projectId: project.id }, fn))().then(
      (value) => value,
      (error: { code?: string }) => error.code,
    );
    expect(outcome).toBe(expected);
    expect(reader.raw.inTransaction).toBe(false);
  });

  test('a scope inside a scope runs in the outer snapshot and leaves ending it to the outer one', async () => {
    const { writer, reader, project, session } = fixture();
    const storage = sqliteStorage(reader);
    const counts = await storage.withReadScope!({ kind: 'project', projectId: project.id }, async (outer) => {
      // The snapshot starts at the first read (BEGIN DEFERRED), as with any SQLite read transaction.
      await outer.sessions.findRecord(session.id);
      const inner = await outer.withReadScope!({ kind: 'project', projectId: project.id }, async (scoped) => {
        appendMessage(writer, session.id, { role: 'assistant', content: 'second' });
        return (await scoped.messages.list(session.id)).length;
      });
      return { inner, stillOpen: reader.raw.inTransaction, outer: (await outer.messages.list(session.id)).length };
    });
    expect(counts).toEqual({ inner: 1, stillOpen: true, outer: 1 });
    expect(reader.raw.inTransaction).toBe(false);
  });
});

describe('the read-write connection', () => {
  test('withReadScope holds no transaction across an await: a write made meanwhile is committed at once', async () => {
    const { writer, reader, project, session } = fixture();
    const storage = sqliteStorage(writer);
    const inside = await storage.withReadScope!({ kind: 'project', projectId: project.id }, async (scoped) => {
      await tick();
      const open = writer.raw.inTransaction;
      await scoped.messages.append(session.id, [{ role: 'assistant', content: 'second' }]);
      // Another connection sees it before the scope has ended.
      const fromOutside = reader.raw.prepare('select count(*) from messages').pluck().get();
      return { open, fromOutside };
    });
    expect(inside).toEqual({ open: false, fromOutside: 2 });
  });

  test.each([
    ['messages.findMany', (s: ReturnType<typeof sqliteStorage>, x: ReturnType<typeof fixture>) => s.messages.findMany([x.first.id, x.first.id, 999])],
    ['sessions.findRecords', (s: ReturnType<typeof sqliteStorage>, x: ReturnType<typeof fixture>) => s.sessions.findRecords([x.session.id, 'nope'])],
    ['sessions.conversationRoots', (s: ReturnType<typeof sqliteStorage>, x: ReturnType<typeof fixture>) => s.sessions.conversationRoots([x.session.id, 'nope'])],
    ['sessions.segmentsOf', (s: ReturnType<typeof sqliteStorage>, x: ReturnType<typeof fixture>) => s.sessions.segmentsOf([x.session.id, 'nope'])],
  ])('%s answers the known ids and leaves no transaction open', async (_name, read) => {
    const x = fixture();
    const storage = sqliteStorage(x.writer);
    const out = await read(storage, x);
    expect(out.size).toBe(1);
    expect(x.writer.raw.inTransaction).toBe(false);
  });

  test('messages.windows leaves no transaction open, also when a window fails', async () => {
    const x = fixture();
    const storage = sqliteStorage(x.writer);
    const ok = await storage.messages.windows([{ sessionId: x.session.id, anchorId: x.first.id, before: 1, after: 1 }]);
    expect(ok.map((w) => w.messages.length)).toEqual([1]);
    const failed = await storage.messages.windows([{ sessionId: x.session.id, anchorId: 999, before: 1, after: 1 }]).then(
      () => 'resolved',
      (error: { code?: string }) => error.code,
    );
    expect(failed).toBe('message_not_found');
    expect(x.writer.raw.inTransaction).toBe(false);
  });
});
