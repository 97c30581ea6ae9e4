#!/usr/bin/env node
/**
 * `pnpm eval:redaction`: counts what the built-in redaction pass (@recall/redaction) would replace
 * in every message of LoCoMo and MemoryBank (redaction-report.ts) — all of it false positives, since
 * the datasets hold no secrets. Prints a Markdown table (or JSON with --json) and exits 0; `--help`
 * prints the usage and runs nothing. Reads the data in place, writes nothing.
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { DEFAULT_DATA_DIR } from './eval.js';
import { redactionMarkdown, redactionReport } from './redaction-report.js';

const USAGE = `Usage: pnpm eval:redaction [--data DIR] [--json]

Count the secrets the redaction pass would replace in every message of LoCoMo and MemoryBank (and
the other strings of their files). The datasets hold no secrets, so every count is a false positive.
Reads the data in place and writes nothing.

Options:
  --data DIR   shared data folder (default ${DEFAULT_DATA_DIR})
  --json       print JSON instead of the Markdown table
  -h, --help   show this help and exit
`;

async function main(argv: readonly string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({ args: [...argv], options: { data: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }).values;
  } catch (error) {
    process.stderr.write(`eval:redaction: ${(error as Error).message}\nRun "pnpm eval:redaction --help" for usage.\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const { reports, missing } = await redactionReport(values.data ? resolve(values.data) : DEFAULT_DATA_DIR);
  for (const m of missing) process.stderr.write(`eval:redaction: ${m} not found; skipped\n`);
  if (reports.length === 0) {
    process.stderr.write('eval:redaction: no data found; expected ../shared/data beside the repository or --data DIR.\n');
    return 1;
  }
  if (values.json) process.stdout.write(`${JSON.stringify(reports, null, 2)}\n`);
  else {
    process.stdout.write(`${redactionMarkdown(reports)}\n`);
    for (const r of reports) for (const e of r.examples) process.stdout.write(`\n- ${r.corpus}: ${e}`);
    process.stdout.write('\n');
  }
  return 0;
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
