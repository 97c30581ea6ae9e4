/**
 * Screenshots with fixed names: README ones under docs/screenshots/ only for `pnpm screenshots`,
 * else in a temp folder (see SCREENSHOT_DIR) so a test run leaves the work tree untouched.
 * Animations are disabled and the caret hidden so two runs differ only where the data does (dates).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { SCREENSHOT_DIR } from './paths.js';

export async function saveScreenshot(target: Page | Locator, name: `${string}.png`, options: { style?: string } = {}): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, name);
  const page = 'page' in target ? target.page() : target;
  // Not Playwright's `style` option: it injects a <style> element, which the UI's policy (no inline
  // style) refuses as a CSP violation. A constructed stylesheet goes through the CSSOM, which CSP
  // does not govern, and is removed again right after the shot.
  if (options.style) {
    await page.evaluate((css) => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      (window as unknown as { __shotSheet?: CSSStyleSheet }).__shotSheet = sheet;
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    }, options.style);
  }
  try {
    await target.screenshot({ path, animations: 'disabled', caret: 'hide' });
  } finally {
    if (options.style) {
      await page.evaluate(() => {
        const w = window as unknown as { __shotSheet?: CSSStyleSheet };
        document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== w.__shotSheet);
        delete w.__shotSheet;
      });
    }
  }
  return path;
}

/**
 * For pages showing data stamped by the gateway's real clock (e.g. a chat turn made during the
 * test): marks every `<time>` so that `PINNED_TIME_STYLE`, passed to `saveScreenshot`, shows
 * `at` (formatted the way the UI formats dates) instead of the real time. Only attributes are set
 * (React's text stays untouched; the element keeps its font size in --pin-size); the style applies during the screenshot only.
 */
export async function pinShownTimes(page: Page, at: Date): Promise<void> {
  await page.evaluate((iso) => {
    const d = new Date(iso);
    const absolute = d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
    for (const t of Array.from(document.querySelectorAll('time'))) {
      t.style.setProperty('--pin-size', getComputedStyle(t).fontSize);
      t.setAttribute('data-pin', t.classList.contains('rel-time') ? 'just now' : absolute);
    }
  }, at.toISOString());
}

export const PINNED_TIME_STYLE = 'time[data-pin] { font-size: 0 !important; } time[data-pin]::after { content: attr(data-pin); font-size: var(--pin-size); }';
