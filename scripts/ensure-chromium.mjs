// Makes sure Debian's Chromium is present for the browser tests. The test command must work on a
// fresh machine with only Node + npm, and `npx playwright install` cannot download browsers here,
// so we use the distribution package. Runs apt only when the binary is missing and we are root.
import { existsSync } from 'node:fs';
import { execSync } from 'node:child_process';

const bin = '/usr/bin/chromium';
if (existsSync(bin)) process.exit(0);
if (process.getuid?.() !== 0) {
  console.error(`[ensure-chromium] ${bin} is missing and we are not root: install Debian's "chromium" package to run the browser tests.`);
  process.exit(1);
}
console.log('[ensure-chromium] installing Debian chromium (browser tests need it)...');
execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium', { stdio: 'inherit' });
