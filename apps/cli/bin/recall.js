#!/usr/bin/env node
// The `recall` bin: a stable file that exists before the first build, so installing the workspace
// can link it (pnpm links bins at install time, when dist/ does not exist yet). It runs the built CLI.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  console.error('recall: the CLI is not built yet. Run `npx -y pnpm@10 build` in the repository first.');
  process.exit(1);
}
const { runCliProcess } = await import(cli.href);
runCliProcess();
