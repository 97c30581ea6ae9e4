/**
 * The index panel's words: per-project state (off, counting, indexing with what is left, ready,
 * consent for another endpoint) never shows a made-up figure; where text goes is said plainly
 * (the built-in model sends nothing anywhere); the search panel's coverage label keeps "unknown".
 */
import { describe, expect, test } from 'vitest';
import { confirmLabel, projectStateText, providerText, rerankConsentMissingText, rerankerConsentText, semanticStatusText } from '../src/components/IndexPanel';
import { coverageLabel } from '../src/components/SearchPanel';
import type { IndexProjectStatus } from '@recall/rpc-contract';

const project = (over: Partial<IndexProjectStatus>): IndexProjectStatus => ({
  projectId: 'p1',
  name: 'P',
  slug: 'p',
  archived: false,
  status: 'partial',
  reason: 'indexing',
  consent: { enabled: true, endpoint: 'http://127.0.0.1:9/v1', enabledAt: 1 },
  eligible: 100,
  ready: 40,
  pending: 60,
  failed: 0,
  queuedSessions: 0,
  lastError: null,
  ...over,
});

describe('projectStateText', () => {
  test.each([
    ['off', project({ consent: { enabled: false, endpoint: null, enabledAt: null }, status: 'disabled', reason: 'project_not_enabled' }), 'Off — nothing of this project is sent.'],
    ['counting', project({ eligible: 'unknown', ready: 3 }), 'Counting what to index… 3 chunks ready so far.'],
    ['indexing', project({}), 'Indexing — 40 of 100 chunks ready, 60 to go.'],
    ['failed chunks', project({ ready: 98, pending: 0, failed: 2 }), 'Indexing — 98 of 100 chunks ready, 2 failed (retried with backoff).'],
    ['ready', project({ status: 'ready', reason: 'complete', ready: 100, pending: 0 }), 'Ready — 100 of 100 chunks.'],
    ['unavailable', project({ status: 'unavailable', reason: 'provider_unavailable' }), 'Waiting for the model — 40 of 100 chunks ready.'],
    [
      'consent for another endpoint',
      project({ status: 'disabled', reason: 'consent_for_other_endpoint', consent: { enabled: true, endpoint: 'http://old:1/v1', enabledAt: 1 } }),
      'Off — it was switched on for http://old:1/v1, not the model in use now. Switch it on again to send it there.',
    ],
  ])('%s', (_n, p, text) => {
    expect(projectStateText(p)).toBe(text);
  });
});

describe('providerText / semanticStatusText / coverageLabel', () => {
  test.each([
    [{ provider: 'use-lite', endpoint: 'local:use-lite', model: 'use-lite', dims: 512, remote: false, languages: 'english-only' }, 'the built-in English model, on this computer — nothing is sent anywhere (English text only)'],
    [{ provider: 'openai-compatible', endpoint: 'http://127.0.0.1:11434/v1', model: 'bge-m3', dims: 1024, remote: true, languages: 'model-dependent' }, 'bge-m3 at http://127.0.0.1:11434/v1'],
  ] as const)('provider %#', (p, text) => {
    expect(providerText(p)).toBe(text);
  });
  test.each([
    [{ status: 'disabled', reason: 'not_configured' }, /^Disabled — no embedding provider is configured/],
    [{ status: 'disabled', reason: 'no_project_enabled' }, /^No project is switched on yet/],
    [{ status: 'partial' }, /^Filling/],
  ] as const)('status %#', (sem, re) => {
    expect(semanticStatusText(sem)).toMatch(re);
  });
  test.each([
    ['unknown' as const, 'coverage unknown'],
    [{ indexed: 5, total: 10 }, '5 of 10 indexed'],
    [null, null],
  ])('coverage %#', (c, text) => {
    expect(coverageLabel(c)).toBe(text);
  });
});

describe('rerankerConsentText', () => {
  test.each([
    [{}, null],
    [{ reranker: { endpoint: 'http://127.0.0.1:8000/v1', model: 'bge-reranker-v2-m3' } }, 'When you search by meaning, your question and the text of the best matches of this project are also sent to the reranker at http://127.0.0.1:8000/v1 (model bge-reranker-v2-m3) to put the best first.'],
    [{ reranker: { endpoint: 'http://127.0.0.1:8080', model: null } }, 'When you search by meaning, your question and the text of the best matches of this project are also sent to the reranker at http://127.0.0.1:8080 to put the best first.'],
  ])('%j', (provider, text) => {
    expect(rerankerConsentText(provider)).toBe(text);
  });
});

describe('rerankConsentMissingText: a switched-on project whose consent does not name the configured reranker', () => {
  const R = 'http://127.0.0.1:8000/v1';
  const withReranker = { reranker: { endpoint: R, model: null } };
  test.each([
    ['no reranker configured', project({}), {}, null],
    ['consent names it', project({ consent: { enabled: true, endpoint: 'http://127.0.0.1:9/v1', enabledAt: 1, rerankEndpoint: R } }), withReranker, null],
    ['consent from before the reranker', project({ consent: { enabled: true, endpoint: 'http://127.0.0.1:9/v1', enabledAt: 1, rerankEndpoint: null } }), withReranker, /switched on before the reranker at http:\/\/127\.0\.0\.1:8000\/v1 was set up\. Switch it on again/],
    ['an older gateway (no rerankEndpoint field)', project({}), withReranker, /before the reranker/],
    ['consent for another reranker', project({ consent: { enabled: true, endpoint: 'http://127.0.0.1:9/v1', enabledAt: 1, rerankEndpoint: 'http://old:1' } }), withReranker, /for the reranker at http:\/\/old:1, not the one at http:\/\/127\.0\.0\.1:8000\/v1/],
    ['project switched off', project({ consent: { enabled: false, endpoint: null, enabledAt: null, rerankEndpoint: null }, status: 'disabled', reason: 'project_not_enabled' }), withReranker, null],
    ['consent for another embedding endpoint (already asked again)', project({ status: 'disabled', reason: 'consent_for_other_endpoint' }), withReranker, null],
  ])('%s', (_name, p, provider, expected) => {
    const text = rerankConsentMissingText(p, provider);
    if (expected === null) expect(text).toBeNull();
    else expect(text).toMatch(expected);
  });
});

describe('confirmLabel names every host that receives text', () => {
  test.each([
    [{ remote: true, endpoint: 'http://127.0.0.1:9/v1' }, 'Switch on and send to 127.0.0.1:9'],
    [{ remote: true, endpoint: 'http://127.0.0.1:9/v1', reranker: { endpoint: 'http://rerank.lan:8000', model: null } }, 'Switch on and send to 127.0.0.1:9 and rerank.lan:8000'],
    [{ remote: true, endpoint: 'http://127.0.0.1:9/v1', reranker: { endpoint: 'http://127.0.0.1:9/rerank', model: null } }, 'Switch on and send to 127.0.0.1:9'],
    [{ remote: false, endpoint: 'local:use-lite', reranker: { endpoint: 'http://rerank.lan:8000', model: null } }, 'Switch on and send to rerank.lan:8000'],
    [{ remote: false, endpoint: 'local:use-lite' }, 'Switch on'],
  ])('%j', (provider, label) => {
    expect(confirmLabel(provider)).toBe(label);
  });
});
