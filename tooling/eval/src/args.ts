/**
 * The command line of `pnpm eval` (main.ts): the flags of the former `recall eval`, parsed with
 * node:util `parseArgs` (strict: an unknown flag is a usage error) into the options of `runEval`.
 * Nothing is written by default: `--out DIR` writes the JSON results and SVG charts into DIR, and
 * `--write-docs` refreshes the generated section of docs/benchmarks.md and writes the JSON + SVG
 * into docs/eval (or `--out DIR`; `--no-out` skips them).
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SEARCH_MODES, type SearchMode } from '@recall/rpc-contract';
import { EvalUsageError } from './errors.js';
import { DATASETS, DEFAULT_DATA_DIR, REPO_ROOT, type DatasetName, type EvalOptions } from './eval.js';
import { semanticTools, type SemanticKeys } from './semantic.js';
import { keywordTools, semanticSearchTool } from './tools.js';

export const USAGE = `Usage: pnpm eval [--dataset locomo,memorybank] [--modes keyword,semantic,hybrid] [--limit N] [--data DIR] [--memorybank-queries FILE] [--out DIR] [--write-docs] [--rerank-endpoint URL --rerank-model M] [--database URL]

Measure retrieval quality on LoCoMo (English) and MemoryBank (Chinese) through the real importer
and session_search, in throw-away temp homes (never the user's own). Prints the Markdown tables on
stdout; writes files only when asked to.

Options:
  --dataset LIST     locomo, memorybank or all (default all)
  --modes LIST       keyword, semantic, hybrid or all (default keyword)
  --limit N          results per session_search call (1-50, default 10)
  --data DIR         shared data folder (default ${DEFAULT_DATA_DIR})
  --memorybank-queries FILE
                     the MemoryBank question file (same shape as the default
                     packages/store/test/fixtures/cjk-dev-queries.json), e.g. the held-out
                     packages/store/test/fixtures/cjk-dev2-queries.json
  --conversations L  LoCoMo conversation indexes, e.g. 0,1,2 (default all 10)
  --no-speaker       store LoCoMo turns without the "Speaker: " prefix
  --out DIR          write the JSON results + SVG charts into DIR
  --write-docs       refresh the generated section of docs/benchmarks.md and write the JSON + SVG
                     into docs/eval (or --out DIR)
  --no-out           write no JSON or SVG (with --write-docs: only docs/benchmarks.md)
  --database URL     also ask the keyword questions on PostgreSQL: the dataset is copied into this
                     database (postgres://…, empty or holding only an earlier copy of the same
                     dataset; one --dataset at a time) and both backends' recall@k are printed side
                     by side. The URL is never printed; prefer one without a password (~/.pgpass)
  --sqlite-per-project
                     also ask the keyword questions on SQLite with every project in a file of
                     its own (BM25 statistics per project, as on PostgreSQL) and print it beside
                     the one-file run (and beside PostgreSQL with --database)
  -h, --help         show this help and exit
Semantic and hybrid modes index the data with a real model first:
  (default)          the built-in USE-lite English model (512-d, offline)
  --endpoint URL     an OpenAI-compatible /v1/embeddings server instead (key: RECALL_EMBEDDING_API_KEY)
  --model M          its embedding model (required with --endpoint)
  --dims N           its vector length (required with --endpoint)
  --batch N          inputs per embedding request (default: the provider's)
  --cache-dir DIR    embedding cache outside the repository (default: <tmp>/recall-eval-embeddings)
  --fusion K=V,...   the semantic config's fusion overrides to measure, e.g. similarityFloor=0.2,
                     keywordTopBonus=0.2,keywordTopMinGap=0.1,semanticWeight=1 (tune on dev only)
Reranking of the fused top results (semantic and hybrid modes; docs/semantic.md, "Reranking"):
  --rerank-endpoint URL  a rerank server: Recall POSTs to URL/rerank (key: RECALL_RERANK_API_KEY)
  --rerank-model M       its model, e.g. bge-reranker-v2-m3 (required for --rerank-api cohere)
  --rerank-api A         cohere (default: vLLM, llama.cpp, Jina, Cohere) or tei
  --rerank-top-n N       conversations reranked per call (2-50, default 20)
`;

const FLAGS = {
  dataset: { type: 'string' },
  modes: { type: 'string' },
  limit: { type: 'string' },
  data: { type: 'string' },
  'memorybank-queries': { type: 'string' },
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
  fusion: { type: 'string' },
  'rerank-endpoint': { type: 'string' },
  'rerank-model': { type: 'string' },
  'rerank-api': { type: 'string' },
  'rerank-top-n': { type: 'string' },
  database: { type: 'string' },
  'sqlite-per-project': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function listFlag<T extends string>(flag: string, value: string | undefined, allowed: readonly T[], fallback: readonly T[]): T[] {
  if (value === undefined) return [...fallback];
  const items = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (items.includes('all')) return [...allowed];
  for (const i of items) if (!allowed.includes(i as T)) throw new EvalUsageError(`--${flag} accepts ${allowed.join(', ')} or all, got ${JSON.stringify(i)}.`);
  if (items.length === 0) throw new EvalUsageError(`--${flag} must not be empty.`);
  return items as T[];
}

function intFlag(flag: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim())) throw new EvalUsageError(`--${flag} must be an integer, got ${JSON.stringify(value)}.`);
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new EvalUsageError(`--${flag} must be between ${min} and ${max}, got ${value}.`);
  return n;
}

const FUSION_KEYS = ['semanticWeight', 'similarityFloor', 'keywordTopBonus', 'keywordTopMinGap', 'keywordTopRanks'] as const;

/** `--fusion similarityFloor=0.2,keywordTopBonus=0.1` → the config's fusion object (validated again by the semantic config). */
function fusionFlag(value: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [key, raw] = part.split('=');
    if (!key || raw === undefined || !(FUSION_KEYS as readonly string[]).includes(key)) throw new EvalUsageError(`--fusion takes ${FUSION_KEYS.join(', ')} as key=value, got ${JSON.stringify(part)}.`);
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n)) throw new EvalUsageError(`--fusion ${key} must be a number, got ${JSON.stringify(raw)}.`);
    out[key] = n;
  }
  return out;
}

function parseFlags(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: FLAGS, strict: true, allowPositionals: false }).values;
}

/** `{ help: true }` for --help / -h; otherwise the validated options (usage errors throw EvalUsageError). */
export function parseEvalArgs(argv: readonly string[], keys: SemanticKeys, log: (line: string) => void): { help: true } | { help: false; options: EvalOptions } {
  let values: ReturnType<typeof parseFlags>;
  try {
    values = parseFlags(argv);
  } catch (error) {
    if (argv.includes('--help') || argv.includes('-h')) return { help: true };
    throw new EvalUsageError((error as Error).message);
  }
  if (values.help) return { help: true };
  const datasets = listFlag<DatasetName>('dataset', values.dataset, DATASETS, DATASETS);
  const modes = listFlag<SearchMode>('modes', values.modes, SEARCH_MODES, ['keyword']);
  const limit = intFlag('limit', values.limit, 1, 50) ?? 10;
  const dims = intFlag('dims', values.dims, 1, 16_384);
  const batch = intFlag('batch', values.batch, 1, 2048);
  if (values.endpoint !== undefined && (!values.model || dims === undefined)) throw new EvalUsageError('--endpoint needs --model and --dims.');
  if (values.endpoint === undefined && (values.model !== undefined || dims !== undefined)) throw new EvalUsageError('--model and --dims belong to --endpoint (the built-in model has its own).');
  const fusion = values.fusion === undefined ? undefined : fusionFlag(values.fusion);
  const rerankApiRaw = values['rerank-api'] ?? 'cohere';
  if (rerankApiRaw !== 'cohere' && rerankApiRaw !== 'tei') throw new EvalUsageError(`--rerank-api accepts cohere or tei, got ${JSON.stringify(rerankApiRaw)}.`);
  const rerankApi: 'cohere' | 'tei' = rerankApiRaw;
  const rerankTopN = intFlag('rerank-top-n', values['rerank-top-n'], 2, 50);
  const rerankEndpoint = values['rerank-endpoint'];
  if (rerankEndpoint === undefined && (values['rerank-model'] !== undefined || values['rerank-api'] !== undefined || rerankTopN !== undefined)) throw new EvalUsageError('--rerank-model, --rerank-api and --rerank-top-n belong to --rerank-endpoint.');
  if (rerankEndpoint !== undefined && rerankApi === 'cohere' && values['rerank-model'] === undefined) throw new EvalUsageError('--rerank-endpoint needs --rerank-model (or --rerank-api tei).');
  if (rerankEndpoint !== undefined && !modes.some((m) => m !== 'keyword')) throw new EvalUsageError('--rerank-endpoint reranks semantic and hybrid results: add --modes hybrid (or semantic).');
  const rerank = rerankEndpoint === undefined ? undefined : { endpoint: rerankEndpoint, api: rerankApi, ...(values['rerank-model'] ? { model: values['rerank-model'] } : {}), ...(rerankTopN !== undefined ? { topN: rerankTopN } : {}) };
  const conversations = values.conversations?.split(',').map((s) => intFlag('conversations', s.trim(), 0, 9)!);
  const database = values.database;
  if (database !== undefined && !/^postgres(ql)?:\/\//.test(database)) throw new EvalUsageError('--database needs a postgres:// or postgresql:// URL.');
  if (database !== undefined && datasets.length !== 1) throw new EvalUsageError('--database takes one --dataset at a time (each dataset needs its own empty database).');
  if (database !== undefined && !modes.includes('keyword')) throw new EvalUsageError('--database compares keyword mode: add keyword to --modes.');
  const writeDocs = values['write-docs'] === true;
  const outDir = values['no-out'] ? null : values.out ? resolve(values.out) : writeDocs ? join(REPO_ROOT, 'docs', 'eval') : null;
  const options: EvalOptions = {
    datasets,
    modes,
    limit,
    dataDir: values.data ? resolve(values.data) : DEFAULT_DATA_DIR,
    ...(values['memorybank-queries'] ? { memorybankQueries: resolve(values['memorybank-queries']) } : {}),
    speakerPrefix: !values['no-speaker'],
    ...(conversations ? { conversations } : {}),
    tools: modes.some((m) => m !== 'keyword')
      ? semanticTools(
          {
            ...(values.endpoint ? { endpoint: values.endpoint, model: values.model!, dims: dims! } : {}),
            ...(batch !== undefined ? { batchSize: batch } : {}),
            ...(values['cache-dir'] ? { cacheDir: resolve(values['cache-dir']) } : {}),
            ...(fusion ? { fusion } : {}),
            ...(rerank ? { rerank } : {}),
          },
          keys,
          semanticSearchTool,
        )
      : keywordTools(),
    outDir,
    ...(database !== undefined ? { database } : {}),
    ...(values['sqlite-per-project'] ? { sqlitePerProject: true } : {}),
    docsFile: writeDocs ? join(REPO_ROOT, 'docs', 'benchmarks.md') : null,
    log,
  };
  return { help: false, options };
}
