/**
 * Every bench entry point (each root `bench:*` / `tune:*` script's command, and `pnpm bench`
 * itself) answers `--help` with its usage on stdout and exit 0, without running anything: nothing
 * measured, no build, and docs/benchmarks.md untouched. Real child processes on the built dist
 * (turbo's test task depends on build).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runNode } from './support/run-node.js';

const DOC = join(REPO_ROOT, 'docs', 'benchmarks.md');
const ROOT_SCRIPTS = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** [root script, the file its node part runs, a word of its usage text]. */
const ENTRY_POINTS: [string, string, string][] = [
  ['bench', 'tooling/scripts/bench-all.mjs', 'pnpm bench'],
  ['bench:keyword', 'tooling/bench/dist/keyword-bench.js', 'pnpm bench:keyword'],
  ['bench:cjk', 'tooling/bench/dist/cjk-bench.js', 'pnpm bench:cjk'],
  ['bench:vector', 'tooling/bench/dist/vector-bench.js', 'pnpm bench:vector'],
  ['bench:index', 'tooling/bench/dist/index-bench.js', 'pnpm bench:index'],
  ['bench:postgres', 'tooling/bench/dist/postgres-bench.js', 'pnpm bench:postgres'],
  ['bench:result-size', 'tooling/bench/dist/result-size.js', 'pnpm bench:result-size'],
  ['bench:rpc', 'tooling/bench/dist/rpc-bench.js', 'pnpm bench:rpc'],
  ['bench:import', 'tooling/bench/dist/import-bench.js', 'pnpm bench:import'],
  ['bench:backup', 'tooling/bench/dist/backup-bench.js', 'pnpm bench:backup'],
  ['tune:fusion', 'tooling/bench/dist/fusion-tune.js', 'pnpm tune:fusion'],
];

describe('bench entry points --help', () => {
  it('the table covers every root bench and tune script, each running the listed file', () => {
    const roots = Object.keys(ROOT_SCRIPTS).filter((k) => k === 'bench' || k.startsWith('bench:') || k.startsWith('tune:'));
    expect(ENTRY_POINTS.map(([script]) => script).sort()).toEqual(roots.sort());
    for (const [script, file] of ENTRY_POINTS) expect(ROOT_SCRIPTS[script]).toMatch(new RegExp(`node ${file.replace(/\./g, '\\.')}$`));
  });

  it.each(ENTRY_POINTS)('%s: usage on stdout, exit 0, nothing run or written', async (_script, file, usage) => {
    const before = { text: readFileSync(DOC, 'utf8'), mtimeMs: statSync(DOC).mtimeMs };
    const r = await runNode([join(REPO_ROOT, file), '--help'], { timeoutMs: 30_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith(`Usage: ${usage} `)).toBe(true);
    expect(r.stdout).toMatch(/--help/);
    // Nothing ran: no report heading, no machine line, no build, no summary.
    expect(r.stdout).not.toMatch(/^(#|machine:|\[build\]|BENCH-SUMMARY)/m);
    expect(readFileSync(DOC, 'utf8')).toBe(before.text);
    expect(statSync(DOC).mtimeMs).toBe(before.mtimeMs);
  });
});
