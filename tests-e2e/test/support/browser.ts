/**
 * Debian Chromium through playwright-core: one headless browser per test file, a page per scenario
 * with a fixed viewport, and a collector of console errors, page errors (uncaught exceptions) and
 * failed requests, so every test can assert that the UI stayed clean.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Cleanup } from './cleanup.js';
import { CHROMIUM_PATH } from './paths.js';

export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 390, height: 844 } as const;

/** The "now" of pages that take README screenshots: after the demo history, so its dates show as dates. */
export const SCREENSHOT_TIME = new Date('2026-09-15T10:00:00Z');

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Default bound for every locator action / wait in the tests (ms). */
export const UI_TIMEOUT_MS = 10_000;

export async function launchBrowser(cleanup: Cleanup): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 30_000 });
  cleanup.add('close chromium', () => browser.close());
  return browser;
}

export interface AppPage {
  page: Page;
  context: BrowserContext;
  /** Console errors, uncaught page errors and failed requests seen so far. */
  problems: string[];
  /** Throws if the page logged any console error / page error / failed request. */
  assertNoProblems: () => void;
}

/** A new context + page at `viewport`, with error collection; closed by `cleanup`. */
export async function openPage(
  browser: Browser,
  cleanup: Cleanup,
  viewport: { width: number; height: number } = DESKTOP,
  options: {
    isMobile?: boolean;
    hasTouch?: boolean;
    reducedMotion?: 'reduce' | 'no-preference';
    /** Freezes the page's clock (Date only; timers still run) so screenshots do not change with the time of day. */
    fixedTime?: Date;
  } = {},
): Promise<AppPage> {
  const context = await browser.newContext({
    viewport,
    deviceScaleFactor: 1,
    locale: 'en-US',
    timezoneId: 'UTC',
    reducedMotion: options.reducedMotion ?? 'reduce',
    ...(options.isMobile !== undefined ? { isMobile: options.isMobile } : {}),
    ...(options.hasTouch !== undefined ? { hasTouch: options.hasTouch } : {}),
  });
  cleanup.add('close browser context', () => context.close());
  context.setDefaultTimeout(UI_TIMEOUT_MS);
  context.setDefaultNavigationTimeout(20_000);
  // Every Content-Security-Policy violation becomes a console error (and so a problem): the policy
  // allows no inline style or script, and nothing the UI does may need one.
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
    document.addEventListener(
      'securitypolicyviolation',
      (e) => {
        const text = `CSP violation: ${e.effectiveDirective} blocked ${e.blockedURI || 'inline'}${e.sample ? ` (${e.sample})` : ''} at ${e.sourceFile}:${e.lineNumber}`;
        seen.push(text);
        console.error(text);
      },
      true,
    );
  });
  const page = await context.newPage();
  if (options.fixedTime) await page.clock.setFixedTime(options.fixedTime);
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console.error: ${msg.text()} @ ${msg.location().url}:${msg.location().lineNumber}`);
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.stack ?? err.message}`));
  page.on('requestfailed', (req) => {
    const failure = req.failure()?.errorText ?? 'failed';
    // A navigation away/close aborts in-flight requests: not a UI problem.
    if (failure === 'net::ERR_ABORTED') return;
    problems.push(`requestfailed: ${req.method()} ${req.url()} ${failure}`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.request().method()} ${res.url()}`);
  });
  return {
    page,
    context,
    problems,
    assertNoProblems: () => {
      if (problems.length > 0) throw new Error(`The page reported ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
    },
  };
}
