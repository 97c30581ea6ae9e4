/**
 * Lineage rules: compression continuations share and follow their conversation's project;
 * branches and resets inherit once and then live independently; delegation children are hidden
 * and move with their parent conversation.
 */
import { describe, expect, test } from 'vitest';
import {
  appendMessage,
  archiveProject,
  createBranch,
  createContinuation,
  createDelegation,
  createProject,
  createReset,
  createSession,
  getMessages,
  getSession,
  findSession,
  listSessions,
  logicalConversationIds,
  ownHistorySessionIds,
  setSessionProject,
  upsertSession,
} from '../src/index.js';
import { tempDb } from './support/temp-db.js';

function setup() {
  const db = tempDb();
  const p = createProject(db, { name: 'P' });
  const q = createProject(db, { name: 'Q' });
  const root = createSession(db, { projectId: p.id, title: 'root', cwd: '/p' });
  appendMessage(db, root.id, { role: 'user', content: 'one' });
  const two = appendMessage(db, root.id, { role: 'assistant', content: 'two' });
  appendMessage(db, root.id, { role: 'user', content: 'three' });
  return { db, p, q, root, two };
}

describe('compression continuation', () => {
  test('inherits the source project, ends the source, carries the note', () => {
    const { db, p, root } = setup();
    const { previous, session } = createContinuation(db, root.id, { note: 'Summary so far' });
    expect(previous).toMatchObject({ endReason: 'compression' });
    expect(previous.endedAt).not.toBeNull();
    expect(session).toMatchObject({ projectId: p.id, parentSessionId: root.id, lineage: 'compression', cwd: '/p', title: 'root' });
    expect(getMessages(db, session.id).map((m) => [m.role, m.content])).toEqual([['system', 'Summary so far']]);
  });

  test('moves with its logical conversation, whichever member is moved', () => {
    const { db, q, root } = setup();
    const c1 = createContinuation(db, root.id).session;
    const c2 = createContinuation(db, c1.id).session;
    expect(logicalConversationIds(db, c2.id).sort()).toEqual([root.id, c1.id, c2.id].sort());
    const result = setSessionProject(db, c1.id, q.id);
    expect(result.sessionIds.sort()).toEqual([root.id, c1.id, c2.id].sort());
    for (const id of [root.id, c1.id, c2.id]) expect(getSession(db, id).projectId).toBe(q.id);
  });

  test('a continuation created after a move reads the new project (no stale copy)', () => {
    const { db, q, root } = setup();
    setSessionProject(db, root.id, q.id);
    expect(createContinuation(db, root.id).session.projectId).toBe(q.id);
  });

  test('a compression child cannot be created into a different project than its conversation', () => {
    const { db, q, root } = setup();
    expect(() => createSession(db, { parentSessionId: root.id, lineage: 'compression', projectId: q.id })).toThrow(
      expect.objectContaining({ code: 'invalid_lineage' }),
    );
  });
});

describe('branch', () => {
  test('inherits the project at creation, copies history up to a message, then moves independently', () => {
    const { db, p, q, root, two } = setup();
    const branch = createBranch(db, root.id, { fromMessageId: two.id });
    expect(branch).toMatchObject({ projectId: p.id, lineage: 'branch', parentSessionId: root.id });
    expect(getMessages(db, branch.id).map((m) => m.content)).toEqual(['one', 'two']);
    setSessionProject(db, branch.id, q.id);
    expect(getSession(db, root.id).projectId).toBe(p.id);
    setSessionProject(db, root.id, null);
    expect(getSession(db, branch.id).projectId).toBe(q.id);
    expect(logicalConversationIds(db, root.id)).toEqual([root.id]);
  });

  test('each copied message records the message it was copied from (origin_message_id)', () => {
    const { db, root, two } = setup();
    const branch = createBranch(db, root.id, { fromMessageId: two.id });
    const source = getMessages(db, root.id);
    const rows = db.raw.prepare('select content, origin_message_id as origin from messages where session_id = ? order by id').all(branch.id);
    expect(rows).toEqual([
      { content: 'one', origin: source[0]!.id },
      { content: 'two', origin: two.id },
    ]);
    expect(db.raw.prepare('select count(*) as n from messages where session_id = ? and origin_message_id is not null').get(root.id)).toEqual({ n: 0 });
  });

  test('refuses a fork point that is not a visible message of the source', () => {
    const { db, root } = setup();
    expect(() => createBranch(db, root.id, { fromMessageId: 999_999 })).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });
});

describe('reset / new', () => {
  test('inherits the project at creation and does not follow later moves of the old conversation', () => {
    const { db, p, q, root } = setup();
    const fresh = createReset(db, root.id);
    expect(fresh).toMatchObject({ projectId: p.id, lineage: 'reset', messageCount: 0 });
    setSessionProject(db, root.id, q.id);
    expect(getSession(db, fresh.id).projectId).toBe(p.id);
    setSessionProject(db, fresh.id, null);
    expect(getSession(db, root.id).projectId).toBe(q.id);
  });
});

describe('delegation', () => {
  test('children are hidden, share the project and move with the parent conversation', () => {
    const { db, p, q, root } = setup();
    const child = createDelegation(db, root.id, { title: 'sub-agent' });
    expect(child).toMatchObject({ projectId: p.id, hidden: true, lineage: 'delegation' });
    expect(listSessions(db, { projectId: p.id }).map((s) => s.id)).toEqual([root.id]);
    setSessionProject(db, root.id, q.id);
    expect(getSession(db, child.id).projectId).toBe(q.id);
    const cont = createContinuation(db, root.id).session;
    const grandchild = createDelegation(db, cont.id);
    setSessionProject(db, grandchild.id, null);
    for (const id of [root.id, child.id, cont.id, grandchild.id]) expect(getSession(db, id).projectId).toBeNull();
  });
});

describe('own history of a project-less conversation', () => {
  test('is the compression chain only: no branches, resets or delegations', () => {
    const db = tempDb();
    const root = createSession(db, {});
    const cont = createContinuation(db, root.id).session;
    const cont2 = createContinuation(db, cont.id).session;
    createBranch(db, cont.id);
    createReset(db, cont2.id);
    createDelegation(db, cont2.id);
    expect(ownHistorySessionIds(db, cont2.id).sort()).toEqual([root.id, cont.id, cont2.id].sort());
  });
});

describe('archived project (archive keeps ownership; only brand-new conversations are refused)', () => {
  // Decision (seed §4.1/§4.2): compression and delegation are the same logical conversation; a
  // branch copies that conversation's history, so it inherits like a continuation. A reset (/new) is
  // an empty new conversation and is refused like a root, as is a branch into another archived project.
  test.each([
    ['compression', (db: ReturnType<typeof tempDb>, id: string) => createContinuation(db, id).session],
    ['delegation', (db: ReturnType<typeof tempDb>, id: string) => createDelegation(db, id)],
    ['branch', (db: ReturnType<typeof tempDb>, id: string) => createBranch(db, id)],
  ] as const)('a %s of a conversation in an archived project stays in it', (_kind, create) => {
    const { db, p, root } = setup();
    archiveProject(db, p.id);
    const child = create(db, root.id);
    expect(child.projectId).toBe(p.id);
  });

  test.each([
    ['reset', (db: ReturnType<typeof tempDb>, id: string) => createReset(db, id, { id: 'refused' })],
    ['root', (db: ReturnType<typeof tempDb>, _id: string, projectId: string) => createSession(db, { id: 'refused', projectId })],
  ] as const)('a %s (brand-new conversation) into an archived project is refused and writes nothing', (_kind, create) => {
    const { db, p, root } = setup();
    archiveProject(db, p.id);
    expect(() => create(db, root.id, p.id)).toThrow(expect.objectContaining({ code: 'project_archived' }));
    expect(findSession(db, 'refused')).toBeUndefined();
  });

  test('a branch or reset may leave the archived project for an active one', () => {
    const { db, p, q, root } = setup();
    archiveProject(db, p.id);
    expect(createSession(db, { parentSessionId: root.id, lineage: 'branch', projectId: q.id }).projectId).toBe(q.id);
    expect(createSession(db, { parentSessionId: root.id, lineage: 'reset', projectId: q.id }).projectId).toBe(q.id);
  });

  test('a branch into a different archived project is refused', () => {
    const { db, p, q, root } = setup();
    archiveProject(db, q.id);
    expect(() => createSession(db, { parentSessionId: root.id, lineage: 'branch', projectId: q.id })).toThrow(expect.objectContaining({ code: 'project_archived' }));
    expect(getSession(db, root.id).projectId).toBe(p.id);
  });
});

describe('compressing twice', () => {
  test('a session that already continues elsewhere refuses a second compression with a typed error and writes nothing', () => {
    const { db, root } = setup();
    const first = createContinuation(db, root.id).session;
    const before = db.raw.prepare('select count(*) from sessions').pluck().get();
    expect(() => createContinuation(db, root.id, { id: 'fork' })).toThrow(
      expect.objectContaining({ code: 'session_already_compressed', details: { sessionId: root.id, continuationId: first.id } }),
    );
    expect(db.raw.prepare('select count(*) from sessions').pluck().get()).toBe(before);
    // The conversation goes on in the continuation, which compresses normally.
    expect(createContinuation(db, first.id).session.parentSessionId).toBe(first.id);
  });

  // Every writer of a compression child meets the same rule (importers and sync create sessions
  // directly rather than through createContinuation), so the check lives in createSession.
  test.each([
    ['createContinuation', (db: ReturnType<typeof tempDb>, id: string) => createContinuation(db, id, { id: 'fork' })],
    ['createSession with lineage compression', (db: ReturnType<typeof tempDb>, id: string) => createSession(db, { id: 'fork', parentSessionId: id, lineage: 'compression' })],
    ['upsertSession of a new compression child', (db: ReturnType<typeof tempDb>, id: string) => upsertSession(db, { id: 'fork', parentSessionId: id, lineage: 'compression', title: 'fork' })],
    [
      'createSession with messages',
      (db: ReturnType<typeof tempDb>, id: string) => createSession(db, { id: 'fork', parentSessionId: id, lineage: 'compression', messages: [{ role: 'user', content: 'second live end' }] }),
    ],
  ] as const)('a second compression child through %s is refused and writes nothing', (_path, fork) => {
    const { db, root } = setup();
    const first = createSession(db, { id: 'first', parentSessionId: root.id, lineage: 'compression' });
    const snapshot = () => db.raw.prepare('select id, ended_at, end_reason, updated_at from sessions order by id').all();
    const before = { sessions: snapshot(), messages: db.raw.prepare('select count(*) from messages').pluck().get() };
    expect(() => fork(db, root.id)).toThrow(expect.objectContaining({ code: 'session_already_compressed', details: { sessionId: root.id, continuationId: first.id } }));
    expect(findSession(db, 'fork')).toBeUndefined();
    expect({ sessions: snapshot(), messages: db.raw.prepare('select count(*) from messages').pluck().get() }).toEqual(before);
  });

  test.each(['branch', 'reset', 'delegation'] as const)('a compressed session may still get a %s child', (lineage) => {
    const { db, root } = setup();
    createContinuation(db, root.id);
    expect(createSession(db, { parentSessionId: root.id, lineage }).lineage).toBe(lineage);
  });
});
