/**
 * The eval's own entry point (`pnpm eval` = `node tooling/eval/dist/main.js`) as a real child
 * process on tiny data of our own: `--help` answers without running or writing anything, usage
 * errors exit 2, missing data exits 1 with `eval_data_missing`, and files are written only when
 * asked for (`--out DIR`; by default nothing lands in docs/). `--write-docs` is not run here: it
 * rewrites the repository's docs/benchmarks.md by design.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertMainBuilt, REPO_ROOT, runEvalMain } from './support/run-node.js';
import { tinyLocomo } from './support/tiny-data.js';

const DOCS = join(REPO_ROOT, 'docs');
const ROOT_SCRIPTS = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(prefix = 'recall-eval-main-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** docs/benchmarks.md and every file of docs/eval with its size and mtime: equal before and after = nothing written. */
function docsSnapshot(): Record<string, string> {
  const files = ['benchmarks.md', ...readdirSync(join(DOCS, 'eval')).map((f) => join('eval', f))];
  return Object.fromEntries(files.map((f) => [f, `${statSync(join(DOCS, f)).size}:${statSync(join(DOCS, f)).mtimeMs}`]));
}

function tinyDataDir(): string {
  const data = tempDir('recall-eval-data-');
  mkdirSync(join(data, 'locomo'));
  writeFileSync(join(data, 'locomo', 'locomo10.json'), JSON.stringify(tinyLocomo(6)));
  return data;
}

describe('pnpm eval (tooling/eval/dist/main.js)', () => {
  it('is what the root `eval` script runs, after building @recall/eval and its dependencies', () => {
    expect(ROOT_SCRIPTS.eval).toMatch(/--filter=@recall\/eval\.\.\. /);
    expect(ROOT_SCRIPTS.eval).toMatch(/node tooling\/eval\/dist\/main\.js$/);
  });

  it.each([[['--help']], [['-h']], [['--modes', 'fuzzy', '--help']], [['--write-docs', '--help']]])('%j: usage on stdout, exit 0, nothing run or written', async (args) => {
    assertMainBuilt();
    const before = docsSnapshot();
    const r = await runEvalMain(args, { timeoutMs: 30_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith('Usage: pnpm eval ')).toBe(true);
    expect(r.stdout).toMatch(/--help/);
    expect(r.stdout).toMatch(/--write-docs/);
    expect(r.stdout).not.toMatch(/^(#|Generated |eval: )/m);
    expect(docsSnapshot()).toEqual(before);
  });

  it('writes JSON and SVG into --out for the data it finds and says what it skipped', async () => {
    assertMainBuilt();
    const out = tempDir('recall-eval-out-');
    const before = docsSnapshot();
    const result = await runEvalMain(['--data', tinyDataDir(), '--out', out, '--limit', '5'], { timeoutMs: 60_000 });
    expect(result.stderr).toContain('memorybank data not found');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('| keyword | test | **all 1–4** | 4 (4) |');
    expect(readdirSync(out).sort()).toEqual(['locomo-dev-keyword.svg', 'locomo-test-keyword.svg', 'results-keyword.json']);
    const report = JSON.parse(readFileSync(join(out, 'results-keyword.json'), 'utf8')) as { protocol: { limit: number }; datasets: { name: string; groups: { leaks: number }[] }[] };
    expect(report.protocol.limit).toBe(5);
    expect(report.datasets.map((d) => d.name)).toEqual(['locomo']);
    expect(report.datasets[0]!.groups.every((g) => g.leaks === 0)).toBe(true);
    expect(docsSnapshot()).toEqual(before);
  });

  it('by default prints the tables and writes no file at all (docs/ untouched)', async () => {
    assertMainBuilt();
    const before = docsSnapshot();
    const result = await runEvalMain(['--data', tinyDataDir(), '--dataset', 'locomo'], { timeoutMs: 60_000 });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('by `npx -y pnpm@10 eval --dataset locomo` on ');
    expect(result.stdout).toContain('| keyword | test | **all 1–4** |');
    expect(result.stdout).not.toMatch(/!\[locomo/);
    expect(result.stderr).not.toMatch(/wrote|refreshed/);
    expect(docsSnapshot()).toEqual(before);
  });

  it.each([
    [['--modes', 'fuzzy'], /--modes accepts/],
    [['--dataset', 'squad'], /--dataset accepts/],
    [['--limit', '0'], /--limit must be between 1 and 50/],
    [['--endpoint', 'http://127.0.0.1:9/v1'], /--endpoint needs --model and --dims/],
    [['--model', 'bge-m3'], /--model and --dims belong to --endpoint/],
    [['--frobnicate'], /Unknown option '--frobnicate'/],
    [['locomo'], /positional/],
  ])('usage errors exit 2: %j', async (args, message) => {
    assertMainBuilt();
    const result = await runEvalMain(args, { timeoutMs: 30_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('pnpm eval --help');
  });

  it('fails with eval_data_missing when no requested dataset exists', async () => {
    assertMainBuilt();
    const result = await runEvalMain(['--data', tempDir(), '--no-out'], { timeoutMs: 30_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('[eval_data_missing]');
  });
});

describe('--memorybank-queries', () => {
  it.each([
    ['a file that does not exist', (dir: string) => join(dir, 'missing.json'), 2, /--memorybank-queries: no such file/],
    ['a question file whose user is not in the data', (dir: string) => {
      const f = join(dir, 'q.json');
      writeFileSync(f, JSON.stringify({ queries: [{ id: 'x1', kind: 'paraphrase', user: '没有这个人', query: '蒸鱼', targets: ['2023-04-29#1'] }] }));
      return f;
    }, 1, /没有这个人.*not in the data/],
  ])('points the MemoryBank evaluation at another question file: %s', async (_name, file, code, message) => {
    assertMainBuilt();
    const data = tempDir('recall-eval-data-');
    mkdirSync(join(data, 'memorybank'));
    writeFileSync(join(data, 'memorybank', 'memory_bank_cn.json'), JSON.stringify({ 张三: { name: '张三', history: { '2023-04-29': [{ query: '清蒸鲈鱼要蒸几分钟', response: '八分钟' }] } } }));
    const result = await runEvalMain(['--dataset', 'memorybank', '--data', data, '--no-out', '--memorybank-queries', file(tempDir())], { timeoutMs: 30_000 });
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
  });
});

describe('docs name the eval by its own command', () => {
  it.each(['README.md', 'docs/benchmarks.md', 'docs/architecture.md'])('%s: no `recall eval`, no `dist/cli.js eval`', (file) => {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    expect(text).not.toMatch(/recall eval|cli\.js eval|gateway-rpc\/src\/eval/);
  });

  it('the README row runs it through pnpm and says when docs are written', () => {
    expect(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')).toMatch(/\| `npx -y pnpm@10 eval [^|]*--write-docs\]` \|/);
  });
});
