/**
 * Fault proofs with real processes on one SQLite file and a real loopback embeddings server that
 * counts what it embeds: kill -9 mid-backfill then restart → complete, no duplicates, nothing
 * lost; two worker processes → every chunk embedded exactly once; an edit/delete while the request
 * is in flight → the stale vector is never written; a project never switched on receives zero
 * calls, also after a conversation with vectors moved into it. Children run the built package
 * (test/fixtures/worker-child.mjs).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptedEmbeddings, type ScriptedEmbeddings } from '@recall/config/scripted-embeddings';
import type { RecallDatabase } from '@recall/schema';
import { appendMessage, createProject, createSession, deleteMessage, editMessage, setSessionProject } from '@recall/store';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { enableProject } from '../src/sqlite/internal.js';
import { tempDb } from './support/temp-db.js';

const CHILD = fileURLToPath(new URL('./fixtures/worker-child.mjs', import.meta.url));
const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));

let server: ScriptedEmbeddings | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});
beforeAll(() => {
  if (!existsSync(DIST)) throw new Error(`${DIST} is missing: build first (turbo's test task builds dependencies; run \`pnpm --filter @recall/semantic build\`).`);
});

interface ChildRun {
  pid: number;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>;
  kill(signal: NodeJS.Signals): void;
}

function runChild(dbPath: string, endpoint: string, batch = 4): ChildRun {
  const child = spawn(process.execPath, [CHILD, dbPath, endpoint, String(batch)], { stdio: ['ignore', 'pipe', 'pipe'], cwd: join(CHILD, '..') });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, out, err })));
  return { pid: child.pid!, done, kill: (s) => child.kill(s) };
}

function seed(db: RecallDatabase, endpoint: string, messages: number) {
  const on = createProject(db, { name: 'On' });
  const never = createProject(db, { name: 'Never' });
  const s = createSession(db, { projectId: on.id });
  const hidden = createSession(db, { projectId: never.id });
  for (let i = 0; i < messages; i++) appendMessage(db, s.id, { role: i % 2 ? 'assistant' : 'user', content: `message number ${i} about topic ${i % 7}` });
  for (let i = 0; i < 5; i++) appendMessage(db, hidden.id, { role: 'user', content: `SECRET never-enabled text ${i}` });
  enableProject(db, on.id, endpoint);
  return { on, never, s, hidden };
}

const rows = (db: RecallDatabase) => db.raw.prepare("select status, count(*) as n from semantic_chunks group by status order by status").all();

describe('worker processes', () => {
  test('kill -9 mid-backfill, restart: complete, no duplicates, no lost chunks', async () => {
    server = await startScriptedEmbeddings({ dims: 8, delayMs: 150 });
    const db = tempDb();
    seed(db, server.url, 40);
    const first = runChild(db.path, server.url, 4);
    await server.waitForRequests(3, 20_000);
    first.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    const readyAfterKill = db.raw.prepare("select count(*) from semantic_chunks where status = 'ready'").pluck().get() as number;
    expect(readyAfterKill).toBeLessThan(40);
    const second = await runChild(db.path, server.url, 4).done;
    expect(second.code, second.err).toBe(0);
    expect(JSON.parse(second.out)).toMatchObject({ completed: true });
    expect(rows(db)).toEqual([{ status: 'ready', n: 40 }]);
    expect(db.raw.prepare('select count(*) from (select message_id, chunk_index from semantic_chunks group by fingerprint_id, message_id, chunk_index having count(*) > 1)').pluck().get()).toBe(0);
    expect(db.raw.prepare('select count(*) from semantic_chunks where lease_owner is not null').pluck().get()).toBe(0);
    expect([...server.embedded.keys()].some((t) => t.includes('SECRET'))).toBe(false);
  });

  test('two worker processes on one database: every chunk embedded exactly once', async () => {
    server = await startScriptedEmbeddings({ dims: 8, delayMs: 40 });
    const db = tempDb();
    seed(db, server.url, 60);
    const [a, b] = await Promise.all([runChild(db.path, server.url, 3).done, runChild(db.path, server.url, 3).done]);
    expect(a.code, a.err).toBe(0);
    expect(b.code, b.err).toBe(0);
    expect(rows(db)).toEqual([{ status: 'ready', n: 60 }]);
    expect(server.embedded.size).toBe(60);
    expect([...server.embedded.values()].every((n) => n === 1)).toBe(true);
    const calls = [JSON.parse(a.out).providerCalls, JSON.parse(b.out).providerCalls];
    expect(calls[0] + calls[1]).toBe(server.requests.length);
  });

  test('edit and delete while the embedding request is in flight: the stale vectors never land', async () => {
    server = await startScriptedEmbeddings({ dims: 8 });
    server.push({ delayMs: 1_500 });
    const db = tempDb();
    const on = createProject(db, { name: 'On' });
    const s = createSession(db, { projectId: on.id });
    const edited = appendMessage(db, s.id, { role: 'user', content: 'original wording' });
    const deleted = appendMessage(db, s.id, { role: 'user', content: 'to be deleted' });
    appendMessage(db, s.id, { role: 'user', content: 'unchanged' });
    enableProject(db, on.id, server.url);
    const child = runChild(db.path, server.url, 8);
    await server.waitForRequests(1, 20_000);
    expect(server.requests[0]!.inputs).toEqual(['original wording', 'to be deleted', 'unchanged']);
    editMessage(db, edited.id, 'new wording');
    deleteMessage(db, deleted.id);
    const result = await child.done;
    expect(result.code, result.err).toBe(0);
    // the edited message was re-planned and embedded with its new text; the deleted one has no vector
    const byMessage = db.raw.prepare('select m.content, c.status from semantic_chunks c join messages m on m.id = c.message_id order by m.id').all();
    expect(byMessage).toEqual([
      { content: 'new wording', status: 'ready' },
      { content: 'unchanged', status: 'ready' },
    ]);
    expect(server.embedded.get('new wording')).toBe(1);
  });

  test('a project never switched on receives zero calls, also after a move into it from an indexed project', async () => {
    server = await startScriptedEmbeddings({ dims: 8 });
    const db = tempDb();
    const { s, never } = seed(db, server.url, 6);
    expect((await runChild(db.path, server.url).done).code).toBe(0);
    const requestsBefore = server.requests.length;
    setSessionProject(db, s.id, never.id);
    appendMessage(db, s.id, { role: 'user', content: 'SECRET written after moving into the never-enabled project' });
    const again = await runChild(db.path, server.url).done;
    expect(again.code, again.err).toBe(0);
    expect(server.requests.length).toBe(requestsBefore);
    expect([...server.embedded.keys()].some((t) => t.includes('SECRET'))).toBe(false);
  });
});
