/**
 * openStorage() picks the opener of the configured kind, refuses bad configurations and missing
 * adapters with typed errors before calling anything, and redactStorageUrl() never lets a password through.
 */
import { describe, expect, it } from 'vitest';
import { openStorage, redactStorageUrl, StorageConfigError, type StorageConfig, type StorageOpeners } from '../src/index.js';

/** Openers that answer with which one ran (as an error, so no Storage has to be faked). */
const openers: StorageOpeners = {
  sqlite: async (c) => Promise.reject(new Error(`sqlite:${c.path}`)),
  postgres: async (c) => Promise.reject(new Error(`postgres:${redactStorageUrl(c.url)}`)),
};

async function outcome(config: unknown, with_: StorageOpeners = openers): Promise<string> {
  try {
    await openStorage(config as StorageConfig, with_);
    return 'opened';
  } catch (error) {
    return (error as { code?: string }).code ?? (error as Error).message;
  }
}

describe('openStorage', () => {
  it.each([
    [{ kind: 'sqlite', path: '/tmp/recall.db' }, 'sqlite:/tmp/recall.db'],
    [{ kind: 'postgres', url: 'postgresql://u:secret@db:5432/recall' }, 'postgres:postgresql://u:***@db:5432/recall'],
    [{ kind: 'postgres', url: 'postgres://db/recall' }, 'postgres:postgres://db/recall'],
    [{ kind: 'sqlite', path: '' }, 'invalid_storage_config'],
    [{ kind: 'postgres', url: 'mysql://db/x' }, 'invalid_storage_config'],
    [{ kind: 'mongo' }, 'invalid_storage_config'],
    [null, 'invalid_storage_config'],
  ])('%j → %s', async (config, expected) => {
    expect(await outcome(config)).toBe(expected);
  });

  it('a kind without an adapter is storage_unavailable, named in details', async () => {
    expect(await outcome({ kind: 'postgres', url: 'postgres://db/x' }, { sqlite: openers.sqlite! })).toBe('storage_unavailable');
    await expect(openStorage({ kind: 'sqlite', path: '' }, {})).rejects.toBeInstanceOf(StorageConfigError);
  });

  it('redactStorageUrl masks the password and only the password', () => {
    expect(redactStorageUrl('postgresql://recall:p%40ss@10.0.0.1/team?sslmode=require')).toBe('postgresql://recall:***@10.0.0.1/team?sslmode=require');
    expect(redactStorageUrl('postgresql://recall@10.0.0.1/team')).toBe('postgresql://recall@10.0.0.1/team');
    expect(redactStorageUrl('not a url with secret')).toBe('(not a URL)');
  });
});
