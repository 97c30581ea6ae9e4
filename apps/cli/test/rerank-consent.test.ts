/**
 * The consent records the reranker it was given for (migration 0006), counted at real loopback
 * rerank servers through the CLI's composition (search-wiring.ts): consent given while no reranker
 * was configured sends nothing to one added later; consent naming the rerank endpoint sends; a
 * changed rerank endpoint sends nothing (to the old or the new one) until the project is switched
 * on again. Test-only scores from tooling/config, never a quality figure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedEmbeddings, type ScriptedEmbeddings } from '@recall/config/scripted-embeddings';
import { startScriptedRerank, type ScriptedRerank } from '@recall/config/scripted-rerank';
import { openDatabase, type RecallDatabase } from '@recall/schema';
import { parseSemanticConfig } from '@recall/semantic';
import { sqliteSemanticIndex } from '@recall/semantic/sqlite';
import { appendMessage, createProject, createSession } from '@recall/store';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createSearchComposition, searchOptionsForIndex } from '../src/search-wiring.js';

let embeddings: ScriptedEmbeddings;
const rerank: Record<'a' | 'b', ScriptedRerank> = {} as never;
beforeAll(async () => {
  embeddings = await startScriptedEmbeddings({ dims: 8 });
  rerank.a = await startScriptedRerank();
  rerank.b = await startScriptedRerank();
});
afterAll(async () => {
  await embeddings.close();
  await rerank.a.close();
  await rerank.b.close();
});

const open: Array<{ close(): Promise<void> | void }> = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDb(): RecallDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'recall-rerank-consent-'));
  dirs.push(dir);
  const db = openDatabase(join(dir, 'recall.db'));
  open.push(db);
  return db;
}

/** A profile's index and search as the CLI wires them, with reranker `server` (or none). */
function wire(db: RecallDatabase, server: 'a' | 'b' | null) {
  const config = parseSemanticConfig({
    enabled: true,
    provider: 'openai-compatible',
    endpoint: embeddings.url,
    model: 'e',
    dims: 8,
    maxRetries: 0,
    timeoutMs: 2_000,
    ...(server ? { rerank: { endpoint: rerank[server].url, api: 'tei', timeoutMs: 5_000, topN: 10 } } : {}),
  })!;
  const index = sqliteSemanticIndex({ db, config, pollMs: 60_000 });
  const search = createSearchComposition(db, { ...searchOptionsForIndex(index), semanticKeys: { embeddingApiKey: null, openaiApiKey: null, rerankApiKey: null } });
  open.push(index, search);
  return { index, search };
}

type Server = 'a' | 'b' | null;
interface Case {
  name: string;
  /** The reranker configured when the consent was given (null = none). */
  consentWith: Server;
  /** The reranker configured when searching. */
  searchWith: 'a' | 'b';
  /** Requests expected at each server for one hybrid search. */
  calls: { a: number; b: number };
}

const cases: Case[] = [
  { name: 'consent for embeddings only (no reranker then), reranker added later', consentWith: null, searchWith: 'a', calls: { a: 0, b: 0 } },
  { name: 'consent naming the rerank endpoint', consentWith: 'a', searchWith: 'a', calls: { a: 1, b: 0 } },
  { name: 'rerank endpoint changed after the consent', consentWith: 'a', searchWith: 'b', calls: { a: 0, b: 0 } },
];

async function searchCounted(search: ReturnType<typeof wire>['search'], sessionId: string) {
  const before = { a: rerank.a.requests.length, b: rerank.b.requests.length };
  const r = await search.tool.execute({ query: 'uploader backoff', search_mode: 'hybrid', window: 0 }, { currentSessionId: sessionId });
  expect(r.error).toBeUndefined();
  expect(r.results.length).toBeGreaterThan(0);
  return { a: rerank.a.requests.length - before.a, b: rerank.b.requests.length - before.b };
}

describe('the reranker runs only for a consent that names it', () => {
  test.each(cases)('$name → calls $calls', async ({ consentWith, searchWith, calls }) => {
    const db = tempDb();
    const p = createProject(db, { name: 'P' });
    for (const t of ['uploader backoff with jitter', 'backoff is capped at thirty seconds', 'the uploader backoff retries forever']) {
      appendMessage(db, createSession(db, { projectId: p.id }).id, { role: 'user', content: t });
    }
    const caller = createSession(db, { projectId: p.id });
    const granting = wire(db, consentWith);
    await granting.index.enable(p.id);
    await granting.index.run({ projectId: p.id });

    const { index, search } = wire(db, searchWith);
    expect(await searchCounted(search, caller.id)).toEqual(calls);
    // A consent that does not name the configured reranker: index.status says which one it named …
    const status = await index.status(p.id);
    expect(status.consent.rerankEndpoint).toBe(consentWith ? rerank[consentWith].url : null);
    if (calls[searchWith] === 0) {
      // … and switching the project on again (the consent names the reranker now) lets it run.
      await index.enable(p.id);
      expect(await searchCounted(search, caller.id)).toEqual({ a: searchWith === 'a' ? 1 : 0, b: searchWith === 'b' ? 1 : 0 });
    }
  });
});
