/**
 * Which API key goes to which model endpoint (config.ts `resolveApiKey`, used by loadConfig for
 * chat and by the embedding provider settings): OPENAI_API_KEY only to OpenAI's own endpoint or to
 * the one named by OPENAI_BASE_URL; other endpoints need the Recall-specific key; a key bound for
 * plain http on a non-loopback host is warned about. Environment passed explicitly.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { loadConfig, resolveApiKey } from '../src/config.js';
import { cleanup, tempHome } from './helpers.js';

afterEach(cleanup);

function homeWith(config?: unknown): string {
  const home = tempHome();
  if (config !== undefined) writeFileSync(join(home, 'config.json'), JSON.stringify(config));
  return home;
}

describe('chat key (loadConfig)', () => {
  test.each([
    // [case, env, config.json chat.baseUrl, expected key, warning pattern or null]
    ['OpenAI default endpoint gets OPENAI_API_KEY', { OPENAI_API_KEY: 'sk-o' }, undefined, 'sk-o', null],
    ['https://api.openai.com/v1 from config.json gets OPENAI_API_KEY', { OPENAI_API_KEY: 'sk-o' }, 'https://api.openai.com/v1', 'sk-o', null],
    ['another endpoint from config.json does NOT get OPENAI_API_KEY', { OPENAI_API_KEY: 'sk-o' }, 'https://llm.example.com/v1', null, /OPENAI_API_KEY is not sent to the chat endpoint https:\/\/llm\.example\.com.*RECALL_CHAT_API_KEY/],
    ['RECALL_CHAT_BASE_URL elsewhere does NOT get OPENAI_API_KEY', { OPENAI_API_KEY: 'sk-o', RECALL_CHAT_BASE_URL: 'https://llm.example.com/v1' }, undefined, null, /not sent/],
    ['http://api.openai.com (not https) does NOT get OPENAI_API_KEY', { OPENAI_API_KEY: 'sk-o' }, 'http://api.openai.com/v1', null, /not sent/],
    ['a look-alike host does NOT get OPENAI_API_KEY', { OPENAI_API_KEY: 'sk-o' }, 'https://api.openai.com.evil.example/v1', null, /not sent/],
    ['OPENAI_BASE_URL + OPENAI_API_KEY travel together', { OPENAI_API_KEY: 'sk-o', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' }, undefined, 'sk-o', null],
    ['RECALL_CHAT_API_KEY goes to the configured endpoint', { RECALL_CHAT_API_KEY: 'sk-r', OPENAI_API_KEY: 'sk-o' }, 'https://llm.example.com/v1', 'sk-r', null],
    ['a key over http to a non-loopback host is warned about', { RECALL_CHAT_API_KEY: 'sk-r' }, 'http://10.0.0.5:8000/v1', 'sk-r', /unencrypted \(http\) to 10\.0\.0\.5:8000/],
    ['OPENAI_BASE_URL over http to a LAN host: used, and warned', { OPENAI_API_KEY: 'sk-o', OPENAI_BASE_URL: 'http://gpu-box.lan/v1' }, undefined, 'sk-o', /unencrypted/],
    ['http on loopback is fine', { RECALL_CHAT_API_KEY: 'sk-r' }, 'http://localhost:11434/v1', 'sk-r', null],
    ['no key at all: no warning', {}, 'http://10.0.0.5:8000/v1', null, null],
  ])('%s', (_case, env, baseUrl, expected, warning) => {
    const home = homeWith(baseUrl === undefined ? undefined : { chat: { baseUrl } });
    const config = loadConfig({ env: { RECALL_HOME: home, ...env } });
    expect(config.chat.apiKey).toBe(expected);
    if (warning === null) expect(config.warnings).toEqual([]);
    else {
      expect(config.warnings).toHaveLength(1);
      expect(config.warnings[0]).toMatch(warning);
      // A warning never contains the key itself.
      for (const secret of ['sk-o', 'sk-r']) expect(config.warnings[0]).not.toContain(secret);
    }
  });
});

describe('embedding key (the same rule)', () => {
  test.each([
    [{ RECALL_EMBEDDING_API_KEY: 'sk-e' }, 'http://10.1.2.3:8080/v1', /embedding API key will be sent unencrypted \(http\) to 10\.1\.2\.3:8080/],
    [{ OPENAI_API_KEY: 'sk-o' }, 'https://embed.example.com/v1', /OPENAI_API_KEY is not sent to the embedding endpoint.*RECALL_EMBEDDING_API_KEY/],
    [{ RECALL_EMBEDDING_API_KEY: 'sk-e' }, 'http://127.0.0.1:11434/v1', null],
  ])('loadConfig warns about the embedding endpoint: %j → %s', (env, endpoint, warning) => {
    const home = homeWith({ semantic: { provider: 'openai-compatible', endpoint, model: 'm', dims: 8 } });
    const config = loadConfig({ env: { RECALL_HOME: home, ...env } });
    if (warning === null) expect(config.warnings).toEqual([]);
    else expect(config.warnings).toEqual([expect.stringMatching(warning)]);
  });

  test.each([
    [{ baseUrl: null, baseUrlFromOpenAiEnv: false, dedicatedKey: undefined, openAiKey: 'sk-o' }, 'sk-o', 0],
    [{ baseUrl: 'https://embed.example.com/v1', baseUrlFromOpenAiEnv: false, dedicatedKey: undefined, openAiKey: 'sk-o' }, null, 1],
    [{ baseUrl: 'https://embed.example.com/v1', baseUrlFromOpenAiEnv: false, dedicatedKey: 'sk-e', openAiKey: 'sk-o' }, 'sk-e', 0],
    [{ baseUrl: 'http://192.168.1.9/v1', baseUrlFromOpenAiEnv: false, dedicatedKey: 'sk-e', openAiKey: undefined }, 'sk-e', 1],
  ])('%j → %s', (input, expected, warnings) => {
    const result = resolveApiKey({ purpose: 'embedding', ...input });
    expect(result.apiKey).toBe(expected);
    expect(result.warnings).toHaveLength(warnings);
    if (warnings > 0 && expected === null) expect(result.warnings[0]).toContain('RECALL_EMBEDDING_API_KEY');
  });
});
