/**
 * A full disk over the wire (issue 21.5): the gateway's own database connection is capped with
 * `PRAGMA max_page_count`, so its writes fail with a real SQLITE_FULL. Every write method answers
 * the stable `disk_full` (-32035) with a plain message — never -32603 — the gateway keeps serving
 * reads, and `import.jsonl` stopped part-way answers exactly what it had committed (`data`), which
 * is what the database holds. Writes work again once there is room.
 */
import { DOMAIN_ERROR_CODES } from '@recall/rpc-contract';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cleanup, rowCounts, rpc, rpcRaw, startTestGateway, type TestGateway } from './helpers.js';

let gw: TestGateway;
let sessionId: string;
let projectId: string;

/** Lets the database grow by about `extraKiB` more; 0 = not at all, and the free room in its pages is filled too. */
function cap(extraKiB: number): void {
  const raw = gw.context.db.raw;
  if (extraKiB === 0) {
    raw.exec('create table if not exists test_filler (x blob)');
    raw.pragma(`max_page_count = ${raw.pragma('page_count', { simple: true }) as number}`);
    for (const size of [65536, 4096, 256, 16, 1]) {
      try {
        for (;;) raw.prepare('insert into test_filler values (randomblob(?))').run(size);
      } catch (error) {
        if ((error as { code?: string }).code !== 'SQLITE_FULL') throw error;
      }
    }
    return;
  }
  const pages = raw.pragma('page_count', { simple: true }) as number;
  const pageSize = raw.pragma('page_size', { simple: true }) as number;
  raw.pragma(`max_page_count = ${pages + Math.ceil((extraKiB * 1024) / pageSize)}`);
}
function uncap(): void {
  gw.context.db.raw.pragma('max_page_count = 1073741823');
  gw.context.db.raw.exec('drop table if exists test_filler');
}

beforeAll(async () => {
  gw = await startTestGateway();
  projectId = (await rpc(gw, 'projects.create', { name: 'Full' })).id;
  sessionId = (await rpc(gw, 'session.create', { projectId, messages: [{ role: 'user', content: 'before the disk filled' }] })).id;
});
afterAll(() => cleanup());

const big = 'x'.repeat(200_000);
const CAP_KIB = 700;

describe('write methods on a full disk', () => {
  test.each([
    ['projects.create', () => ({ name: 'New', description: 'd'.repeat(1999) })],
    ['session.create', () => ({ projectId, messages: [{ role: 'user', content: big }] })],
    ['session.append', () => ({ sessionId, role: 'user', content: big })],
    ['projects.update', () => ({ projectId, description: 'e'.repeat(1999) })],
    ['import.jsonl', () => ({ text: `${JSON.stringify({ kind: 'session', id: 'imp-1', title: 't' })}\n${JSON.stringify({ kind: 'message', session_id: 'imp-1', external_id: 'a', role: 'user', content: big })}\n` })],
  ])('%s answers disk_full (-32035) with a plain message; nothing is stored; reads still work', async (method, params) => {
    cap(0);
    try {
      // A small row can still fit in a table's last page: call until the disk is full for it too.
      let before = rowCounts(gw);
      let error: Awaited<ReturnType<typeof rpcRaw>>['error'];
      for (let i = 0; i < 50 && error === undefined; i++) {
        before = rowCounts(gw);
        error = (await rpcRaw(gw, method, params())).error;
      }
      expect(error, `${method} succeeded on a full disk`).toBeDefined();
      expect(error!.code).toBe(DOMAIN_ERROR_CODES.disk_full);
      expect(error!.data?.code).toBe('disk_full');
      expect(error!.message).toMatch(/disk .*full/i);
      expect(error!.message).not.toMatch(/SQLITE|internal/i);
      expect(rowCounts(gw)).toEqual(before);
      expect((await rpc(gw, 'session.messages', { sessionId })).messages.length).toBeGreaterThan(0);
    } finally {
      uncap();
    }
    expect(gw.logs.filter((l) => l.level === 'error')).toEqual([]);
  });

  test('import.jsonl stopped part-way answers exactly what it committed', async () => {
    // 1 session + 1200 messages of ~700 bytes (within the 1 MiB body): batches of 500 lines, more than the room left.
    const lines = [JSON.stringify({ kind: 'session', id: 'bulk', title: 'bulk' })];
    for (let i = 0; i < 1200; i++) lines.push(JSON.stringify({ kind: 'message', session_id: 'bulk', external_id: `m${i}`, role: 'user', content: `${i} ${'word '.repeat(140)}` }));
    const before = rowCounts(gw);
    cap(CAP_KIB);
    let error: Awaited<ReturnType<typeof rpcRaw>>['error'];
    try {
      error = (await rpcRaw(gw, 'import.jsonl', { text: lines.join('\n') })).error;
    } finally {
      uncap();
    }
    expect(error?.data?.code).toBe('disk_full');
    const data = error!.data as Record<string, number>;
    expect(data.lines).toBeGreaterThan(0);
    expect(data.lines).toBeLessThan(1201);
    const after = rowCounts(gw);
    expect(after.sessions - before.sessions).toBe(data.sessions);
    expect(after.messages - before.messages).toBe(data.messages);
    expect(data.lastCommittedLine).toBe(data.lines);
    expect(error!.message).toContain(`up to line ${data.lastCommittedLine}`);
    // Room again: the same text finishes the job.
    const rest = await rpc(gw, 'import.jsonl', { text: lines.join('\n') });
    expect(rest.skipped).toBe(data.sessions! + data.messages!);
    expect(rowCounts(gw).messages - before.messages).toBe(1200);
  });
});
