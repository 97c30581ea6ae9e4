/**
 * Where things are: the repository root, the built `recall` CLI, the built desktop UI and the
 * screenshot folder. The e2e tests run against build output (turbo's `test` dependsOn `^build`),
 * so a missing build is reported with the command that makes it, not as a confusing spawn error.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CLI_PATH = join(REPO_ROOT, 'apps/cli/dist/cli.js');
export const UI_INDEX = join(REPO_ROOT, 'apps/desktop-ui/dist/index.html');
/**
 * Test runs never modify tracked files (pixels differ between machines): screenshots go to a temp
 * folder unless `pnpm screenshots` asks for the committed README ones (RECALL_SCREENSHOTS=docs).
 */
export const SCREENSHOTS_TO_DOCS = process.env.RECALL_SCREENSHOTS === 'docs';
export const SCREENSHOT_DIR = SCREENSHOTS_TO_DOCS ? join(REPO_ROOT, 'docs/screenshots') : join(tmpdir(), 'recall-e2e-screenshots');
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Throws a clear error when the CLI, the UI build or Chromium is missing. */
export function assertBuilt(): void {
  const missing: string[] = [];
  if (!existsSync(CLI_PATH)) missing.push(`${CLI_PATH} (build @recall/cli)`);
  if (!existsSync(UI_INDEX)) missing.push(`${UI_INDEX} (build @recall/desktop-ui)`);
  if (!existsSync(CHROMIUM_PATH)) missing.push(`${CHROMIUM_PATH} (apt-get install chromium, or node tooling/scripts/ensure-chromium.mjs as root)`);
  if (missing.length > 0) {
    throw new Error(
      `e2e prerequisites missing:\n  - ${missing.join('\n  - ')}\n` +
        'Run `npx -y pnpm@10 turbo run build --filter=@recall/tests-e2e...` from the repository root first.',
    );
  }
}

/** The demo history the UI ships (and imports with "Load demo data"), as built. */
export const DEMO_JSONL = join(REPO_ROOT, 'apps/desktop-ui/dist/demo/recall-demo.jsonl');
