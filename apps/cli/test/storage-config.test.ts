/**
 * The storage part of the configuration: `--database` over RECALL_DATABASE_URL over config.json
 * `storage`, else the profile's SQLite file; bad URLs are invalid_config without the value echoed;
 * redactConfig masks the password.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, redactConfig } from '../src/config.js';

const home = mkdtempSync(join(tmpdir(), 'recall-storage-config-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const FLAG = 'postgresql://u:flagpw@flag.example/db';
const ENV = 'postgres://u:envpw@env.example/db';
const FILE = 'postgresql://u:filepw@file.example/db';

describe('storage configuration', () => {
  it.each([
    ['nothing set → the profile SQLite file', {}, {}, null, { kind: 'sqlite', path: join(home, 'profiles', 'default', 'recall.db') }],
    ['config.json storage', {}, {}, { kind: 'postgres', url: FILE }, { kind: 'postgres', url: FILE }],
    ['RECALL_DATABASE_URL over the file', {}, { RECALL_DATABASE_URL: ENV }, { kind: 'postgres', url: FILE }, { kind: 'postgres', url: ENV }],
    ['--database over both', { database: FLAG }, { RECALL_DATABASE_URL: ENV }, { kind: 'postgres', url: FILE }, { kind: 'postgres', url: FLAG }],
    ['file kind sqlite', {}, {}, { kind: 'sqlite' }, { kind: 'sqlite' }],
  ])('%s', (_name, overrides, env, file, expected) => {
    if (file) writeFileSync(join(home, 'config.json'), JSON.stringify({ storage: file }));
    else rmSync(join(home, 'config.json'), { force: true });
    const config = loadConfig({ overrides: { home, ...overrides }, env });
    expect(config.storage).toMatchObject(expected);
  });

  it.each([
    ['--database', { database: 'mysql://u:secretpw@h/db' }, {}, null],
    ['RECALL_DATABASE_URL', {}, { RECALL_DATABASE_URL: 'http://u:secretpw@h/db' }, null],
    ['config.json', {}, {}, { kind: 'postgres', url: 'ftp://u:secretpw@h/db' }],
    ['config.json unknown kind', {}, {}, { kind: 'mysql' }],
  ])('a bad %s is invalid_config and never echoes the value', (_name, overrides, env, file) => {
    if (file) writeFileSync(join(home, 'config.json'), JSON.stringify({ storage: file }));
    else rmSync(join(home, 'config.json'), { force: true });
    let error: unknown;
    try {
      loadConfig({ overrides: { home, ...overrides }, env });
    } catch (e) {
      error = e;
    }
    expect((error as { code?: string }).code).toBe('invalid_config');
    expect(String((error as Error).message)).not.toContain('secretpw');
  });

  it('redactConfig masks the password', () => {
    rmSync(join(home, 'config.json'), { force: true });
    const shown = JSON.stringify(redactConfig(loadConfig({ overrides: { home, database: FLAG }, env: {} })));
    expect(shown).not.toContain('flagpw');
    expect(shown).toContain('u:***@flag.example');
  });
});
