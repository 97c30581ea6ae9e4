/**
 * `pnpm eval --rerank-endpoint` as a real child process on tiny data against loopback servers
 * (tooling/config's scripted embeddings and rerank servers: test-only scores, so the figures mean
 * nothing — only that the run reaches the reranker and prints its tables). Usage errors of the
 * rerank flags exit 2 without running.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedEmbeddings, type ScriptedEmbeddings } from '@recall/config/scripted-embeddings';
import { startScriptedRerank, type ScriptedRerank } from '@recall/config/scripted-rerank';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertMainBuilt, runEvalMain } from './support/run-node.js';
import { tinyLocomo } from './support/tiny-data.js';

let embeddings: ScriptedEmbeddings;
let rerank: ScriptedRerank;
let dir: string;
beforeAll(async () => {
  embeddings = await startScriptedEmbeddings({ dims: 8 });
  rerank = await startScriptedRerank();
  dir = mkdtempSync(join(tmpdir(), 'recall-eval-rerank-'));
  mkdirSync(join(dir, 'data', 'locomo'), { recursive: true });
  writeFileSync(join(dir, 'data', 'locomo', 'locomo10.json'), JSON.stringify(tinyLocomo(6)));
});
afterAll(async () => {
  await embeddings.close();
  await rerank.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('pnpm eval --rerank-endpoint', () => {
  it('runs hybrid search with the reranker at the loopback server and prints the table and the reranker facts', async () => {
    assertMainBuilt();
    const args = ['--data', join(dir, 'data'), '--dataset', 'locomo', '--modes', 'hybrid', '--no-out', '--cache-dir', join(dir, 'cache'), '--endpoint', embeddings.url, '--model', 'e', '--dims', '8'];
    const r = await runEvalMain([...args, '--rerank-endpoint', `${rerank.url}/v1`, '--rerank-model', 'bge-reranker-v2-m3', '--rerank-top-n', '5'], { timeoutMs: 120_000 });
    expect(r.stderr).not.toMatch(/unexpected error/);
    expect(r.code).toBe(0);
    expect(rerank.requests.length).toBeGreaterThan(0);
    expect(rerank.requests.every((q) => q.path === '/v1/rerank' && q.body.model === 'bge-reranker-v2-m3' && q.texts.length <= 5)).toBe(true);
    expect(r.stdout).toMatch(/reranked by bge-reranker-v2-m3 at http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(r.stdout).toMatch(new RegExp(`rerank requests ${rerank.requests.length}`));
    expect(r.stdout).toMatch(/\| *hybrid *\|/);
  });

  it.each([
    [['--rerank-model', 'm'], /belong to --rerank-endpoint/],
    [['--rerank-endpoint', 'http://127.0.0.1:9', '--modes', 'hybrid'], /needs --rerank-model/],
    [['--rerank-endpoint', 'http://127.0.0.1:9', '--rerank-model', 'm'], /add --modes hybrid/],
    [['--rerank-endpoint', 'http://127.0.0.1:9', '--rerank-api', 'x', '--modes', 'hybrid'], /--rerank-api accepts cohere or tei/],
  ])('%j: usage error, exit 2', async (args, message) => {
    assertMainBuilt();
    const r = await runEvalMain(args as string[], { timeoutMs: 30_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message as RegExp);
  });
});
