/**
 * The eval tests' child processes: `node ...args` run to completion from the repository root with
 * every RECALL_* variable of the developer's environment removed, killed after `timeoutMs`.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
export const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));

export interface NodeResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function runNode(args: readonly string[], options: { timeoutMs?: number } = {}): Promise<NodeResult> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('RECALL_') && value !== undefined) env[key] = value;
  return new Promise((resolveRun, rejectRun) => {
    const child = spawn(process.execPath, [...args], { env, cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      rejectRun(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolveRun({ code, signal, stdout, stderr });
    });
  });
}

/** The eval's built entry point (turbo's test task builds it first). */
export const MAIN = join(PACKAGE_DIR, 'dist', 'main.js');

/** Fails with a clear message when the entry point has not been built. */
export function assertMainBuilt(): void {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npx pnpm@10 exec turbo run build --filter=@recall/eval...\` first.`);
}

/** `node tooling/eval/dist/main.js ...args` from the repository root. */
export function runEvalMain(args: readonly string[], options: { timeoutMs?: number } = {}): Promise<NodeResult> {
  return runNode([MAIN, ...args], options);
}
