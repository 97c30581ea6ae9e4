#!/usr/bin/env node
/**
 * `pnpm eval`: the retrieval evaluation (eval.ts) as a plain node program. Imports LoCoMo (English)
 * and/or MemoryBank (Chinese) from the shared data folder into throw-away temp homes through the
 * real importer, asks every question through the real session_search tool in the requested modes
 * and prints the Markdown tables on stdout. Files only on request (args.ts): `--out DIR` for the
 * JSON + SVG charts, `--write-docs` for the generated section of docs/benchmarks.md (and JSON + SVG
 * in docs/eval). `--help` prints the usage and exits 0 without running anything. Never touches the
 * user's own home. Exit codes: 0 done, 2 usage error, 1 typed error (printed with its stable code)
 * or bug (with its stack).
 */
import { parseEvalArgs, USAGE } from './args.js';
import { EvalError, EvalUsageError } from './errors.js';
import { evalCommand, markdownSection, runEval } from './eval.js';

async function main(argv: readonly string[]): Promise<number> {
  try {
    const parsed = parseEvalArgs(
      argv,
      // The only reader of the environment: keys go to the semantic layer, which decides where each may be sent.
      { embeddingApiKey: process.env.RECALL_EMBEDDING_API_KEY || null, openaiApiKey: process.env.OPENAI_API_KEY || null, rerankApiKey: process.env.RECALL_RERANK_API_KEY || null },
      (line) => process.stderr.write(`${line}\n`),
    );
    if (parsed.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    const reports = await runEval(parsed.options);
    process.stdout.write(`${markdownSection(reports, parsed.options, evalCommand(parsed.options, parsed.options.docsFile !== null))}\n`);
    return 0;
  } catch (error) {
    if (error instanceof EvalUsageError) {
      process.stderr.write(`eval: ${error.message}\nRun "pnpm eval --help" for usage.\n`);
      return 2;
    }
    if (error instanceof EvalError) {
      process.stderr.write(`eval: ${error.message} [${error.code}]\n`);
      return 1;
    }
    process.stderr.write(`eval: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  }
}

// exitCode, not exit(): let stdout drain into a pipe before the process ends.
main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
