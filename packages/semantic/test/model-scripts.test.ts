/**
 * The writing systems a model declares it reads (`scripts`): the built-in USE-lite says Latin, an
 * OpenAI-compatible endpoint says nothing (every script) unless `semantic.scripts` names them, and
 * both semantic sources (the profile file's and the storage ports') hand the provider's declaration
 * to session_search, which gates the hits of queries in other scripts (search-tool scripts.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@recall/schema';
import { sqliteStorage } from '@recall/store';
import { afterAll, describe, expect, test } from 'vitest';
import { createProvider, parseSemanticConfig, storageSemanticSource, USE_LITE_SCRIPTS } from '../src/index.js';
import { createConfiguredSemanticSource, sqliteSemanticStorage } from '../src/sqlite/index.js';

const dir = mkdtempSync(join(tmpdir(), 'recall-model-scripts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OPENAI = { enabled: true, provider: 'openai-compatible', endpoint: 'http://127.0.0.1:9/v1', model: 'm', dims: 4 };

describe('the scripts a model reads', () => {
  test.each([
    ['use-lite', { enabled: true, provider: 'use-lite' }, ['latin']],
    ['openai-compatible, not configured', OPENAI, undefined],
    ['openai-compatible, configured', { ...OPENAI, scripts: ['latin', 'cyrillic', 'latin'] }, ['latin', 'cyrillic']],
  ] as const)('%s: config, provider info and both sources say %j', async (_name, raw, scripts) => {
    const config = parseSemanticConfig(raw)!;
    expect(config.scripts).toEqual(scripts);
    const provider = createProvider(config, { redact: null });
    try {
      expect(provider.info.scripts).toEqual(scripts);
      const db = openDatabase(join(dir, `${Math.random().toString(36).slice(2)}.db`));
      try {
        const fileSource = createConfiguredSemanticSource({ db, config, provider })!;
        const portSource = storageSemanticSource({ storage: { ...sqliteStorage(db), semantic: sqliteSemanticStorage(db) }, config, provider })!;
        expect(fileSource.scripts).toEqual(scripts);
        expect(portSource.scripts).toEqual(scripts);
      } finally {
        db.close();
      }
    } finally {
      await provider.close();
    }
  });

  test('USE_LITE_SCRIPTS is Latin only', () => {
    expect(USE_LITE_SCRIPTS).toEqual(['latin']);
  });

  test.each([
    [{ enabled: true, provider: 'use-lite', scripts: ['han'] }, 'semantic.provider'],
    [{ ...OPENAI, scripts: [] }, 'semantic.scripts'],
    [{ ...OPENAI, scripts: ['klingon'] }, 'semantic.scripts'],
  ])('invalid %j names %s', (raw, field) => {
    expect(() => parseSemanticConfig(raw)).toThrow(expect.objectContaining({ code: 'invalid_semantic_config', message: expect.stringContaining(field) }));
  });
});
