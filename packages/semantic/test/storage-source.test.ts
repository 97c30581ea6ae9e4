/**
 * storageSemanticSource() on both storage adapters (one table: a SQLite profile file with its
 * semantic rows, a throwaway PostgreSQL database with pgvector chunks): status from consent and
 * chunk rows, search inside the caller's project only (never another project's nearer vector),
 * roles, dates, the caller's own live messages and the model's similarity floor applied — and, on
 * SQLite, the same hits as the file's own source (createConfiguredSemanticSource: one query path).
 * The query provider is a small deterministic bag-of-words embedder (a real object, no network).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@recall/config/postgres';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import type { Storage } from '@recall/storage-ports';
import { sqliteStorage } from '@recall/store';
import { openPostgresStorage } from '@recall/store-postgres';
import { afterAll, describe, expect, test } from 'vitest';
import { parseSemanticConfig, storageSemanticSource } from '../src/index.js';
import { createConfiguredSemanticSource, sqliteSemanticStorage } from '../src/sqlite/index.js';

const ENDPOINT = 'http://127.0.0.1:9/v1';
const AXES = ['fish', 'tax', 'garden', 'code'];
/** Bag of words over AXES (+1 so no vector is zero), L2-normalised by the source. */
function embedText(text: string): Float32Array {
  return Float32Array.from(AXES.map((w) => (text.includes(w) ? 3 : 0) + 0.1));
}
const provider = {
  info: { provider: 'openai-compatible' as const, endpoint: ENDPOINT, model: 'bag', dims: AXES.length },
  embed: async (texts: readonly string[]) => texts.map(embedText),
};
const config = parseSemanticConfig({ enabled: true, provider: 'openai-compatible', endpoint: ENDPOINT, model: 'bag', dims: AXES.length, fusion: { similarityFloor: 0.5 } })!;
const unit = (v: Float32Array) => {
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
};
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const dir = mkdtempSync(join(tmpdir(), 'recall-storage-source-'));
let cluster: ThrowawayPostgres | undefined;
const files = new Map<Storage, RecallDatabase>();
afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const ADAPTERS: Array<[name: string, open: () => Promise<Storage>]> = [
  [
    'sqlite',
    async () => {
      const db = openDatabase(join(dir, `s${files.size}.db`));
      const storage = { ...sqliteStorage(db, { ownsDatabase: true }), semantic: sqliteSemanticStorage(db) };
      files.set(storage, db);
      return storage;
    },
  ],
  ['postgres', async () => openPostgresStorage({ kind: 'postgres', url: (cluster ??= await startThrowawayPostgres()).createDatabase('source') })],
];

/** Two projects with fish/tax/garden texts (the other project holds the closest fish text), embedded through claim/complete. */
async function seed(s: Storage) {
  const { chunks, claims } = s.semantic!;
  await s.projects.create({ id: 'p_home', name: 'Home' });
  await s.projects.create({ id: 'p_work', name: 'Work' });
  await s.sessions.create({ id: 's_home', projectId: 'p_home' });
  await s.sessions.create({ id: 's_now', projectId: 'p_home' });
  await s.sessions.create({ id: 's_work', projectId: 'p_work' });
  const t0 = Date.UTC(2026, 0, 1);
  const home = (
    await s.messages.append('s_home', [
      { role: 'user', content: 'grill the fish with lemon', createdAt: t0 },
      { role: 'assistant', content: 'the garden needs water', createdAt: t0 + 1000 },
      { role: 'user', content: 'fish and garden ponds', createdAt: t0 + 2000 },
    ])
  ).messages;
  const now = (await s.messages.append('s_now', [{ role: 'user', content: 'fish fish fish', createdAt: t0 + 3000 }])).messages;
  const work = (await s.messages.append('s_work', [{ role: 'user', content: 'fish', createdAt: t0 }])).messages;
  const all = [...home, ...now, ...work];
  const fp = await chunks.ensureFingerprint({ ...provider.info, normalization: 'l2', chunkerVersion: 1 });
  await chunks.plan(fp, all.map((m) => ({ messageId: m.id, chunkIndex: 0, start: 0, end: m.content.length, contentHash: sha(m.content) })));
  return { t0, home, now, work, all, fp };
}

async function embedAll(s: Storage, fp: number, projects: readonly string[]) {
  for (const p of projects) await s.semantic!.chunks.setConsent(p, ENDPOINT, true);
  for (;;) {
    const work = await s.semantic!.claims.claim({ fingerprintId: fp, endpoint: ENDPOINT, owner: 'w', limit: 100, leaseMs: 60_000, maxAttempts: 3 });
    if (work.length === 0) break;
    await s.semantic!.claims.complete('w', work.map((chunk) => ({ chunk, vector: unit(embedText(chunk.text)) })));
  }
}

const signal = new AbortController().signal;

describe.each(ADAPTERS)('storageSemanticSource: %s', (name, open) => {
  test('status follows consent and chunk rows; search stays in the project with roles, dates, own live messages and the floor applied', { timeout: 60_000 }, async () => {
    const s = await open();
    try {
      const x = await seed(s);
      expect(storageSemanticSource({ storage: { ...s, semantic: undefined }, config, provider })).toBeNull();
      const source = storageSemanticSource({ storage: s, config, provider })!;
      const scope = { kind: 'project' as const, projectId: 'p_home', currentSessionId: 's_now' };
      expect(await source.status(scope)).toEqual({ status: 'disabled', coverage: 'unknown', reason: 'project_not_enabled' });
      await s.semantic!.chunks.setConsent('p_home', 'http://other.example/v1', true);
      expect((await source.status(scope)).reason).toBe('consent_for_other_endpoint');
      await s.semantic!.chunks.setConsent('p_home', ENDPOINT, true);
      expect(await source.status(scope)).toEqual({ status: 'partial', coverage: { indexed: 0, total: 4 }, reason: 'indexing' });
      await embedAll(s, x.fp, ['p_home', 'p_work']);
      expect(await source.status(scope)).toEqual({ status: 'ready', coverage: { indexed: 4, total: 4 } });
      expect((await source.status({ kind: 'own', projectId: null, currentSessionId: 's_home', sessionIds: ['s_home'] })).reason).toBe('no_project');

      const search = async (query: string, options: { roles?: string[]; since?: number; until?: number } = {}) =>
        (await source.search(query, scope, { limit: 10, signal, ...options })).map((h) => h.messageId);
      const [fish, garden, pond] = x.home;
      // The other project's "fish" and the caller's own live "fish fish fish" are nearer than anything here: neither is returned.
      expect(await search('fish')).toEqual([fish!.id, pond!.id]);
      expect(await search('garden')).toEqual([garden!.id, pond!.id]);
      expect(await search('fish', { roles: ['assistant'] })).toEqual([]);
      expect(await search('garden', { since: x.t0 + 1500 })).toEqual([pond!.id]);
      // Below the model's similarity floor (0.5): nothing is close to "code".
      expect(await search('code')).toEqual([]);
      expect(source.embedCalls).toBe(5);

      if (name === 'sqlite') {
        const fileSource = createConfiguredSemanticSource({ db: files.get(s)!, config, provider })!;
        for (const q of ['fish', 'garden', 'tax', 'fish garden', 'code']) {
          const a = await source.search(q, scope, { limit: 10, signal });
          const b = await fileSource.search(q, scope, { limit: 10, signal });
          expect(a.map((h) => [h.messageId, h.score.toFixed(4)]), q).toEqual(b.map((h) => [h.messageId, h.score.toFixed(4)]));
        }
      }
    } finally {
      await s.close();
    }
  });
});
