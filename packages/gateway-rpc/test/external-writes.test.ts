/**
 * Writes by other processes reach the UI (the CLI package tests the same with real `recall`
 * child processes against a running gateway). Every kind of foreign write a client can see —
 * rewind, delete, compaction, edit, hide, rename, move, append, import, project and folder edits,
 * also done with raw SQL that bumps no `updated_at` (an older or foreign writer) — made through a
 * SECOND connection to the same file, each of which must produce its change events (and writes to
 * derived tables none); then a real gateway with a WebSocket client while `recall mv` /
 * `recall import` run as real child processes on the same home. The gateway notices them through
 * the SQLite ChangeFeed (`PRAGMA data_version` and the `change_counter` fingerprint) and sends the usual change events
 * (without ids: "refresh everything"), while its own writes keep their precise events and trigger
 * no extra id-less ones.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, profileDatabasePath, type RecallDatabase } from '@recall/schema';
import {
  addProjectFolder,
  appendMessage,
  archiveProject,
  compactMessages,
  createProject,
  createSession,
  deleteMessage,
  sqliteChangeFeed,
  editMessage,
  getMessages,
  rewindSession,
  setSessionProject,
  setSessionTitle,
  updateProject,
  updateSession,
} from '@recall/store';
import { afterEach, describe, expect, test } from 'vitest';
import { EventHub, type HubEvent } from '../src/events.js';
import { watchExternalWrites } from '../src/external-writes.js';
import { importJsonlFile } from '@recall/importers';
import { cleanup, tempHome } from './helpers.js';

/** The importers' fixture files (recall-jsonl), read by path: test data, not an import. */
const FIXTURES = fileURLToPath(new URL('../../importers/test/fixtures', import.meta.url));

const opened: RecallDatabase[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) db.close();
  await cleanup();
});

/** The gateway's connection (watched) and another writer's connection to the same profile file. */
async function twoConnections() {
  const home = tempHome();
  const path = profileDatabasePath(home, 'default');
  const gateway = openDatabase(path);
  opened.push(gateway);
  await importJsonlFile(gateway, join(FIXTURES, 'small.jsonl'));
  const other = openDatabase(path);
  opened.push(other);
  const hub = new EventHub();
  const seen: HubEvent[] = [];
  hub.subscribe((e) => seen.push(e));
  // intervalMs far beyond the test: checkNow() is called by hand, so nothing here depends on timing.
  const feed = sqliteChangeFeed(gateway, { intervalMs: 3_600_000 });
  const watcher = await watchExternalWrites(feed, hub);
  return { gateway, other, hub, seen, watcher, feed };
}

const firstMessage = (db: RecallDatabase, sessionId: string) => getMessages(db, sessionId)[0]!.id;
type Write = (db: RecallDatabase) => unknown;
const P = 'projects.changed';
const S = 'sessions.changed';
const M = 'messages.changed';
const I = 'index.changed';

describe('every foreign write a client can see emits its change events', () => {
  test.each<[string, Write, string[]]>([
    ['rewind (only messages.visibility changes)', (db) => rewindSession(db, 's-alpha-1', firstMessage(db, 's-alpha-1')), [M]],
    ['delete a message (soft: visibility)', (db) => deleteMessage(db, firstMessage(db, 's-alpha-2')), [M]],
    ['compaction (visibility live → compacted)', (db) => compactMessages(db, 's-alpha-1', firstMessage(db, 's-alpha-1')), [M]],
    ['edit a message', (db) => editMessage(db, firstMessage(db, 's-beta-1'), 'edited elsewhere'), [M]],
    ['rewind by raw SQL', (db) => db.raw.prepare("update messages set visibility = 'rewound' where session_id = 's-loose'").run(), [M]],
    ['hard delete of a message by raw SQL', (db) => db.raw.prepare("delete from messages where external_id = 'a2-2'").run(), [M]],
    ['hide a session', (db) => updateSession(db, 's-alpha-2', { hidden: true }), [S]],
    ['hide without touching updated_at (raw SQL)', (db) => db.raw.prepare("update sessions set hidden = 1 where id = 's-alpha-2'").run(), [S]],
    ['rename a session', (db) => setSessionTitle(db, 's-alpha-1', 'renamed elsewhere'), [S]],
    ['rename without touching updated_at (raw SQL)', (db) => db.raw.prepare("update sessions set title = 'raw title' where id = 's-alpha-1'").run(), [S]],
    ['move (recall mv does this)', (db) => setSessionProject(db, 's-alpha-1', 'p_beta'), [S]],
    ['move that changes only project_id (raw SQL)', (db) => db.raw.prepare("update sessions set project_id = 'p_beta' where id = 's-loose'").run(), [S]],
    ['archive a session', (db) => updateSession(db, 's-beta-1', { archived: true }), [S]],
    ['delete a session (raw SQL)', (db) => db.raw.prepare("delete from sessions where id = 's-loose'").run(), [S, M]],
    ['new session', (db) => createSession(db, { id: 's-new', projectId: 'p_alpha' }), [S]],
    ['append a message', (db) => appendMessage(db, 's-alpha-1', { role: 'user', content: 'appended elsewhere' }), [S, M]],
    ['import a file', (db) => importJsonlFile(db, join(FIXTURES, 'broken.jsonl')), [P, S, M]],
    ['new project', (db) => createProject(db, { name: 'Gamma' }), [P]],
    ['rename a project', (db) => updateProject(db, 'p_beta', { name: 'Beta renamed' }), [P]],
    ['archive a project', (db) => archiveProject(db, 'p_beta'), [P]],
    ['add a folder to a project', (db) => addProjectFolder(db, 'p_beta', '/work/beta'), [P]],
    ['change a folder without touching the project (raw SQL)', (db) => db.raw.prepare("update project_folders set path = '/work/alpha2'").run(), [P]],
    // `recall index enable|disable` from a shell: the Index panel showed the old switch position.
    ['switch a project on for semantic search', (db) => db.raw.prepare("insert into semantic_projects (project_id, enabled, endpoint, enabled_at) values ('p_alpha', 1, 'local:use-lite', 1)").run(), [I]],
    [
      'switch one on and off again in one write (raw SQL)',
      (db) => {
        db.raw.prepare("insert into semantic_projects (project_id, enabled, endpoint, enabled_at, updated_at) values ('p_beta', 1, 'local:use-lite', 1, 5)").run();
        return db.raw.prepare("update semantic_projects set enabled = 0 where project_id = 'p_beta'").run();
      },
      [I],
    ],
  ])('%s', async (_name, write, expected) => {
    const { other, seen, watcher, feed } = await twoConnections();
    await write(other);
    expect(feed.checkNow()).toBe(true);
    expect(seen.map((e) => e.type).sort()).toEqual([...expected].sort());
    // Foreign writes carry no ids the gateway could know: the events ask for a full refresh.
    for (const e of seen) expect(e).not.toHaveProperty('sessionIds');
    // Nothing more until the next foreign write.
    seen.length = 0;
    expect(feed.checkNow()).toBe(false);
    expect(seen).toEqual([]);
    await watcher.stop();
  });

  test.each<[string, Write]>([
    ['the semantic index queue', (db) => db.raw.prepare("insert into semantic_dirty_sessions (session_id, seq) values ('s-alpha-1', 1)").run()],
    ['a message field no client shows (origin_message_id)', (db) => db.raw.prepare("update messages set origin_message_id = 1 where external_id = 'a1-1'").run()],
    ['a write that changes nothing visible', (db) => db.raw.prepare("update sessions set updated_at = updated_at where id = 's-alpha-1'").run()],
  ])('a foreign write to %s wakes nobody', async (_name, write) => {
    const { other, seen, watcher, feed } = await twoConnections();
    await write(other);
    expect(feed.checkNow()).toBe(false);
    expect(seen).toEqual([]);
    await watcher.stop();
  });

  test('a failing check is reported, never thrown from the timer, and the next one works again', async () => {
    const { gateway, other, seen } = await twoConnections();
    const errors: unknown[] = [];
    const feed = sqliteChangeFeed(gateway, { intervalMs: 3_600_000, onError: (e) => errors.push(e) });
    const watcher = await watchExternalWrites(feed, new EventHub());
    other.raw.exec('alter table change_counter rename to change_counter_away');
    expect(() => feed.checkNow()).not.toThrow();
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/change_counter/);
    other.raw.exec('alter table change_counter_away rename to change_counter');
    rewindSession(other, 's-alpha-1', firstMessage(other, 's-alpha-1'));
    expect(feed.checkNow()).toBe(true);
    expect(errors).toHaveLength(1);
    expect(seen).toEqual([]);
    await watcher.stop();
  });

  test("the watching connection's own writes never produce id-less events", async () => {
    const { gateway, seen, watcher, feed } = await twoConnections();
    rewindSession(gateway, 's-alpha-1', firstMessage(gateway, 's-alpha-1'));
    setSessionProject(gateway, 's-alpha-2', 'p_beta');
    expect(feed.checkNow()).toBe(false);
    expect(seen).toEqual([]);
    await watcher.stop();
  });
});
