/**
 * Configuration loading: defaults, precedence (flags > environment > config.json > defaults),
 * validation with the stable `invalid_config` code, and redaction of the API key. The environment
 * is always passed explicitly, so no test depends on the developer's shell.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { loadConfig, redactConfig } from '../src/config.js';
import { ConfigError, DEFAULT_PORT, DEFAULT_PROFILE } from '@recall/gateway-rpc';
import { cleanup, tempHome } from './helpers.js';

afterEach(cleanup);

function homeWith(config?: unknown): string {
  const home = tempHome();
  if (config !== undefined) writeFileSync(join(home, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config));
  return home;
}

describe('loadConfig', () => {
  test('defaults: ~/.recall, profile "default", port 7821, no chat model', () => {
    const config = loadConfig({ env: {} });
    expect(config).toMatchObject({ home: join(homedir(), '.recall'), profile: DEFAULT_PROFILE, port: DEFAULT_PORT, semantic: null });
    expect(config.chat).toEqual({ baseUrl: null, apiKey: null, model: null });
    expect(DEFAULT_PORT).toBe(7821);
  });

  test('environment overrides defaults; empty variables count as unset', () => {
    const home = homeWith();
    const config = loadConfig({
      env: { RECALL_HOME: home, RECALL_PROFILE: 'work', RECALL_PORT: '9000', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', OPENAI_API_KEY: 'sk-x', RECALL_CHAT_MODEL: 'qwen', UNRELATED: '1' },
    });
    expect(config).toMatchObject({ home, profile: 'work', port: 9000, chat: { baseUrl: 'http://127.0.0.1:11434/v1', apiKey: 'sk-x', model: 'qwen' } });
    expect(loadConfig({ env: { RECALL_HOME: home, RECALL_PORT: '' } }).port).toBe(DEFAULT_PORT);
  });

  test('precedence: flags > environment > config.json > defaults', () => {
    const home = homeWith({ port: 8001, profile: 'fromfile', chat: { model: 'file-model', baseUrl: 'http://localhost:1/v1' }, semantic: { provider: 'x' } });
    expect(loadConfig({ env: { RECALL_HOME: home } })).toMatchObject({ port: 8001, profile: 'fromfile', chat: { model: 'file-model' }, semantic: { provider: 'x' } });
    expect(loadConfig({ env: { RECALL_HOME: home, RECALL_PORT: '8002', RECALL_CHAT_MODEL: 'env-model' } })).toMatchObject({ port: 8002, chat: { model: 'env-model' } });
    expect(loadConfig({ env: { RECALL_HOME: home, RECALL_PORT: '8002' }, overrides: { port: '0', profile: 'flag', home } })).toMatchObject({ port: 0, profile: 'flag' });
    expect(loadConfig({ env: { RECALL_HOME: '/elsewhere' }, overrides: { home } }).home).toBe(home);
  });

  test('a relative home is resolved against the working directory', () => {
    expect(loadConfig({ env: {}, overrides: { home: 'rel/dir' } }).home).toBe(join(process.cwd(), 'rel/dir'));
  });

  test.each([
    ['port out of range (env)', { RECALL_PORT: '70000' }, undefined, {}],
    ['port not a number (env)', { RECALL_PORT: 'http' }, undefined, {}],
    ['bad profile name (env)', { RECALL_PROFILE: '../x' }, undefined, {}],
    ['bad base URL (env)', { OPENAI_BASE_URL: 'not a url' }, undefined, {}],
    ['bad port flag', {}, undefined, { port: -1 }],
    ['bad profile flag', {}, undefined, { profile: 'a b' }],
    ['config.json not JSON', {}, '{port:', {}],
    ['config.json wrong type', {}, { port: 'x' }, {}],
    ['config.json unknown key (typo)', {}, { prot: 8000 }, {}],
    ['config.json api key (secrets stay in the environment)', {}, { chat: { apiKey: 'sk' } }, {}],
  ])('%s → ConfigError invalid_config', (_name, env, file, overrides) => {
    const home = homeWith(file);
    let error: unknown;
    try {
      loadConfig({ env: { RECALL_HOME: home, ...env }, overrides });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe('invalid_config');
  });

  test.each([
    ['config.json', {}, { port: 'abc' }],
    ['RECALL_PORT', { RECALL_PORT: 'http' }, undefined],
  ])('a port that is not a number (%s) says what a port is, not "received NaN"', (_where, env, file) => {
    const home = homeWith(file);
    expect(() => loadConfig({ env: { RECALL_HOME: home, ...env } })).toThrow(/port: .*a port number from 0 to 65535/i);
    expect(() => loadConfig({ env: { RECALL_HOME: home, ...env } })).not.toThrow(/NaN/);
  });

  test('config.json that is a directory is reported, not crashed on', () => {
    const home = tempHome();
    mkdirSync(join(home, 'config.json'));
    expect(() => loadConfig({ env: { RECALL_HOME: home } })).toThrow(ConfigError);
  });

  test('redactConfig hides the API key', () => {
    const config = loadConfig({ env: { RECALL_HOME: homeWith(), OPENAI_API_KEY: 'sk-secret' } });
    const redacted = redactConfig(config);
    expect(JSON.stringify(redacted)).not.toContain('sk-secret');
    expect(redacted.chat.apiKey).toBe('set');
  });

  test('RECALL_EMBEDDING_API_KEY is read for the semantic layer and hidden by redactConfig', () => {
    const config = loadConfig({ env: { RECALL_HOME: homeWith(), RECALL_EMBEDDING_API_KEY: 'sk-embed-secret' } });
    expect(config.semanticKeys).toEqual({ embeddingApiKey: 'sk-embed-secret', openaiApiKey: null });
    const redacted = redactConfig(config);
    expect(JSON.stringify(redacted)).not.toContain('sk-embed-secret');
    expect(redacted.semanticKeys.embeddingApiKey).toBe('set');
  });
});
