/**
 * The bulk write paths on a real PostgreSQL (adapter/messages.ts insertParsedMessages, adapter/bulk.ts
 * importMessages — what `recall migrate` writes through): a generated set written to SQLite, copied
 * into PostgreSQL through TransferSource → BulkImport and appended to PostgreSQL through
 * MessageStore.append gives the same rows (ids, order, every field) and the same keyword answers;
 * a batch with a bad row in the middle leaves nothing behind; and a batch costs a bounded number of
 * statements (round trips), counted on every pooled client, with one change-feed notification set.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@recall/rpc-contract';
import { openDatabase } from '@recall/schema';
import type { MessageInput, Storage } from '@recall/storage-ports';
import { sqliteStorage } from '@recall/store';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { postgresStorage, type RecallPostgres } from '../src/index.js';
import { useCluster } from './cluster.js';

const cluster = useCluster();
const opened: Storage[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A small seeded corpus: English, Chinese, mixed; some messages with external ids (one repeated). */
function generated(): Array<{ sessionId: string; projectId: string | null; batch: MessageInput[] }> {
  let seed = 7;
  const r = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const EN = 'retry the deploy timeout on the database migration index cache config tokenizer backpressure worker queue'.split(' ');
  const ZH = '数据库 迁移 索引 超时 重试 部署 缓存 配置 鲈鱼 蒸鱼'.split(' ');
  const sentence = () => (r() < 0.3 ? Array.from({ length: 3 + Math.floor(r() * 5) }, () => ZH[Math.floor(r() * ZH.length)]).join('') : Array.from({ length: 5 + Math.floor(r() * 8) }, () => EN[Math.floor(r() * EN.length)]).join(' '));
  const sessions = [
    { sessionId: 's_a1', projectId: 'p_a', size: 300 },
    { sessionId: 's_a2', projectId: 'p_a', size: 150 },
    { sessionId: 's_b1', projectId: 'p_b', size: 300 },
    { sessionId: 's_none', projectId: null, size: 50 },
  ];
  let at = 1_700_000_000_000;
  return sessions.map(({ sessionId, projectId, size }) => ({
    sessionId,
    projectId,
    batch: Array.from({ length: size }, (_, i): MessageInput => ({
      role: i % 2 ? 'assistant' : 'user',
      content: `${sentence()} ${i % 97 === 0 ? 'quicksort' : ''}`.trim(),
      createdAt: (at += 1000),
      ...(i % 10 === 3 ? { externalId: `${sessionId}:${i}` } : {}),
      ...(i === 20 ? { externalId: `${sessionId}:3` } : {}), // repeats message 3's external id: skipped
    })),
  }));
}

/** Writes the corpus through the ports: projects, sessions, one append per session, a delete and a rewind. */
async function writeCorpus(s: Storage): Promise<void> {
  await s.projects.create({ id: 'p_a', name: 'A' });
  await s.projects.create({ id: 'p_b', name: 'B' });
  for (const { sessionId, projectId, batch } of generated()) {
    await s.sessions.create({ id: sessionId, ...(projectId ? { projectId } : {}), title: sessionId });
    await s.messages.append(sessionId, batch);
  }
  await s.messages.delete(5);
  const b1 = await s.messages.list('s_b1', { limit: 10_000 });
  await s.messages.rewind('s_b1', b1[250]!.id);
}

/** Every message of every session, all visibilities, in id order (TransferSource). */
async function allMessages(s: Storage): Promise<Message[]> {
  const out: Message[] = [];
  for (const session of await s.transfer!.sessions('', 1000)) out.push(...(await s.transfer!.messages(session.id, 0, 100_000)));
  return out.sort((a, b) => a.id - b.id);
}

const QUERIES = ['retry deploy', 'tokenizer', 'quicksort', '数据库', '鲈鱼', 'backpressure worker'];

/** Hit message ids per (project, query), in rank order. */
async function keywordAnswers(s: Storage): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {};
  for (const projectId of ['p_a', 'p_b']) {
    for (const q of QUERIES) out[`${projectId} ${q}`] = (await s.keyword.search({ kind: 'project', projectId }, q, { limit: 2000 })).hits.map((h) => h.messageId);
  }
  return out;
}

/** Counts every statement sent by the pool's clients (pool.query included). */
function countStatements(db: RecallPostgres): { sent: string[] } {
  const counter = { sent: [] as string[] };
  const marked = Symbol('counted');
  const wrap = (client: { query: (...a: unknown[]) => unknown; [marked]?: boolean }) => {
    if (client[marked]) return;
    client[marked] = true;
    const query = client.query.bind(client);
    client.query = (...a: unknown[]) => {
      counter.sent.push(String(typeof a[0] === 'string' ? a[0] : (a[0] as { text?: string }).text).slice(0, 60));
      return query(...a);
    };
  };
  const pool = db.pool as unknown as { connect: (...a: unknown[]) => Promise<unknown>; query: (...a: unknown[]) => unknown };
  const connect = pool.connect.bind(db.pool);
  pool.connect = async (...a: unknown[]) => {
    const client = (await connect(...a)) as { query: (...a: unknown[]) => unknown };
    wrap(client);
    return client;
  };
  const poolQuery = pool.query.bind(db.pool);
  pool.query = (...a: unknown[]) => {
    counter.sent.push(String(typeof a[0] === 'string' ? a[0] : (a[0] as { text?: string }).text).slice(0, 60));
    return poolQuery(...a);
  };
  return counter;
}

async function pgStorage(): Promise<{ s: Storage; db: RecallPostgres; url: string }> {
  const url = cluster.freshUrl();
  const db = await cluster.open(url);
  const s = postgresStorage(db, url);
  opened.push(s);
  return { s, db, url };
}

const keywordRows = async (db: RecallPostgres) => (await db.pool.query('select message_id, document::text, tokenizer_version, session_id, project_id, role, visibility from message_keywords order by message_id')).rows;

describe('bulk writes on PostgreSQL', () => {
  it('a SQLite profile copied through BulkImport and the same set appended equal the SQLite rows, row for row, with the same keyword answers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recall-pg-bulk-'));
    dirs.push(dir);
    const lite = sqliteStorage(openDatabase(join(dir, 'recall.db')), { ownsDatabase: true });
    opened.push(lite);
    await writeCorpus(lite);
    const expected = await allMessages(lite);
    expect(expected.length).toBe(300 + 150 + 300 + 50 - 4); // four repeated external ids skipped

    // The migrate path: TransferSource (SQLite) → BulkImport (PostgreSQL), 300 messages per batch.
    const copy = await pgStorage();
    const bulk = copy.s.bulk!;
    await bulk.importProjects(await lite.transfer!.projects());
    await bulk.importSessions(await lite.transfer!.sessions('', 1000));
    for (const session of await lite.transfer!.sessions('', 1000)) {
      for (let last = await bulk.lastMessageId(session.id); ; ) {
        const batch = await lite.transfer!.messages(session.id, last, 300);
        if (batch.length === 0) break;
        await bulk.importMessages(batch);
        last = batch[batch.length - 1]!.id;
      }
    }
    await bulk.finish();
    // The append path on PostgreSQL, the same calls as on SQLite.
    const appended = await pgStorage();
    await writeCorpus(appended.s);

    expect(await allMessages(copy.s)).toEqual(expected);
    const appendedMessages = await allMessages(appended.s);
    // Appends stamp edited_at on the delete with the time of the call; everything else is equal.
    const strip = (ms: Message[]) => ms.map(({ editedAt: _e, ...m }) => m);
    expect(strip(appendedMessages)).toEqual(strip(expected));
    expect((await copy.s.transfer!.counts())).toEqual(await lite.transfer!.counts());

    // Keyword rows: one per message that is not deleted, the same in both PostgreSQL databases.
    const rows = await keywordRows(copy.db);
    expect(rows.length).toBe(expected.filter((m) => m.visibility !== 'deleted').length);
    expect(await keywordRows(appended.db)).toEqual(rows);
    const answers = await keywordAnswers(copy.s);
    expect(await keywordAnswers(appended.s)).toEqual(answers);
    // Against SQLite: the same hits (its BM25 may order ties differently, so compared as sets).
    const sqliteAnswers = await keywordAnswers(lite);
    const asSets = (a: Record<string, number[]>) => Object.fromEntries(Object.entries(a).map(([k, v]) => [k, [...v].sort((x, y) => x - y)]));
    expect(asSets(answers)).toEqual(asSets(sqliteAnswers));
    expect(Object.values(answers).every((hits) => hits.length > 0)).toBe(true);

    // A re-run of the copy inserts nothing.
    expect(await bulk.importMessages(await lite.transfer!.messages('s_a1', 0, 1000))).toBe(0);
  });

  const bad = 'cannot be stored \u0000 here'; // PostgreSQL text refuses NUL: the row fails in the database
  it.each([
    { name: 'append: a NUL row in the middle', run: async (s: Storage) => s.messages.append('s1', Array.from({ length: 300 }, (_, i) => ({ role: 'user' as const, content: i === 150 ? bad : `retry number ${i}` }))) },
    {
      name: 'import: a message of an unknown session in the middle',
      run: async (s: Storage) => s.bulk!.importMessages(Array.from({ length: 400 }, (_, i) => importRow(100 + i, i === 200 ? 's_missing' : i % 2 ? 's1' : 's2', `retry number ${i}`))),
    },
    { name: 'import: a NUL row in the middle', run: async (s: Storage) => s.bulk!.importMessages(Array.from({ length: 400 }, (_, i) => importRow(100 + i, i % 2 ? 's1' : 's2', i === 200 ? bad : `retry number ${i}`))) },
  ])('$name: the batch fails and leaves nothing half-written', async ({ run }) => {
    const { s, db } = await pgStorage();
    await s.projects.create({ id: 'p_p', name: 'P' });
    await s.sessions.create({ id: 's1', projectId: 'p_p' });
    await s.sessions.create({ id: 's2', projectId: 'p_p' });
    await s.messages.append('s1', [{ role: 'user', content: 'before the batch' }]);
    const before = (await db.pool.query('select id, updated_at from sessions order by id')).rows;
    await expect(run(s)).rejects.toThrow();
    expect((await db.pool.query('select count(*)::int as n from messages')).rows[0].n).toBe(1);
    expect((await db.pool.query('select count(*)::int as n from message_keywords')).rows[0].n).toBe(1);
    expect((await db.pool.query('select id, updated_at from sessions order by id')).rows).toEqual(before);
    // The database is still usable for the next batch.
    expect((await s.messages.append('s1', [{ role: 'user', content: 'after the batch' }])).inserted).toBe(1);
  });

  it('a batch costs a bounded number of statements and announces the change once', async () => {
    const { s, db, url } = await pgStorage();
    await s.projects.create({ id: 'p_p', name: 'P' });
    await s.sessions.create({ id: 's1', projectId: 'p_p' });
    await s.sessions.create({ id: 's2', projectId: 'p_p' });
    const listener = new pg.Client({ connectionString: url });
    await listener.connect();
    const notes: string[] = [];
    listener.on('notification', (n) => notes.push(n.payload ?? ''));
    await listener.query('listen recall_changes');
    try {
      const counter = countStatements(db);
      const cases = [
        { name: 'append of 1', run: () => s.messages.append('s1', [{ role: 'user', content: 'one retry' }]), budget: 4 },
        { name: 'append of 500', run: () => s.messages.append('s1', Array.from({ length: 500 }, (_, i) => ({ role: 'user' as const, content: `retry ${i} 数据库` }))), budget: 4 },
        { name: 'import of 2000 over two sessions', run: () => s.bulk!.importMessages(Array.from({ length: 2000 }, (_, i) => importRow(10_000 + i, i < 1000 ? 's1' : 's2', `retry ${i}`))), budget: 4 },
      ];
      const seen: Record<string, { statements: number; notifications: number }> = {};
      for (const c of cases) {
        counter.sent.length = 0;
        notes.length = 0;
        await c.run();
        await new Promise((resolve) => setTimeout(resolve, 100)); // let the notifications of the commit arrive
        seen[c.name] = { statements: counter.sent.length, notifications: notes.length };
        expect(counter.sent.length, `${c.name}: ${counter.sent.join(' | ')}`).toBeLessThanOrEqual(c.budget);
      }
      // The notifications of a batch do not grow with its size (statement triggers; duplicates fold at commit).
      expect(seen['append of 500']!.notifications).toBe(seen['append of 1']!.notifications);
      expect(seen['append of 1']!.notifications).toBeGreaterThan(0);
      expect(seen['import of 2000 over two sessions']!.notifications).toBeGreaterThan(0);
      expect(seen['import of 2000 over two sessions']!.notifications).toBeLessThanOrEqual(2);
    } finally {
      await listener.end();
    }
  });
});

function importRow(id: number, sessionId: string, content: string): Message {
  return { id, sessionId, role: 'user', content, toolName: null, toolCalls: null, toolCallId: null, externalId: null, createdAt: 1_700_000_000_000 + id, visibility: 'live', editedAt: null };
}
