/**
 * The `semantic` config section: defaults, bounds, provider-specific requirements, endpoint
 * normalisation and which API key may be sent where.
 */
import { describe, expect, test } from 'vitest';
import { OPENAI_ENDPOINT, parseSemanticConfig, resolveEmbeddingApiKey, USE_LITE_SIMILARITY_FLOOR } from '../src/index.js';
import { normalizeEndpoint } from '../src/config.js';

describe('parseSemanticConfig', () => {
  test('absent section = not configured', () => {
    expect(parseSemanticConfig(undefined)).toBeNull();
    expect(parseSemanticConfig(null)).toBeNull();
  });

  test('use-lite defaults: disabled until switched on, user+assistant, 512-d local', () => {
    expect(parseSemanticConfig({})).toMatchObject({ enabled: false, provider: 'use-lite', endpoint: 'local:use-lite', dims: 512, indexedRoles: ['user', 'assistant'], includeToolOutput: false });
  });

  test.each([
    [{ enabled: true, provider: 'openai-compatible', endpoint: 'http://127.0.0.1:11434/v1/', model: 'bge-m3', dims: 1024 }, { endpoint: 'http://127.0.0.1:11434/v1', model: 'bge-m3', dims: 1024, batchSize: 32, sendDimensions: false }],
    [{ enabled: true, provider: 'openai-compatible', endpoint: 'HTTPS://API.OPENAI.COM/v1', model: 'text-embedding-3-small', dims: 512, sendDimensions: true }, { endpoint: OPENAI_ENDPOINT, sendDimensions: true }],
    [{ enabled: true, includeToolOutput: true }, { indexedRoles: ['user', 'assistant', 'tool'] }],
    [{ enabled: true, indexedRoles: ['user', 'tool'] }, { indexedRoles: ['user'] }],
  ])('valid %j', (raw, expected) => {
    expect(parseSemanticConfig(raw)).toMatchObject(expected);
  });

  test.each([
    [{ provider: 'openai-compatible', model: 'bge-m3', dims: 1024 }, 'semantic.endpoint'],
    [{ provider: 'openai-compatible', endpoint: 'http://x/v1', dims: 1024 }, 'semantic.model'],
    [{ provider: 'openai-compatible', endpoint: 'http://x/v1', model: 'm' }, 'semantic.dims'],
    [{ provider: 'openai-compatible', endpoint: 'ftp://x/v1', model: 'm', dims: 3 }, 'semantic.endpoint'],
    [{ provider: 'use-lite', endpoint: 'http://x/v1' }, 'semantic.provider'],
    [{ provider: 'nope' }, 'semantic.provider'],
    [{ batchSize: 0 }, 'semantic.batchSize'],
    [{ timeoutMs: 10 }, 'semantic.timeoutMs'],
    [{ apiKey: 'sk-x' }, 'apiKey'],
    [{ indexedRoles: ['tool'] }, 'semantic.indexedRoles'],
  ])('invalid %j names %s', (raw, field) => {
    expect(() => parseSemanticConfig(raw)).toThrow(expect.objectContaining({ code: 'invalid_semantic_config', message: expect.stringContaining(field) }));
  });
});

describe('endpoints and keys', () => {
  test.each([
    ['http://127.0.0.1:8080/v1/', 'http://127.0.0.1:8080/v1'],
    ['https://user:pw@Example.COM/v1?x=1#f', 'https://example.com/v1'],
  ])('normalizeEndpoint(%s) = %s', (input, expected) => {
    expect(normalizeEndpoint(input)).toBe(expected);
  });

  test.each([
    { endpoint: 'http://127.0.0.1:11434/v1', embeddingApiKey: null, openaiApiKey: 'sk-openai', expected: null },
    { endpoint: OPENAI_ENDPOINT, embeddingApiKey: null, openaiApiKey: 'sk-openai', expected: 'sk-openai' },
    { endpoint: 'http://127.0.0.1:11434/v1', embeddingApiKey: 'sk-emb', openaiApiKey: 'sk-openai', expected: 'sk-emb' },
  ])('key for $endpoint → $expected', ({ endpoint, embeddingApiKey, openaiApiKey, expected }) => {
    expect(resolveEmbeddingApiKey({ provider: 'openai-compatible', endpoint }, { embeddingApiKey, openaiApiKey })).toBe(expected);
  });

  test('the local model never gets a key', () => {
    expect(resolveEmbeddingApiKey({ provider: 'use-lite', endpoint: 'local:use-lite' }, { embeddingApiKey: 'sk' })).toBeNull();
  });
});

describe('similarity floor per model', () => {
  test.each([
    [{ enabled: true, provider: 'use-lite' }, USE_LITE_SIMILARITY_FLOOR],
    [{ enabled: true, provider: 'use-lite', fusion: { similarityFloor: 0.1 } }, 0.1],
    [{ enabled: true, provider: 'openai-compatible', endpoint: 'http://127.0.0.1:1/v1', model: 'm', dims: 8 }, undefined],
    [{ enabled: true, provider: 'openai-compatible', endpoint: 'http://127.0.0.1:1/v1', model: 'm', dims: 8, fusion: { similarityFloor: 0.42 } }, 0.42],
  ])('%j → %s', (raw, floor) => {
    expect(parseSemanticConfig(raw)!.fusion?.similarityFloor).toBe(floor);
  });
  test('the built-in default is a calibrated, non-zero floor', () => {
    expect(USE_LITE_SIMILARITY_FLOOR).toBeGreaterThan(0);
    expect(() => parseSemanticConfig({ enabled: true, provider: 'use-lite', fusion: { similarityFloor: 2 } })).toThrow();
  });
});
