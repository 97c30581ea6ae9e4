/**
 * Helpers for the CLI, MCP and round-trip tests: the built CLI (`dist/cli.js`) run as a real child
 * process on a temp home, with every RECALL_* variable of the developer's environment removed so
 * a test can never touch a real ~/.recall. Tests that use it need `pnpm build` first (turbo's test
 * task depends on build; a missing dist fails with a message saying so).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { childEnv, runNode as runChild } from '@recall/config/child-process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const CLI_PATH = join(PACKAGE_DIR, 'dist', 'cli.js');
/** The import fixtures (recall-jsonl files, Claude Code / Codex / Hermes history) live with @recall/importers, which owns them. */
export const FIXTURES = join(REPO_ROOT, 'packages', 'importers', 'test', 'fixtures');

export function assertCliBuilt(): void {
  if (!existsSync(CLI_PATH)) {
    throw new Error(`${CLI_PATH} is missing: build first (pnpm --filter @recall/gateway-rpc build, or run the tests through turbo, whose test task depends on build).`);
  }
}

export { childEnv };

const cleanups: (() => void)[] = [];

export function tempDir(prefix = 'recall-cli-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function cleanupTemp(): void {
  for (const fn of cleanups.splice(0).reverse()) fn();
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Colour as a plain pipe gets it, whatever the developer's or CI's environment says (NO_COLOR,
 * FORCE_COLOR); a test that wants colour passes FORCE_COLOR or NO_COLOR itself.
 */
export const PLAIN_COLOR_ENV: Record<string, string> = { NO_COLOR: '', FORCE_COLOR: '0' };

/** Runs `node dist/cli.js ...args` to completion (killed after `timeoutMs`). */
export function runCli(args: readonly string[], options: { timeoutMs?: number; env?: Record<string, string>; cwd?: string } = {}): Promise<CliResult> {
  return runNode([CLI_PATH, ...args], options);
}

export function runNode(args: readonly string[], options: { timeoutMs?: number; env?: Record<string, string>; cwd?: string } = {}): Promise<CliResult> {
  return runChild(args, { ...options, env: { ...PLAIN_COLOR_ENV, ...options.env }, cwd: options.cwd ?? REPO_ROOT });
}

/** Parses stdout as JSON with a helpful failure message. */
export function json<T = unknown>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}).\nstdout: ${result.stdout.slice(0, 2000)}\nstderr: ${result.stderr.slice(0, 2000)}`);
  }
}

/** A long-running child (serve): resolves the first stdout line, exposes the process. */
export function startCli(
  args: readonly string[],
  options: { env?: Record<string, string>; umask?: string } = {},
): { child: ChildProcess; firstLine: Promise<string>; exit: Promise<CliResult> } {
  const env = childEnv({ ...PLAIN_COLOR_ENV, ...options.env });
  // A umask is set by a shell that then execs node, so the CLI starts with it like a user's would.
  const child =
    options.umask === undefined
      ? spawn(process.execPath, [CLI_PATH, ...args], { env, cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('sh', ['-c', `umask ${options.umask} && exec "$0" "$@"`, process.execPath, CLI_PATH, ...args], { env, cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let resolveLine: (line: string) => void = () => {};
  let rejectLine: (error: Error) => void = () => {};
  const firstLine = new Promise<string>((res, rej) => {
    resolveLine = res;
    rejectLine = rej;
  });
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    const nl = stdout.indexOf('\n');
    if (nl >= 0) resolveLine(stdout.slice(0, nl));
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exit = new Promise<CliResult>((res) => {
    child.on('close', (code, signal) => {
      rejectLine(new Error(`process exited (${code ?? signal}) before printing a line; stderr: ${stderr}`));
      res({ code, signal, stdout, stderr });
    });
  });
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, firstLine, exit };
}
