/**
 * Paths of this installation. Where `recall serve` finds the desktop UI: the `ui/` folder this package ships (copied from the
 * desktop UI's build by scripts/copy-ui.mjs), found relative to this file — the same from src/ and
 * dist/, installed or in the workspace.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The shipped UI folder, or null when it is missing (a build without the UI). */
export function defaultUiDir(): string | null {
  const dir = fileURLToPath(new URL('../ui/', import.meta.url));
  return existsSync(join(dir, 'index.html')) ? dir : null;
}

/** How MCP clients start this very installation: node and this package's bin (the desktop shows it). */
export const RECALL_LAUNCHER = { command: process.execPath, args: [fileURLToPath(new URL('../bin/recall.js', import.meta.url))] } as const;
