/**
 * Migration 0006 (semantic_projects.rerank_endpoint) on a file made with the schema before it:
 * existing consent rows keep covering the embedding endpoint they named, cover no reranker (NULL),
 * and a new consent through SemanticIndex.enable() records the configured reranker.
 */
import { join } from 'node:path';
import { openDatabase } from '@recall/schema';
import { describe, expect, test } from 'vitest';
import { consentAllows, projectConsent, rerankConsentAllows } from '../src/sqlite/consent.js';
import { parseSemanticConfig, type SemanticIndex } from '../src/index.js';
import { createConfiguredReranker, sqliteSemanticIndex } from '../src/sqlite/index.js';
import { tempDir } from './support/temp-db.js';

const EMBED = 'http://127.0.0.1:9/v1';
const RERANK = 'http://127.0.0.1:9/rerank-server';

describe('migration 0006 on an old-schema file', () => {
  test('an old consent covers its embedding endpoint and no reranker until it is given again', async () => {
    const path = join(tempDir(), 'before-0006.db');
    const old = openDatabase(path, { migrateUpTo: '0005_change_counter' });
    const columns = () => (old.raw.prepare("select name from pragma_table_info('semantic_projects')").pluck().all() as string[]).sort();
    expect(columns()).not.toContain('rerank_endpoint');
    old.raw.prepare("insert into projects (id, name, slug) values ('p_old', 'Old', 'old')").run();
    old.raw.prepare("insert into semantic_projects (project_id, enabled, endpoint, enabled_at, updated_at) values ('p_old', 1, ?, 1, 1)").run(EMBED);
    old.close();

    const db = openDatabase(path);
    try {
      expect(db.raw.prepare("select name from pragma_table_info('semantic_projects')").pluck().all()).toContain('rerank_endpoint');
      expect(projectConsent(db, 'p_old')).toMatchObject({ enabled: true, endpoint: EMBED, rerankEndpoint: null });
      expect(consentAllows(db, 'p_old', EMBED)).toBe(true);
      expect(rerankConsentAllows(db, 'p_old', EMBED, RERANK)).toBe(false);

      const config = parseSemanticConfig({ enabled: true, provider: 'openai-compatible', endpoint: EMBED, model: 'e', dims: 8, rerank: { endpoint: RERANK, api: 'tei' } })!;
      const reranker = createConfiguredReranker({ db, config })!;
      const scope = { kind: 'project' as const, projectId: 'p_old', currentSessionId: null };
      expect(reranker.allows(scope).allowed).toBe(false);
      const index = sqliteSemanticIndex({ db, config, pollMs: 60_000 });
      try {
        await index.enable('p_old');
      } finally {
        await index.close();
      }
      expect(projectConsent(db, 'p_old')).toMatchObject({ enabled: true, endpoint: EMBED, rerankEndpoint: RERANK });
      expect(reranker.allows(scope)).toEqual({ allowed: true });
    } finally {
      db.close();
    }
  });
});
