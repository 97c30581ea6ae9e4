/**
 * `recall eval`: the retrieval evaluation (eval/eval.ts) as a command. Imports LoCoMo (English)
 * and/or MemoryBank (Chinese) from the shared data folder into throw-away temp homes through the
 * real importer, asks every question through the real session_search tool in the requested modes,
 * prints the Markdown tables, and writes JSON + SVG charts (default docs/eval/) and, with
 * `--write-docs`, the generated section of docs/benchmarks.md. Never touches the user's own home.
 */
import { join, resolve } from 'node:path';
import { SEARCH_MODES, type SearchMode } from '@recall/search-tool';
import { DATASETS, REPO_ROOT, DEFAULT_DATA_DIR, markdownSection, runEval, type DatasetName, type EvalOptions } from '../eval/eval.js';
import { semanticTools } from '../eval/semantic.js';
import { keywordTools, semanticSearchTool } from '../eval/tools.js';
import { intFlag } from './args.js';
import { defineCommand } from './command.js';
import { UsageError } from './errors.js';

function listFlag<T extends string>(flag: string, value: string | undefined, allowed: readonly T[], fallback: readonly T[]): T[] {
  if (value === undefined) return [...fallback];
  const items = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (items.includes('all')) return [...allowed];
  for (const i of items) if (!allowed.includes(i as T)) throw new UsageError(`--${flag} accepts ${allowed.join(', ')} or all, got ${JSON.stringify(i)}.`, 'eval');
  if (items.length === 0) throw new UsageError(`--${flag} must not be empty.`, 'eval');
  return items as T[];
}

export const evalCommand = defineCommand<{
  dataset?: string;
  modes?: string;
  limit?: string;
  data?: string;
  out?: string;
  'no-out'?: boolean;
  'write-docs'?: boolean;
  'no-speaker'?: boolean;
  conversations?: string;
  endpoint?: string;
  model?: string;
  dims?: string;
  batch?: string;
  'cache-dir'?: string;
}>({
  name: 'eval',
  summary: 'Measure retrieval quality on LoCoMo (English) and MemoryBank (Chinese) through the real importer and session_search.',
  usage: 'eval [--dataset locomo,memorybank] [--modes keyword,semantic,hybrid] [--limit N] [--data DIR] [--out DIR] [--write-docs]',
  optionsHelp: `  --dataset LIST     locomo, memorybank or all (default all)
  --modes LIST       keyword, semantic, hybrid or all (default keyword)
  --limit N          results per session_search call (1-50, default 10)
  --data DIR         shared data folder (default ${DEFAULT_DATA_DIR})
  --conversations L  LoCoMo conversation indexes, e.g. 0,1,2 (default all 10)
  --no-speaker       store LoCoMo turns without the "Speaker: " prefix
  --out DIR          JSON results + SVG charts (default docs/eval in the repository)
  --no-out           write no files
  --write-docs       refresh the generated section of docs/benchmarks.md
Semantic and hybrid modes index the data with a real model first:
  (default)          the built-in USE-lite English model (512-d, offline)
  --endpoint URL     an OpenAI-compatible /v1/embeddings server instead (key: RECALL_EMBEDDING_API_KEY)
  --model M          its embedding model (required with --endpoint)
  --dims N           its vector length (required with --endpoint)
  --batch N          inputs per embedding request (default: the provider's)
  --cache-dir DIR    embedding cache outside the repository (default: <tmp>/recall-eval-embeddings)`,
  options: {
    dataset: { type: 'string' },
    modes: { type: 'string' },
    limit: { type: 'string' },
    data: { type: 'string' },
    out: { type: 'string' },
    'no-out': { type: 'boolean' },
    'write-docs': { type: 'boolean' },
    'no-speaker': { type: 'boolean' },
    conversations: { type: 'string' },
    endpoint: { type: 'string' },
    model: { type: 'string' },
    dims: { type: 'string' },
    batch: { type: 'string' },
    'cache-dir': { type: 'string' },
  },
  positionals: { min: 0, max: 0 },
  check({ values }) {
    listFlag('dataset', values.dataset, DATASETS, DATASETS);
    listFlag('modes', values.modes, SEARCH_MODES, ['keyword']);
    intFlag('eval', 'limit', values.limit, 1, 50);
    intFlag('eval', 'dims', values.dims, 1, 16_384);
    intFlag('eval', 'batch', values.batch, 1, 2048);
    if (values.endpoint !== undefined && (!values.model || !values.dims)) throw new UsageError('--endpoint needs --model and --dims.', 'eval');
    if (values.endpoint === undefined && (values.model !== undefined || values.dims !== undefined)) throw new UsageError('--model and --dims belong to --endpoint (the built-in model has its own).', 'eval');
  },
  async run(ctx, { values }) {
    const modes = listFlag<SearchMode>('modes', values.modes, SEARCH_MODES, ['keyword']);
    const conversations = values.conversations?.split(',').map((s) => intFlag('eval', 'conversations', s.trim(), 0, 9)!);
    const options: EvalOptions = {
      datasets: listFlag<DatasetName>('dataset', values.dataset, DATASETS, DATASETS),
      modes,
      limit: intFlag('eval', 'limit', values.limit, 1, 50) ?? 10,
      dataDir: values.data ? resolve(values.data) : DEFAULT_DATA_DIR,
      speakerPrefix: !values['no-speaker'],
      ...(conversations ? { conversations } : {}),
      tools: modes.some((m) => m !== 'keyword')
        ? semanticTools(
            {
              ...(values.endpoint ? { endpoint: values.endpoint, model: values.model!, dims: intFlag('eval', 'dims', values.dims, 1, 16_384)! } : {}),
              ...(values.batch ? { batchSize: intFlag('eval', 'batch', values.batch, 1, 2048)! } : {}),
              ...(values['cache-dir'] ? { cacheDir: resolve(values['cache-dir']) } : {}),
            },
            ctx.config.semanticKeys,
            semanticSearchTool,
          )
        : keywordTools(),
      outDir: values['no-out'] ? null : values.out ? resolve(values.out) : join(REPO_ROOT, 'docs', 'eval'),
      docsFile: values['write-docs'] ? join(REPO_ROOT, 'docs', 'benchmarks.md') : null,
      log: (line) => ctx.err.write(`${line}\n`),
    };
    const reports = await runEval(options);
    ctx.out.write(`${markdownSection(reports, options, 'recall eval')}\n`);
  },
});
