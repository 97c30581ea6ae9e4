/**
 * BulkImport.importMessages (the path `recall migrate` writes through): one transaction per batch,
 * keyword rows with their scope copies, idempotent re-runs, and all-or-nothing — a batch with a
 * message of an unknown session leaves nothing behind, neither messages nor keyword rows.
 */
import type { Message } from '@recall/rpc-contract';
import type { Storage } from '@recall/storage-ports';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresStorage } from '../src/index.js';
import { useCluster } from './cluster.js';

const cluster = useCluster();
const opened: Storage[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

const message = (id: number, sessionId: string, content: string, visibility: Message['visibility'] = 'live'): Message => ({
  id,
  sessionId,
  role: id % 2 ? 'user' : 'assistant',
  content,
  toolName: null,
  toolCalls: null,
  toolCallId: null,
  externalId: null,
  createdAt: 1_700_000_000_000 + id,
  visibility,
  editedAt: null,
});

describe('BulkImport.importMessages', () => {
  it('writes keyword rows with their scope copies, is idempotent, and is all-or-nothing per batch', async () => {
    const url = cluster.freshUrl();
    const db = await cluster.open(url);
    const s = postgresStorage(db, url);
    opened.push(s);
    const bulk = s.bulk!;
    await s.projects.create({ id: 'p_a', name: 'A' });
    await s.sessions.create({ id: 'sa', projectId: 'p_a' });
    await s.sessions.create({ id: 'sn' });
    const batch = [message(10, 'sa', 'retry the deploy'), message(11, 'sn', '番茄炒蛋'), message(12, 'sa', 'gone', 'deleted'), message(13, 'sa', 'older', 'rewound')];
    expect(await bulk.importMessages(batch)).toBe(4);
    expect(await bulk.importMessages(batch)).toBe(0); // a re-run inserts nothing
    const rows = (await db.pool.query('select message_id, session_id, project_id, role, visibility from message_keywords order by message_id')).rows;
    expect(rows).toEqual([
      { message_id: '10', session_id: 'sa', project_id: 'p_a', role: 'assistant', visibility: 'live' },
      { message_id: '11', session_id: 'sn', project_id: null, role: 'user', visibility: 'live' },
      { message_id: '13', session_id: 'sa', project_id: 'p_a', role: 'user', visibility: 'rewound' },
    ]);
    const bad = [message(20, 'sa', 'retry again'), message(21, 's_missing', 'retry nowhere')];
    await expect(bulk.importMessages(bad)).rejects.toMatchObject({ code: '23503' });
    expect((await db.pool.query('select count(*)::int as n from messages where id >= 20')).rows[0].n).toBe(0);
    expect((await db.pool.query('select count(*)::int as n from message_keywords where message_id >= 20')).rows[0].n).toBe(0);
    await bulk.finish();
    const hits = await s.keyword.search({ kind: 'project', projectId: 'p_a' }, 'retry');
    expect(hits.hits.map((h) => h.messageId)).toEqual([10]);
  });
});

describe('BulkImport.importConsents', () => {
  it('inserts consent only for projects without one; a re-run or a later change on the target is never overridden', async () => {
    const url = cluster.freshUrl();
    const db = await cluster.open(url);
    const s = postgresStorage(db, url);
    opened.push(s);
    await s.projects.create({ id: 'p_a', name: 'A' });
    await s.projects.create({ id: 'p_b', name: 'B' });
    const rows = [
      { projectId: 'p_a', enabled: true, endpoint: 'http://e/v1', rerankEndpoint: 'http://r/v1', enabledAt: 1_700_000_000_000, updatedAt: 1_700_000_000_001 },
      { projectId: 'p_b', enabled: false, endpoint: 'http://e/v1', rerankEndpoint: null, enabledAt: null, updatedAt: 1_700_000_000_002 },
    ];
    expect(await s.bulk!.importConsents!(rows)).toBe(2);
    expect(await s.transfer!.consents!()).toEqual(rows);
    await s.semantic!.chunks.setConsent('p_a', 'http://e/v1', false);
    expect(await s.bulk!.importConsents!(rows)).toBe(0);
    expect((await s.transfer!.consents!()).map((c) => [c.projectId, c.enabled])).toEqual([['p_a', false], ['p_b', false]]);
  });
});
