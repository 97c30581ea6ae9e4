/**
 * The eval tests' child processes: `node ...args` from the repository root, through the shared
 * runner of @recall/config (RECALL_* removed, killed after `timeoutMs`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runNode as run, type NodeResult } from '@recall/config/child-process';

export const REPO_ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
export const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));

export type { NodeResult };

export function runNode(args: readonly string[], options: { timeoutMs?: number } = {}): Promise<NodeResult> {
  return run(args, { cwd: REPO_ROOT, ...options });
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
