/**
 * The bench tests' child processes: `node ...args` from the repository root, through the shared
 * runner of @recall/config (RECALL_* removed, killed after `timeoutMs`).
 */
import { fileURLToPath } from 'node:url';
import { runNode as run, type NodeResult } from '@recall/config/child-process';

export const REPO_ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
export const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));
export type { NodeResult };

export function runNode(args: readonly string[], options: { timeoutMs?: number } = {}): Promise<NodeResult> {
  return run(args, { cwd: REPO_ROOT, ...options });
}
