/**
 * The configuration sources for chat (RECALL_CHAT_* over OPENAI_*, limits from config.json, the key
 * only from the environment): loadConfig reads them, @recall/chat's resolveChatSettings applies the
 * rules (its own unit tests are in packages/chat/test/units.test.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { resolveChatSettings } from '@recall/chat';
import { loadConfig } from '../src/config.js';

describe('chat configuration sources (loadConfig)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const homeWith = (file: unknown): string => {
    const home = mkdtempSync(join(tmpdir(), 'recall-chatcfg-'));
    dirs.push(home);
    writeFileSync(join(home, 'config.json'), JSON.stringify(file));
    return home;
  };

  test('RECALL_CHAT_* win over OPENAI_*; limits come from config.json', () => {
    const home = homeWith({ chat: { model: 'file-model', baseUrl: 'http://127.0.0.1:1/v1', maxToolRounds: 2, turnTimeoutMs: 30_000, maxRetries: 0 } });
    const config = loadConfig({
      env: { RECALL_HOME: home, OPENAI_API_KEY: 'sk-openai', RECALL_CHAT_API_KEY: 'sk-recall', OPENAI_BASE_URL: 'http://127.0.0.1:2/v1', RECALL_CHAT_BASE_URL: 'http://127.0.0.1:3/v1' },
    });
    expect(config.chat).toEqual({ baseUrl: 'http://127.0.0.1:3/v1', apiKey: 'sk-recall', model: 'file-model', maxToolRounds: 2, turnTimeoutMs: 30_000, maxRetries: 0 });
    expect(resolveChatSettings(config.chat)).toMatchObject({ configured: true, maxToolRounds: 2, turnTimeoutMs: 30_000, maxRetries: 0 });
    // OPENAI_API_KEY is for OpenAI's endpoint: it is not sent to a base URL from config.json (test/api-keys.test.ts).
    expect(loadConfig({ env: { RECALL_HOME: home, OPENAI_API_KEY: 'sk-openai' } }).chat).toMatchObject({ apiKey: null, baseUrl: 'http://127.0.0.1:1/v1' });
  });

  test('out-of-bounds limits and a key in config.json are refused', () => {
    expect(() => loadConfig({ env: { RECALL_HOME: homeWith({ chat: { maxToolRounds: 0 } }) } })).toThrow(/maxToolRounds/);
    expect(() => loadConfig({ env: { RECALL_HOME: homeWith({ chat: { apiKey: 'sk' } }) } })).toThrow(/invalid_config|Invalid configuration/);
  });
});
