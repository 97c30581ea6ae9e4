/**
 * The semantic consent rows of a profile database have one reader (@recall/store's
 * semantic-consent.ts): what this adapter's enable/disable return, what status and the ports'
 * consentRecord read, and what `recall migrate` copies (the store's TransferSource.consents) are the
 * same records — switched on with a reranker, switched on without one, switched off (the endpoint
 * and enabled_at kept, enabled false), and none for a project never asked.
 */
import { sqliteStorage } from '@recall/store';
import { expect, onTestFinished, test } from 'vitest';
import { disableProject, enableProject, projectConsent } from '../src/sqlite/consent.js';
import { sqliteSemanticStorage } from '../src/sqlite/index.js';
import { tempDb } from './support/temp-db.js';

const EMBED = 'http://127.0.0.1:9/v1';
const RERANK = 'http://127.0.0.1:9/rerank';

test('enable/disable, the adapter and the migrate transfer source read the same consent records', async () => {
  const db = tempDb();
  const storage = sqliteStorage(db);
  onTestFinished(() => storage.close());
  const ids: string[] = [];
  for (const name of ['With reranker', '家常菜谱', 'Switched off', 'Never asked']) ids.push((await storage.projects.create({ name })).id);
  const [withRerank, plain, off, never] = ids as [string, string, string, string];
  const written = [
    enableProject(db, withRerank, EMBED, { rerankEndpoint: RERANK, now: 1_000 }),
    enableProject(db, plain, EMBED, { now: 2_000 }),
    (enableProject(db, off, EMBED, { now: 3_000 }), disableProject(db, off, 4_000)),
  ];
  expect(written).toEqual([
    { projectId: withRerank, enabled: true, endpoint: EMBED, rerankEndpoint: RERANK, enabledAt: 1_000, updatedAt: 1_000 },
    { projectId: plain, enabled: true, endpoint: EMBED, rerankEndpoint: null, enabledAt: 2_000, updatedAt: 2_000 },
    { projectId: off, enabled: false, endpoint: EMBED, rerankEndpoint: null, enabledAt: 3_000, updatedAt: 4_000 },
  ]);
  const byId = [...written].sort((a, b) => (a.projectId < b.projectId ? -1 : 1));
  expect(await storage.transfer!.consents!()).toEqual(byId);
  for (const c of written) expect(projectConsent(db, c.projectId)).toEqual(c);
  expect(projectConsent(db, never)).toBeNull();
  const { chunks } = sqliteSemanticStorage(db);
  expect(await chunks.consentRecord(withRerank)).toEqual({ enabled: true, endpoint: EMBED, rerankEndpoint: RERANK, enabledAt: 1_000, updatedAt: 1_000 });
  expect(await chunks.consent(off)).toEqual({ enabled: false, endpoint: EMBED });
  expect(await chunks.consentRecord(never)).toBeNull();
  // Switching off a project never switched on writes no row.
  expect(disableProject(db, never, 5_000)).toMatchObject({ enabled: false, endpoint: '' });
  expect((await storage.transfer!.consents!()).map((c) => c.projectId)).toEqual(byId.map((c) => c.projectId));
});
