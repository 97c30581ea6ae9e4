#!/usr/bin/env node
/**
 * Build step of @recall/cli: copies the built desktop UI (apps/desktop-ui/dist, made by vite) into
 * this package's ui/ folder, which the published package ships and `recall serve` serves. Fails with
 * a clear message when the UI has not been built (turbo builds it first: it is a devDependency).
 */
import { cpSync, existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

if (process.argv.includes('--help')) {
  console.log('Usage: node scripts/copy-ui.mjs\n\nCopies ../desktop-ui/dist into ./ui (run by this package\'s build).');
  process.exit(0);
}
const from = fileURLToPath(new URL('../../desktop-ui/dist/', import.meta.url));
const to = fileURLToPath(new URL('../ui/', import.meta.url));
if (!existsSync(`${from}index.html`)) {
  console.error(`copy-ui: ${from}index.html is missing: build @recall/desktop-ui first (turbo run build does).`);
  process.exit(1);
}
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
console.log('copy-ui: desktop UI copied to ui/');
