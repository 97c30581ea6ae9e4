/**
 * `recall import FILE.jsonl`: streams a recall-jsonl v1 file (DESIGN §8) into the profile's
 * database through import-jsonl.ts — batched transactions, idempotent by id / external_id, errors
 * by line number. Shows a progress bar on a terminal (stderr) and prints summary counts at the end
 * (`--json`: the ImportSummary object). Exit code 0 when every line was imported or already
 * present, 1 (code `import_line_errors`) when some lines were rejected — the valid ones are in.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_IMPORT_BATCH_LINES, importJsonlFile, type ImportSummary } from '../import-jsonl.js';
import { intFlag } from './args.js';
import { defineCommand } from './command.js';
import { printJson, type Output } from './context.js';
import { EXIT_ERROR, ImportFileError, ImportLineErrors } from './errors.js';
import { progressBar } from './progress.js';

/** Line errors shown in the human summary; `--json` has up to MAX_REPORTED_ERRORS of them. */
const SHOWN_ERRORS = 20;

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

function printSummary(out: Output, err: Output, path: string, s: ImportSummary, ms: number): void {
  out.write(
    [
      `Imported ${path} in ${(ms / 1000).toFixed(1)} s: ${s.lines} lines`,
      `  projects created:  ${s.projects}`,
      `  sessions created:  ${s.sessions}`,
      `  sessions updated:  ${s.sessionsUpdated}`,
      `  messages inserted: ${s.messages}`,
      `  already present:   ${s.skipped}`,
      `  rejected lines:    ${s.errorCount}`,
      '',
    ].join('\n'),
  );
  for (const e of s.errors.slice(0, SHOWN_ERRORS)) err.write(`  line ${e.line}: [${e.code}] ${e.message}\n`);
  if (s.errorCount > SHOWN_ERRORS) err.write(`  … and ${s.errorCount - SHOWN_ERRORS} more (use --json for the list)\n`);
}

export const importCommand = defineCommand<{ json?: boolean; batch?: string }>({
  name: 'import',
  summary: 'Import conversations from a recall-jsonl file (idempotent: re-importing changes nothing).',
  usage: 'import FILE.jsonl [--json] [--batch N]',
  optionsHelp: `  --json            print the summary as JSON ({ lines, projects, sessions, messages, sessionsUpdated, skipped, errors, errorCount })
  --batch N         lines per write transaction (1-100000, default ${DEFAULT_IMPORT_BATCH_LINES})`,
  options: { json: { type: 'boolean' }, batch: { type: 'string' } },
  positionals: { min: 1, max: 1, names: 'FILE.jsonl' },
  async run(ctx, { values, positionals }) {
    const batchLines = intFlag('import', 'batch', values.batch, 1, 100_000) ?? DEFAULT_IMPORT_BATCH_LINES;
    const path = resolve(positionals[0]!);
    try {
      if (!statSync(path).isFile()) throw new ImportFileError(path, 'not a regular file');
    } catch (error) {
      if (error instanceof ImportFileError) throw error;
      throw new ImportFileError(path, (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message);
    }
    const bar = progressBar(ctx.err);
    const started = Date.now();
    let summary: ImportSummary;
    try {
      summary = await importJsonlFile(ctx.db(), path, {
        batchLines,
        onProgress: (p) =>
          bar.update(p.bytes, p.totalBytes, `${p.lines} lines, ${p.summary.messages} messages${p.totalBytes ? ` (${formatBytes(p.bytes)} of ${formatBytes(p.totalBytes)})` : ''}`),
      });
    } finally {
      bar.finish();
    }
    if (values.json) printJson(ctx.out, summary);
    else printSummary(ctx.out, ctx.err, path, summary, Date.now() - started);
    if (summary.errorCount > 0) {
      const error = new ImportLineErrors(summary.errorCount);
      ctx.err.write(`recall import: ${error.message} [${error.code}]\n`);
      return EXIT_ERROR;
    }
  },
});
