// Makes sure Debian's Chromium and a CJK font are present for the browser tests. The test command
// must work on a fresh machine with only Node + npm, and `npx playwright install` cannot download
// browsers here, so we use the distribution packages. Without `fonts-noto-cjk` a fresh Debian
// renders Chinese as empty boxes in the tests and the README screenshots (a browser test checks
// that 中文 renders with real glyphs). Runs apt only when something is missing and we are root.
import { existsSync } from 'node:fs';
import { execSync } from 'node:child_process';

const needs = [
  { pkg: 'chromium', present: () => existsSync('/usr/bin/chromium') },
  // The Debian package's font file; any Noto CJK install satisfies the browser test too.
  { pkg: 'fonts-noto-cjk', present: () => existsSync('/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc') },
];
const missing = needs.filter((n) => !n.present()).map((n) => n.pkg);
if (missing.length === 0) process.exit(0);
if (process.getuid?.() !== 0) {
  console.error(`[ensure-chromium] missing Debian package(s) ${missing.join(', ')} and we are not root: install them to run the browser tests.`);
  process.exit(1);
}
console.log(`[ensure-chromium] installing ${missing.join(' ')} (browser tests need them)...`);
execSync(`apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${missing.join(' ')}`, { stdio: 'inherit' });
