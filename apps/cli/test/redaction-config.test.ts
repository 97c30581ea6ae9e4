/**
 * `privacy.redact` in config.json: read by config.ts only, strict (typos and out-of-bounds values are
 * errors), patterns compiled and checked at load (a pattern that could backtrack catastrophically is a
 * config error naming it), per-surface switches default on, and `recall index status` says which
 * surfaces redact.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { ConfigError } from '@recall/gateway-rpc';
import { openDatabase, profileDatabasePath } from '@recall/schema';
import { loadConfig, redactionPolicy } from '../src/config.js';
import { assertCliBuilt, runCli } from './cli-helpers.js';

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

function homeWith(config: unknown): string {
  const home = mkdtempSync(join(tmpdir(), 'recall-redact-config-'));
  homes.push(home);
  writeFileSync(join(home, 'config.json'), JSON.stringify(config));
  return home;
}

const load = (config: unknown) => loadConfig({ overrides: { home: homeWith(config) }, env: {} });

describe('privacy.redact', () => {
  test('absent: every surface on, no extra patterns', () => {
    expect(load({}).redaction).toEqual({ surfaces: { embedding: true, chat: true, search_results: true } });
  });

  test('extra patterns, allow-list and switches become the policy', () => {
    const config = load({ privacy: { redact: { extraPatterns: [{ name: 'acme', pattern: 'ACME-[0-9]{6}', flags: 'i' }], allow: ['AKIAIOSFODNN7EXAMPLE', { pattern: 'sk_test_[0-9]+' }], chat: false } } });
    expect(config.redaction).toEqual({
      extraPatterns: [{ name: 'acme', pattern: 'ACME-[0-9]{6}', flags: 'i' }],
      allow: ['AKIAIOSFODNN7EXAMPLE', { pattern: 'sk_test_[0-9]+' }],
      surfaces: { embedding: true, chat: false, search_results: true },
    });
    const policy = redactionPolicy(config);
    expect(policy.text('embedding')('acme-123456 AKIAIOSFODNN7EXAMPLE sk_test_123 AKIAZZZZZZZZZZZZZZZZ')).toBe('[redacted:acme] AKIAIOSFODNN7EXAMPLE sk_test_123 [redacted:aws_access_key_id]');
    expect(policy.text('chat')('acme-123456 <private>x</private>')).toBe('acme-123456 [redacted:private]');
  });

  test.each([
    ['a catastrophic pattern', { extraPatterns: [{ name: 'slow', pattern: '(a+)+$' }] }, /slow.*refused/],
    ['an invalid regular expression', { extraPatterns: [{ name: 'bad', pattern: '(' }] }, /not a valid regular expression/],
    ['a name that is not lower-case', { extraPatterns: [{ name: 'Bad', pattern: 'x' }] }, /privacy\.redact\.extraPatterns\.0\.name/],
    ['a built-in kind as name', { extraPatterns: [{ name: 'jwt', pattern: 'x' }] }, /built-in kind/],
    ['an unknown key (typo)', { embeding: false }, /Unrecognized key/i],
    ['a too long pattern', { extraPatterns: [{ name: 'long', pattern: 'a'.repeat(513) }] }, /privacy\.redact\.extraPatterns\.0\.pattern/],
    ['too many patterns', { allow: Array.from({ length: 33 }, (_, i) => `x${i}`) }, /privacy\.redact\.allow/],
    ['a switch that is not a boolean', { chat: 'no' }, /privacy\.redact\.chat/],
  ])('refused: %s', (_name, redact, message) => {
    let error: unknown;
    try {
      load({ privacy: { redact } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe('invalid_config');
    expect((error as Error).message).toMatch(message);
  });
});

describe('recall index status', () => {
  beforeAll(() => assertCliBuilt());
  test.each([
    [{}, 'Secrets:  redacted before anything is sent (embedding, chat, search results)'],
    [{ privacy: { redact: { chat: false } } }, 'Secrets:  redacted for embedding, search results; not for chat (switched off in config.json)'],
  ])('says which surfaces redact (%j)', async (config, line) => {
    const home = homeWith(config);
    openDatabase(profileDatabasePath(home, 'default')).close();
    const result = await runCli(['index', 'status', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(line);
  });
});
