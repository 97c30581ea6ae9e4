/**
 * The index pipeline in one process on a real SQLite file: planning, claiming, writing, branch
 * reuse, moves, consent, edits/deletes during an in-flight request, model switch, rebuild, status.
 * The provider is the test-only deterministic embedder (test/support/test-embedder.ts).
 */
import type { RecallDatabase } from '@recall/schema';
import { appendMessage, createBranch, createProject, createSession, deleteMessage, editMessage, setSessionProject } from '@recall/store';
import { describe, expect, test } from 'vitest';
import { parseSemanticConfig, type SemanticIndex, type SemanticConfig } from '../src/index.js';
import { sqliteSemanticIndex } from '../src/sqlite/index.js';
import { tempDb } from './support/temp-db.js';
import { testEmbedder, unavailable, type TestEmbedder } from './support/test-embedder.js';

const config = (over: Record<string, unknown> = {}): SemanticConfig =>
  parseSemanticConfig({ enabled: true, provider: 'openai-compatible', endpoint: 'http://127.0.0.1:1/v1', model: 'test-hash', dims: 16, maxInputTokens: 64, ...over })!;

function setup(provider: TestEmbedder = testEmbedder(), db: RecallDatabase = tempDb()) {
  const index = sqliteSemanticIndex({ db, config: config(), provider });
  const on = createProject(db, { name: 'On' });
  const off = createProject(db, { name: 'Off' });
  return { db, index, provider, on, off };
}

const count = (db: RecallDatabase, where = '1') => db.raw.prepare(`select count(*) from semantic_chunks where ${where}`).pluck().get() as number;

describe('backfill and incremental indexing', () => {
  test('a switched-on project is embedded completely; a project never switched on sends nothing', async () => {
    const { db, index, provider, on, off } = setup();
    const a = createSession(db, { projectId: on.id });
    const b = createSession(db, { projectId: off.id });
    for (let i = 0; i < 5; i++) {
      appendMessage(db, a.id, { role: i % 2 ? 'assistant' : 'user', content: `on-project message ${i}` });
      appendMessage(db, b.id, { role: 'user', content: `SECRET off-project message ${i}` });
    }
    appendMessage(db, a.id, { role: 'tool', content: 'tool output is not indexed by default' });
    expect(await index.status(on.id)).toMatchObject({ status: 'disabled', reason: 'project_not_enabled' });
    const enabled = await index.enable(on.id);
    expect(enabled).toMatchObject({ endpoint: 'http://127.0.0.1:1/v1', includesNewMessages: true, remote: true });
    expect(await index.status(on.id)).toMatchObject({ status: 'partial', eligible: 'unknown' });
    const result = await index.run({ projectId: on.id });
    expect(result).toMatchObject({ completed: true, reason: 'done', written: 5 });
    expect(await index.status(on.id)).toMatchObject({ status: 'ready', eligible: 5, ready: 5, pending: 0, failed: 0 });
    expect(provider.texts().some((t) => t.includes('SECRET'))).toBe(false);
    expect(provider.texts().some((t) => t.includes('tool output'))).toBe(false);
    expect(await index.status(off.id)).toMatchObject({ status: 'disabled', reason: 'project_not_enabled' });

    appendMessage(db, a.id, { role: 'user', content: 'a new message after the backfill' });
    expect(await index.status(on.id)).toMatchObject({ status: 'partial', eligible: 'unknown' });
    await index.run();
    expect(await index.status(on.id)).toMatchObject({ status: 'ready', eligible: 6, ready: 6 });
    expect(provider.texts().filter((t) => t === 'a new message after the backfill')).toHaveLength(1);
  });

  test('moving an indexed conversation into a project never switched on sends nothing; moving it back re-embeds nothing', async () => {
    const { db, index, provider, on, off } = setup();
    const s = createSession(db, { projectId: on.id });
    appendMessage(db, s.id, { role: 'user', content: 'indexed before the move' });
    await index.enable(on.id);
    await index.run();
    const callsBefore = provider.calls.length;
    setSessionProject(db, s.id, off.id);
    appendMessage(db, s.id, { role: 'user', content: 'SECRET written after the move' });
    await index.run();
    expect(provider.calls.length).toBe(callsBefore);
    expect((await index.status(off.id)).status).toBe('disabled');
    setSessionProject(db, s.id, on.id);
    await index.run();
    // only the missing chunk is embedded; the moved vectors are reused as they are
    expect(provider.calls.slice(callsBefore).flat()).toEqual(['SECRET written after the move']);
    expect(await index.status(on.id)).toMatchObject({ status: 'ready', ready: 2 });
  });

  test('a branch costs zero embedding calls (vectors reused from the origin by content hash)', async () => {
    const { db, index, provider, on } = setup();
    const s = createSession(db, { projectId: on.id });
    for (let i = 0; i < 4; i++) appendMessage(db, s.id, { role: 'user', content: `branchable message ${i}` });
    await index.enable(on.id);
    await index.run();
    const calls = provider.calls.length;
    const branch = createBranch(db, s.id);
    await index.run();
    expect(provider.calls.length).toBe(calls);
    expect(count(db, `session_id = '${branch.id}' and status = 'ready'`)).toBe(4);
    expect(await index.status(on.id)).toMatchObject({ status: 'ready', ready: 8 });
  });

  test('edit and delete while the request is in flight: the stale vectors are never written', async () => {
    const provider = testEmbedder();
    const { db, index, on } = setup(provider);
    const s = createSession(db, { projectId: on.id });
    const edited = appendMessage(db, s.id, { role: 'user', content: 'original text' });
    const deleted = appendMessage(db, s.id, { role: 'user', content: 'will be deleted' });
    const kept = appendMessage(db, s.id, { role: 'user', content: 'stays as it is' });
    await index.enable(on.id);
    provider.hold();
    const running = index.worker!.runBatch();
    await provider.started();
    editMessage(db, edited.id, 'edited text');
    deleteMessage(db, deleted.id);
    provider.release();
    const report = await running;
    expect(report).toMatchObject({ claimed: 3, written: 1, dropped: 2 });
    expect(count(db, `message_id = ${kept.id} and status = 'ready'`)).toBe(1);
    expect(count(db, `message_id = ${edited.id} and status = 'ready'`)).toBe(0);
    await index.run();
    const row = db.raw.prepare('select content_hash, status from semantic_chunks where message_id = ?').get(edited.id) as { status: string };
    expect(row.status).toBe('ready');
    expect(provider.texts()).toContain('edited text');
    expect(await index.status(on.id)).toMatchObject({ status: 'ready', eligible: 2, ready: 2 });
  });

  test('provider down: chunks recorded failed with the error, status unavailable; recovery completes', async () => {
    const provider = testEmbedder();
    const { db, index, on } = setup(provider);
    const s = createSession(db, { projectId: on.id });
    appendMessage(db, s.id, { role: 'user', content: 'hello' });
    await index.enable(on.id);
    provider.failWith = unavailable();
    expect(await index.run()).toMatchObject({ completed: false, reason: 'unavailable' });
    expect(await index.status(on.id)).toMatchObject({ status: 'unavailable', reason: 'provider_unavailable', failed: 1 });
    expect(db.raw.prepare('select attempts, last_error from semantic_chunks').get()).toMatchObject({ attempts: 1, last_error: expect.stringContaining('embedding_unavailable') });
    provider.failWith = null;
    db.raw.exec('update semantic_chunks set next_attempt_at = 0');
    await index.run();
    expect(await index.status(on.id)).toMatchObject({ status: 'ready', ready: 1, failed: 0 });
  });

  test('disabling a project stops sending and deletes nothing; semantic off deletes nothing', async () => {
    const { db, index, provider, on } = setup();
    const s = createSession(db, { projectId: on.id });
    appendMessage(db, s.id, { role: 'user', content: 'first' });
    await index.enable(on.id);
    await index.run();
    await index.disable(on.id);
    appendMessage(db, s.id, { role: 'user', content: 'SECRET after disable' });
    await index.run();
    expect(provider.texts()).not.toContain('SECRET after disable');
    expect(count(db, "status = 'ready'")).toBe(1);
    const off = sqliteSemanticIndex({ db, config: config({ enabled: false }) });
    expect(await off.status(on.id)).toMatchObject({ status: 'disabled', reason: 'turned_off' });
    expect(off.active).toBe(false);
    expect(count(db, "status = 'ready'")).toBe(1);
  });

  test('model switch: a new fingerprint builds alongside (partial until complete); rebuild drops derived rows only', async () => {
    const db = tempDb();
    const first = setup(testEmbedder(), db);
    const s = createSession(db, { projectId: first.on.id });
    for (let i = 0; i < 3; i++) appendMessage(db, s.id, { role: 'user', content: `switch ${i}` });
    await first.index.enable(first.on.id);
    await first.index.run();
    const second = sqliteSemanticIndex({ db, config: config({ model: 'other-model' }), provider: testEmbedder({ model: 'other-model' }) });
    expect(second.fingerprint!.id).not.toBe(first.index.fingerprint!.id);
    expect(await second.status(first.on.id)).toMatchObject({ status: 'partial', ready: 0, eligible: 'unknown' });
    await second.run();
    expect(await second.status(first.on.id)).toMatchObject({ status: 'ready', ready: 3 });
    expect(count(db)).toBe(6);
    const messages = db.raw.prepare('select count(*) from messages').pluck().get();
    expect(await second.rebuild(first.on.id)).toMatchObject({ chunksDeleted: 6 });
    expect(db.raw.prepare('select count(*) from messages').pluck().get()).toBe(messages);
    expect(await second.status(first.on.id)).toMatchObject({ status: 'partial', eligible: 'unknown', ready: 0 });
    await second.run();
    expect(await second.status(first.on.id)).toMatchObject({ status: 'ready', ready: 3 });
  });

  test('consent for another endpoint does not allow sending to the active one', async () => {
    const { db, index, provider, on } = setup();
    const s = createSession(db, { projectId: on.id });
    appendMessage(db, s.id, { role: 'user', content: 'SECRET consented elsewhere' });
    db.raw.prepare("insert into semantic_projects (project_id, enabled, endpoint) values (?, 1, 'https://elsewhere.example/v1')").run(on.id);
    await index.run();
    expect(provider.calls).toHaveLength(0);
    expect(await index.status(on.id)).toMatchObject({ status: 'disabled', reason: 'consent_for_other_endpoint' });
  });

  test.each([
    ['unknown project', (i: SemanticIndex) => i.enable('p_nope'), 'project_not_found'],
    ['semantic off', (_i: SemanticIndex, db: RecallDatabase) => sqliteSemanticIndex({ db, config: null }).enable('x'), 'semantic_disabled'],
  ])('enable refuses: %s', async (_label, act, code) => {
    const { index, db } = setup();
    await expect(act(index, db)).rejects.toThrow(expect.objectContaining({ code }));
  });
});
