/**
 * Writes by other processes reach the UI (packages/gateway-rpc tests every kind of foreign write on
 * a second connection). Here: every kind of foreign write a client can see —
 * rewind, delete, compaction, edit, hide, rename, move, append, import, project and folder edits,
 * also done with raw SQL that bumps no `updated_at` (an older or foreign writer) — made through a
 * SECOND connection to the same file, each of which must produce its change events (and writes to
 * derived tables none); then a real gateway with a WebSocket client while `recall mv` /
 * `recall import` run as real child processes on the same home. The gateway notices them through
 * `PRAGMA data_version` and the `change_counter` fingerprint and sends the usual change events
 * (without ids: "refresh everything"), while its own writes keep their precise events and trigger
 * no extra id-less ones.
 */
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { assertCliBuilt, cleanupTemp, FIXTURES, runCli, tempDir } from './cli-helpers.js';
import { cleanup, startTestGateway, wsConnect } from './helpers.js';

beforeAll(() => assertCliBuilt());
afterEach(async () => {
  await cleanup();
  cleanupTemp();
});

async function seededGateway() {
  const home = tempDir();
  const imported = await runCli(['import', join(FIXTURES, 'small.jsonl'), '--home', home]);
  expect(imported.code, imported.stderr).toBe(0);
  const gw = await startTestGateway({ home, externalWritePollMs: 100 });
  const client = await wsConnect(gw.wsUrl, { headers: { authorization: `Bearer ${gw.token}` } });
  return { home, gw, client };
}

// Id-less means no ids at all: `unassigned: true` names the "No project" group, and a client that
// refreshes only the groups an event names would then leave the moved conversation's groups stale.
const idless = (type: string) => (n: { params: { type: string; sessionIds?: unknown; projectIds?: unknown; unassigned?: unknown } }) =>
  n.params.type === type && n.params.sessionIds === undefined && n.params.projectIds === undefined && n.params.unassigned === undefined;

describe('writes by other processes', () => {
  test.each([
    ['recall mv', (home: string) => ['mv', 's-alpha-1', 'p_beta', '--home', home], ['sessions.changed']],
    ['recall import', (home: string) => ['import', join(FIXTURES, 'broken.jsonl'), '--home', home], ['projects.changed', 'sessions.changed', 'messages.changed']],
  ])('%s from a shell: connected clients get the change events', async (_name, args, types) => {
    const { home, client } = await seededGateway();
    const result = await runCli(args(home));
    expect([0, 1]).toContain(result.code); // broken.jsonl imports its valid lines and exits 1
    for (const type of types) {
      await expect(client.waitForNotification(idless(type), 5_000)).resolves.toBeDefined();
    }
    await client.close();
  });

  test("the gateway's own writes send their precise events only", async () => {
    const { gw, client } = await seededGateway();
    await client.call('session.project.set', { sessionId: 's-alpha-1', projectId: 'p_beta' });
    await client.waitForNotification((n) => n.params.type === 'sessions.changed' && Array.isArray(n.params.sessionIds));
    // Several poll intervals: no id-less event may follow our own write.
    await new Promise((r) => setTimeout(r, 600));
    expect(client.notifications.filter(idless('sessions.changed'))).toEqual([]);
    expect(gw.port).toBeGreaterThan(0);
    await client.close();
  });
});
