/**
 * Small helpers shared by the benches: argument parsing, `--help`, percentiles, a seeded PRNG,
 * locating the repository and the shared evaluation data (read in place from `../shared/data` next
 * to the repository, never copied), and a machine description for docs/benchmarks.md. Benchmarks
 * are commands, not tests; they print results and exit.
 */
import { existsSync, readFileSync, writeSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchArgumentError } from './errors.js';

/** tooling/bench/{src|dist} → repository root. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** packages/store, whose test fixtures (cjk-dev-queries.json) the keyword benches read. */
export const STORE_ROOT = join(REPO_ROOT, 'packages', 'store');

/**
 * `--help` / `-h` anywhere on the command line: prints `usage` on stdout and exits 0 before the
 * bench does anything (no build, no temp files, no writes). Call it before any work.
 */
export function exitOnHelp(usage: string, argv: readonly string[] = process.argv.slice(2)): void {
  if (!argv.includes('--help') && !argv.includes('-h')) return;
  writeSync(1, usage.endsWith('\n') ? usage : `${usage}\n`);
  process.exit(0);
}

/** `--data DIR` overrides where the shared evaluation data is read from. */
export function sharedDataPath(...parts: string[]): string {
  const i = process.argv.indexOf('--data');
  const override = i >= 0 ? process.argv[i + 1] : undefined;
  return join(override ?? join(REPO_ROOT, '..', 'shared', 'data'), ...parts);
}

/** The parsed JSON file at `path`, or null when it does not exist. */
export function readJsonIfExists<T>(path: string): T | null {
  if (!existsSync(path)) return null;
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/** `--name value` / `--flag` parsing; numbers accept `1_000_000`, `100k`, `1m`. */
export function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return undefined;
  const next = process.argv[i + 1];
  return next === undefined || next.startsWith('--') ? '' : next;
}

/** `--name N` as a count (`1_000_000`, `100k`, `1m`); `fallback` when absent or empty. */
export function argNumber(name: string, fallback: number): number {
  const v = argValue(name);
  if (v === undefined || v === '') return fallback;
  const m = /^([\d_.]+)([km]?)$/i.exec(v.trim());
  if (!m) throw new BenchArgumentError(`--${name} expects a number, got ${v}`);
  const base = Number(m[1]!.replace(/_/g, ''));
  const mult = m[2]!.toLowerCase() === 'k' ? 1e3 : m[2]!.toLowerCase() === 'm' ? 1e6 : 1;
  return Math.round(base * mult);
}

/** The p-th percentile (nearest rank) of ascending `sorted` samples; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

/** Count, mean, p50, p95 and max of latency samples. */
export function stats(samples: readonly number[]): { n: number; mean: number; p50: number; p95: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((s, x) => s + x, 0) / Math.max(1, sorted.length);
  return { n: sorted.length, mean, p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted[sorted.length - 1] ?? NaN };
}

/** Milliseconds formatted for the tables (`1.23 ms`, `12.3 ms`). */
export function ms(n: number): string {
  return `${n.toFixed(n < 10 ? 2 : 1)} ms`;
}

/** Bytes formatted as MiB. */
export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** One line describing the machine (CPUs, RAM, Node, load average) for the reports. */
export function machine(): string {
  const cpu = cpus();
  // The load average matters: these machines are shared, and a busy neighbour halves the numbers.
  const load = loadavg().map((l) => l.toFixed(1)).join(' ');
  return `${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, ${(totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}, load average ${load}`;
}

/**
 * A small seeded PRNG (mulberry32) so generated corpora are identical run to run. The same generator
 * as the tests' @recall/config/seeded-random, kept here because the benches run from built
 * JavaScript (dist/) and that module is TypeScript source.
 */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EN_WORDS = 'the a migration database index query project session deploy pipeline schema vector chunk lease worker model embedding release branch commit review test failure latency budget cache'.split(' ');
const ZH_WORDS = ['数据库', '迁移', '项目', '会话', '部署', '向量', '索引', '模型', '测试', '发布', '分支', '缓存', '延迟', '预算'];

/**
 * A generated chat message: 60 % English, 40 % Chinese, 40 to `maxChars` characters with most of
 * them short (a cubic length distribution). The same `r` sequence gives the same text.
 */
export function syntheticMessage(r: () => number, maxChars: number): string {
  const target = Math.floor(40 + r() ** 3 * (maxChars - 40));
  const zh = r() < 0.4;
  const parts: string[] = [];
  let len = 0;
  while (len < target) {
    const p = zh
      ? `${ZH_WORDS[Math.floor(r() * ZH_WORDS.length)]}${ZH_WORDS[Math.floor(r() * ZH_WORDS.length)]}的问题。`
      : `${EN_WORDS[Math.floor(r() * EN_WORDS.length)]} ${EN_WORDS[Math.floor(r() * EN_WORDS.length)]} ${EN_WORDS[Math.floor(r() * EN_WORDS.length)]}${r() < 0.2 ? '.' : ''} `;
    parts.push(p);
    len += p.length;
  }
  return parts.join('');
}
