/**
 * `bench:rpc --postgres` end to end on a tiny seed (a real child process of the built bench, which
 * starts a throwaway PostgreSQL, `recall migrate`, and real `recall serve` children): the SQLite
 * peer and PostgreSQL with 2 gateway processes each answer, every acknowledged append is
 * stored once, no cross-project hit, every gateway exits 0 on SIGTERM, and the table prints the
 * ratios. Only `--gateways 2` here (the 1-gateway run is the same loop with one process; the
 * default 1,2 is what the docs run), to keep the file short. Its figures are not asserted (a command's numbers, not a timed test).
 */
import { expect, it } from 'vitest';
import { runNode } from './support/run-node.js';

it('bench:rpc --postgres: SQLite peer, then 2 PostgreSQL gateway processes, checked and tabulated', async () => {
  const r = await runNode(['tooling/bench/dist/rpc-bench.js', '--postgres', '--gateways', '2', '--seconds', '1', '--clients', '4', '--sessions', '2', '--messages', '3'], { timeoutMs: 120_000 });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(r.stdout).toMatch(/^OK$/m);
  const rows = r.stdout.split('\n').filter((l) => /^\| (SQLite \(peer\)|PostgreSQL) \|/.test(l));
  expect(rows.map((l) => l.split('|').slice(1, 3).map((c) => c.trim()))).toEqual([
    ['SQLite (peer)', '1'],
    ['PostgreSQL', '2'],
  ]);
  // errors 0, lost / duplicated 0 / 0, cross-project hits 0 on every row.
  for (const row of rows) expect(row.split('|').slice(8, 11).map((c) => c.trim())).toEqual(['0', '0 / 0', '0']);
  const summary = JSON.parse(/^BENCH-SUMMARY (.*)$/m.exec(r.stdout)![1]!) as { runs: { req_s: number }[] };
  expect(summary.runs).toHaveLength(2);
  for (const run of summary.runs) expect(run.req_s).toBeGreaterThan(0);
}, 150_000);
