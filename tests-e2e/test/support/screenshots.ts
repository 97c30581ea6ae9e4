/**
 * Screenshots for the README, written by the e2e run under docs/screenshots/ with fixed names.
 * Animations are disabled and the caret hidden so two runs differ only where the data does (dates).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { SCREENSHOT_DIR } from './paths.js';

export async function saveScreenshot(target: Page | Locator, name: `${string}.png`): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, name);
  await target.screenshot({ path, animations: 'disabled', caret: 'hide' });
  return path;
}
