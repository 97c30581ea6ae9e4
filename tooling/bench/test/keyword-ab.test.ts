/**
 * bench:keyword --against: the same-run A/B of two builds' keywordSearch runs end to end as a real
 * child process on a small database (this repository against itself: both columns are this build),
 * with every write mode; a missing database path is a clear error and exit 1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runNode } from './support/run-node.js';

const BENCH = join(REPO_ROOT, 'tooling/bench/dist/keyword-bench.js');
let dir = '';
let db = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'recall-keyword-ab-test-'));
  db = join(dir, 'small.db');
  const r = await runNode([BENCH, '--messages', '2k', '--projects', '3', '--queries', '2', '--no-peer', '--db', db], { timeoutMs: 120_000 });
  expect(r.code).toBe(0);
}, 130_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bench:keyword --against', () => {
  it.each(['none', 'append', 'move'])('--writes %s: a table of CPU per call for both builds and their ratio', async (writes) => {
    const r = await runNode([BENCH, '--against', REPO_ROOT, '--db', db, '--against-db', db, '--rounds', '1', '--queries', '3', '--writes', writes], { timeoutMs: 120_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\| queries \| this build: CPU mean \/ p50 \/ p95 \| other build \| ratio \(mean \/ p50 \/ p95\) \|/m);
    for (const kind of ['common', 'cjk', 'all']) expect(r.stdout).toMatch(new RegExp(`^\\| ${kind} \\| [\\d.]+ / [\\d.]+ / [\\d.]+ ms \\| [\\d.]+ / [\\d.]+ / [\\d.]+ ms \\| [\\d.]+ / [\\d.]+ / [\\d.]+ \\|`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`BENCH-SUMMARY \\{"bench":"keyword-ab","writes":"${writes}"`));
    // With writes, the write alone and the write with the search after it (a build may move work between them).
    const rows = [`the ${writes} alone`, `${writes} \\+ search`];
    for (const row of rows) expect(r.stdout.match(new RegExp(`^\\| ${row} \\| [\\d.]+ / [\\d.]+ / [\\d.]+ ms \\|`, 'm')) !== null).toBe(writes !== 'none');
    expect(r.stdout.includes('"write_and_search_cpu_mean_ratio":')).toBe(writes !== 'none');
  }, 130_000);

  it('without --against-db: a clear error, exit 1', async () => {
    const r = await runNode([BENCH, '--against', REPO_ROOT, '--db', db], { timeoutMs: 60_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--against ROOT needs --db PATH .* and --against-db PATH/);
  }, 70_000);
});
