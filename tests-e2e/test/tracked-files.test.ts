/**
 * Running the tests must not modify tracked files: screenshots differ in pixels between machines,
 * so a test run writes them to a temp folder and only `pnpm screenshots` (RECALL_SCREENSHOTS=docs)
 * refreshes the committed README ones. Checked statically (no browser needed): SCREENSHOT_DIR is
 * outside the repository, every screenshot goes through saveScreenshot (no test passes its own path
 * to Playwright or names docs/screenshots), and the root scripts keep the refresh explicit.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO_ROOT, SCREENSHOT_DIR, SCREENSHOTS_TO_DOCS } from './support/paths.js';

const TEST_DIR = join(REPO_ROOT, 'tests-e2e', 'test');

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourcesUnder(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe.skipIf(SCREENSHOTS_TO_DOCS)('a test run leaves tracked files alone', () => {
  test('screenshots go to a folder outside the repository', () => {
    expect(relative(REPO_ROOT, SCREENSHOT_DIR).startsWith('..'), `${SCREENSHOT_DIR} is inside ${REPO_ROOT}`).toBe(true);
  });

  // support/paths.ts decides the folder and support/screenshots.ts writes there; nothing else may.
  const owners = [join('support', 'paths.ts'), join('support', 'screenshots.ts'), 'tracked-files.test.ts'];
  test.each(sourcesUnder(TEST_DIR).filter((f) => !owners.some((o) => f.endsWith(o))).map((f) => [relative(TEST_DIR, f)]))(
    '%s takes screenshots only through saveScreenshot',
    (file) => {
      const text = readFileSync(join(TEST_DIR, file), 'utf8');
      expect(text).not.toMatch(/\.screenshot\(\s*\{[^}]*path\s*:/);
      expect(text, 'a string naming docs/screenshots').not.toMatch(/['"`][^'"`\n]*docs\/screenshots/);
    },
  );

  test('`pnpm screenshots` is the explicit way to refresh the committed ones', () => {
    const scripts = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.screenshots).toContain('RECALL_SCREENSHOTS=docs');
    expect(scripts.test ?? '').not.toContain('RECALL_SCREENSHOTS');
  });
});
