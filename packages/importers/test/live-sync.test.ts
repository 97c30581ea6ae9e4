/**
 * LiveSync in-process (the child-process `recall sync` tests are gateway-rpc's live-sync.test.ts):
 * one pass imports a transcript folder, a line written in two parts is imported only once it is
 * complete, a new LiveSync on the same state file resumes from the saved offsets without re-reading
 * or duplicating, and a Hermes store resumes from its message cursor.
 */
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDatabases } from '@recall/config/temp-databases';
import { openDatabase } from '@recall/schema';
import { getMessages } from '@recall/store';
import { describe, expect, test } from 'vitest';
import { LiveSync, loadSyncState, syncStatePath } from '../src/index.js';
import { ccLine, hermesDb, hermesExec } from '@recall/config/source-fixtures';

const { tempDir, tempDb } = tempDatabases((path) => openDatabase(path), 'recall-live-sync-');
const SID = '7d000000-0000-4000-8000-0000000000a1';

describe('LiveSync.syncOnce', () => {
  test('imports, holds a partial last line until it is complete, and resumes from saved checkpoints', async () => {
    const db = tempDb();
    const home = tempDir();
    const source = join(tempDir(), 'claude');
    mkdirSync(join(source, '-work-gen'), { recursive: true });
    const file = join(source, '-work-gen', `${SID}.jsonl`);
    writeFileSync(file, `${ccLine(SID, 'u1', 'user', 'first question')}\n${ccLine(SID, 'u2', 'assistant', 'first answer')}\n`);
    const statePath = syncStatePath(home, 'default');
    const options = { db, statePath, sources: [{ format: 'claude-code' as const, path: source }], mapping: { kind: 'none' as const } };

    const first = new LiveSync(options);
    expect(await first.syncOnce()).toMatchObject({ messages: 2, sessions: 1, errors: 0, filesRead: 1 });
    const line = ccLine(SID, 'u3', 'user', 'a line written in two parts');
    appendFileSync(file, line.slice(0, 40));
    expect(await first.syncOnce()).toMatchObject({ messages: 0, errors: 0 });
    appendFileSync(file, `${line.slice(40)}\n`);
    expect(await first.syncOnce()).toMatchObject({ messages: 1, errors: 0 });
    expect(existsSync(statePath)).toBe(true);
    expect(loadSyncState(statePath)!.sources).toEqual(options.sources);

    // A restart: the saved offset means nothing is read again until the file grows.
    const second = new LiveSync(options);
    expect(await second.syncOnce()).toMatchObject({ messages: 0, filesRead: 0 });
    appendFileSync(file, `${ccLine(SID, 'u4', 'assistant', 'after the restart')}\n`);
    expect(await second.syncOnce()).toMatchObject({ messages: 1, filesRead: 1 });
    expect(getMessages(db, SID).map((m) => m.externalId)).toEqual(['u1', 'u2', 'u3', 'u4']);
  });

  test('a Hermes store resumes from its message cursor', async () => {
    const db = tempDb();
    const statePath = syncStatePath(tempDir(), 'default');
    const path = hermesDb(join(tempDir(), 'hermes', 'state.db'));
    const options = { db, statePath, sources: [{ format: 'hermes' as const, path }], mapping: { kind: 'none' as const } };
    expect(await new LiveSync(options).syncOnce()).toMatchObject({ messages: 14, sessions: 6, errors: 0 });
    const cursor = loadSyncState(statePath)!.hermes[path]!.lastMessageId;
    expect(cursor).toBeGreaterThan(0);
    hermesExec(path, "insert into messages (session_id, role, content, timestamp) values ('20250901_100000_bb22', 'assistant', 'Retention is 14 days.', 1756720900.0);");
    expect(await new LiveSync(options).syncOnce()).toMatchObject({ messages: 1, sessions: 0 });
    expect(loadSyncState(statePath)!.hermes[path]!.lastMessageId).toBe(cursor + 1);
  });
});
