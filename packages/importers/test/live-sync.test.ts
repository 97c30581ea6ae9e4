/**
 * LiveSync in-process (the child-process `recall sync` tests are gateway-rpc's live-sync.test.ts):
 * one pass imports a transcript folder, a line written in two parts is imported only once it is
 * complete, a new LiveSync on the same state file resumes from the saved offsets without re-reading
 * or duplicating, a Hermes store resumes from its message cursor, and a transcript with a line far
 * over the line cap (600 MB, more than V8 can hold as a string) is passed: its error is recorded in
 * the saved state, the other file's new lines are imported in the same pass, and a later pass does
 * not read the bad line again.
 */
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
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

  test('a 600 MB line does not wedge sync: recorded, passed, the other file keeps syncing', async () => {
    const db = tempDb();
    const statePath = syncStatePath(tempDir(), 'default');
    const source = join(tempDir(), 'claude');
    mkdirSync(join(source, '-work-a'), { recursive: true });
    mkdirSync(join(source, '-work-b'), { recursive: true });
    const SA = '7d000000-0000-4000-8000-0000000000b1';
    const SB = '7d000000-0000-4000-8000-0000000000b2';
    const fileA = join(source, '-work-a', `${SA}.jsonl`);
    const fileB = join(source, '-work-b', `${SB}.jsonl`);
    writeFileSync(fileA, `${ccLine(SA, 'a1', 'user', 'a first')}\n`);
    writeFileSync(fileB, `${ccLine(SB, 'b1', 'user', 'b first')}\n`);
    const sync = new LiveSync({ db, statePath, sources: [{ format: 'claude-code', path: source }], mapping: { kind: 'none' } });
    expect(await sync.syncOnce()).toMatchObject({ messages: 2, errors: 0, filesRead: 2 });

    // A's transcript gets a 600 MB tool result (written in 4 MiB chunks), then a normal line; B grows too.
    const fd = openSync(fileA, 'a');
    writeSync(fd, '{"type":"user","sessionId":"' + SA + '","uuid":"a2","message":{"role":"user","content":"');
    const chunk = Buffer.alloc(4 * 1024 * 1024, 'x');
    for (let i = 0; i < 150; i++) writeSync(fd, chunk);
    writeSync(fd, `"}}\n${ccLine(SA, 'a3', 'assistant', 'a after the huge line')}\n`);
    closeSync(fd);
    appendFileSync(fileB, `${ccLine(SB, 'b2', 'assistant', 'b second')}\n`);

    expect(await sync.syncOnce()).toMatchObject({ messages: 2, errors: 1, filesRead: 2 });
    expect(getMessages(db, SB).map((m) => m.externalId)).toEqual(['b1', 'b2']);
    expect(getMessages(db, SA).map((m) => m.externalId)).toEqual(['a1', 'a3']);
    const saved = loadSyncState(statePath)!;
    expect(saved.files[fileA]!.offset).toBe(statSync(fileA).size);
    expect(saved.errors).toEqual([expect.objectContaining({ file: fileA, line: 2, code: 'line_too_long', message: expect.stringMatching(/^Line is \d{9} bytes/) })]);

    // The next passes (this LiveSync, and one restarted from the saved state) only read what is new.
    appendFileSync(fileB, `${ccLine(SB, 'b3', 'user', 'b third')}\n`);
    expect(await sync.syncOnce()).toMatchObject({ messages: 1, errors: 0, filesRead: 1 });
    appendFileSync(fileB, `${ccLine(SB, 'b4', 'assistant', 'b fourth')}\n`);
    expect(await new LiveSync({ db, statePath, sources: [{ format: 'claude-code', path: source }], mapping: { kind: 'none' } }).syncOnce()).toMatchObject({ messages: 1, errors: 0, filesRead: 1 });
    expect(loadSyncState(statePath)!.errors).toHaveLength(1); // the recorded error stays visible
  }, 60_000);
});
