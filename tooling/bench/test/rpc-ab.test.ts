/**
 * bench:rpc --against: two gateways (this build against itself here) driven at the same time, each
 * in its own child process with its own seeded home; a table row per round with both builds'
 * requests, the ratio and the checks, then the summary. A checkout without a built gateway is a
 * clear error and exit 1; --against with a flag it cannot honour is refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runNode } from './support/run-node.js';

const BENCH = join(REPO_ROOT, 'tooling/bench/dist/rpc-bench.js');
const SMALL = ['--seconds', '2', '--clients', '2', '--sessions', '3', '--messages', '5'];

describe('bench:rpc --against', () => {
  it('prints a row per round with both builds and the summed ratios; every check passes', async () => {
    const r = await runNode([BENCH, '--against', REPO_ROOT, '--rounds', '2', ...SMALL], { timeoutMs: 120_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    for (const round of [1, 2]) expect(r.stdout).toMatch(new RegExp(`^\\| ${round} \\| [\\d.]+ \\| [\\d.]+ \\| [\\d.]+ \\| [\\d.]+ / [\\d.]+ \\| [\\d.]+ \\| .* \\| 0, 0, 0 / 0, 0, 0 \\|$`, 'm'));
    expect(r.stdout).toMatch(/^BENCH-SUMMARY \{"bench":"rpc-against","rounds":2,"req_ratio":[\d.]+,"cpu_per_request_ratio":[\d.]+,"ok":true\}$/m);
  }, 130_000);

  it.each([
    ['a folder without a built gateway', () => ['--against', mkdtempSync(join(tmpdir(), 'recall-not-a-checkout-')), ...SMALL], /bench child|Cannot find module|ERR_MODULE_NOT_FOUND/],
    ['--json with --against', () => ['--against', REPO_ROOT, '--json', ...SMALL], /leave out --semantic, --compare, --json and --search-workers/],
  ])('%s: a clear error, exit 1', async (_name, args, message) => {
    const argv = args();
    try {
      const r = await runNode([BENCH, ...argv], { timeoutMs: 60_000 });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(message);
    } finally {
      if (argv[1] !== REPO_ROOT) rmSync(argv[1]!, { recursive: true, force: true });
    }
  }, 70_000);
});
