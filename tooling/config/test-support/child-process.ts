/**
 * Child processes for tests: `node ...args` run to completion with every RECALL_* variable of the
 * developer's environment removed (tests always pass --home, so they can never touch a real
 * ~/.recall), killed after `timeoutMs`.
 */
import { spawn } from 'node:child_process';

/** What a finished child process left. */
export interface NodeResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The environment for child processes: ours minus RECALL_*, plus `extra`. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('RECALL_') && value !== undefined) env[key] = value;
  return { ...env, ...extra };
}

/** Runs `node ...args` in `cwd` to completion (SIGKILL after `timeoutMs`, default 60 s). */
export function runNode(args: readonly string[], options: { cwd: string; timeoutMs?: number; env?: Record<string, string> }): Promise<NodeResult> {
  return new Promise((resolveRun, rejectRun) => {
    const child = spawn(process.execPath, [...args], { env: childEnv(options.env), cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
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
