/**
 * `pnpm eval` orchestration: locates the shared data (../shared/data beside the repository, or
 * `--data`), loads the requested datasets (locomo.ts, memorybank.ts), imports each into its own
 * fresh temp home through the real importer, asks every question through the real session_search
 * tool (runner.ts), and writes the results only where asked: JSON + SVG charts into `outDir` and
 * the generated section of `docsFile` (docs/benchmarks.md with `--write-docs`; report.ts). A missing dataset is
 * reported and skipped (typed error only when none of the requested ones exists).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openDatabase, profileDatabasePath, type RecallDatabase } from '@recall/schema';
import type { SearchMode } from '@recall/rpc-contract';
import { EvalDataMissingError, EvalUsageError } from './errors.js';
import { loadLocomo, type LocomoConversation } from './locomo.js';
import { loadMemoryBank, type DevQuery, type MemoryBank, type MemoryBankConverter } from './memorybank.js';
import { aggregate } from './metrics.js';
import { anchorHitTable, charts, foreignDetails, foreignRows, foreignTable, groupRows, markdownTable, outcomeJson, replaceGenerated } from './report.js';
import { createSessionSearchTool } from '@recall/search-tool';
import { backendTable, copyToPostgres } from './postgres.js';
import { runPerProject } from './per-project.js';
import { runDataset, type RunResult, type SearchExecutor } from './runner.js';
import type { EvalDataset } from './types.js';

/** tooling/eval/{src|dist} → repository root. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const DEFAULT_DATA_DIR = resolve(REPO_ROOT, '..', 'shared', 'data');
/** The hand-labelled MemoryBank questions the Chinese keyword ranking was tuned on. */
export const DEFAULT_MEMORYBANK_QUERIES = join(REPO_ROOT, 'packages', 'store', 'test', 'fixtures', 'cjk-dev-queries.json');
export const DATASETS = ['locomo', 'memorybank'] as const;
export type DatasetName = (typeof DATASETS)[number];

/** How the eval builds the session_search tool for a freshly imported database. */
export interface ToolFactory {
  /** Human description for the report (e.g. the semantic provider, model and dims). */
  describe(): string;
  /** Builds the tool for `db`; `prepare` runs after the import (e.g. indexing), before questions. */
  create(db: RecallDatabase, log: (line: string) => void): Promise<{ tool: SearchExecutor; prepare?: () => Promise<void>; close?: () => void | Promise<void>; facts?: Record<string, unknown> }>;
}

export interface EvalOptions {
  datasets: readonly DatasetName[];
  modes: readonly SearchMode[];
  limit: number;
  dataDir: string;
  speakerPrefix: boolean;
  /** MemoryBank question file (default packages/store/test/fixtures/cjk-dev-queries.json, the set the keyword ranking was tuned on). */
  memorybankQueries?: string;
  /** LoCoMo conversation indexes (default all 10). */
  conversations?: readonly number[];
  tools: ToolFactory;
  /** `--database URL`: also ask the keyword questions on a PostgreSQL copy of the dataset (postgres.ts); never printed. */
  database?: string;
  /** `--sqlite-per-project`: also ask the keyword questions on SQLite with one project per file (per-project.ts). */
  sqlitePerProject?: boolean;
  /** Folder for JSON + SVG output; null = none. */
  outDir: string | null;
  /** Rewrite the generated section of this Markdown file; null = leave docs alone. */
  docsFile: string | null;
  log: (line: string) => void;
}

export interface DatasetReport {
  run: RunResult;
  /** The keyword questions asked again on the PostgreSQL copy (`--database`). */
  postgres?: RunResult;
  /** The keyword questions asked again on SQLite with one project per file (`--sqlite-per-project`). */
  perProject?: RunResult;
  dataset: EvalDataset;
  facts: Record<string, unknown>;
}

export function machineLine(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, ${(totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`;
}

async function loadDataset(name: DatasetName, options: EvalOptions): Promise<EvalDataset | null> {
  if (name === 'locomo') {
    const path = join(options.dataDir, 'locomo', 'locomo10.json');
    if (!existsSync(path)) return null;
    const data = JSON.parse(readFileSync(path, 'utf8')) as LocomoConversation[];
    return loadLocomo(data, { speakerPrefix: options.speakerPrefix, ...(options.conversations ? { conversations: options.conversations } : {}) });
  }
  const path = join(options.dataDir, 'memorybank', 'memory_bank_cn.json');
  if (!existsSync(path)) return null;
  const bank = JSON.parse(readFileSync(path, 'utf8')) as MemoryBank;
  const queriesFile = options.memorybankQueries ?? DEFAULT_MEMORYBANK_QUERIES;
  if (!existsSync(queriesFile)) throw new EvalUsageError(`--memorybank-queries: no such file ${queriesFile}.`);
  const fixture = JSON.parse(readFileSync(queriesFile, 'utf8')) as { queries: DevQuery[] };
  // The repository's own converter (plain JS, also used for `recall import` of the demo data).
  const script = (await import(pathToFileURL(join(REPO_ROOT, 'tooling', 'scripts', 'memorybank-to-jsonl.mjs')).href)) as { convertMemoryBank: MemoryBankConverter };
  return loadMemoryBank(bank, fixture.queries, script.convertMemoryBank);
}

export async function runEval(options: EvalOptions): Promise<DatasetReport[]> {
  const reports: DatasetReport[] = [];
  const missing: string[] = [];
  for (const name of options.datasets) {
    const dataset = await loadDataset(name, options);
    if (!dataset) {
      missing.push(name);
      options.log(`eval: ${name} data not found under ${options.dataDir}; skipped`);
      continue;
    }
    const home = mkdtempSync(join(tmpdir(), `recall-eval-${name}-`));
    const db = openDatabase(profileDatabasePath(home, 'default'), { profile: 'default' });
    let built: Awaited<ReturnType<ToolFactory['create']>> | null = null;
    try {
      options.log(`eval: ${name}: ${dataset.records.filter((r) => r.kind === 'message').length} messages, ${dataset.questions.length} questions; importing into ${home}`);
      built = await options.tools.create(db, options.log);
      const started = performance.now();
      const run = await runDataset(dataset, {
        db,
        profile: 'default',
        tool: built.tool,
        modes: options.modes,
        limit: options.limit,
        ...(built.prepare ? { afterImport: built.prepare } : {}),
        onProgress: (mode, done, total) => options.log(`eval: ${name} ${mode}: ${done}/${total} questions`),
      });
      const r10 = [...run.outcomes].map(([m, o]) => `${m} R@10 ${aggregate(o).recall[10].toFixed(3)}`).join(', ');
      options.log(`eval: ${name} done in ${((performance.now() - started) / 1000).toFixed(1)} s (import ${(run.importMs / 1000).toFixed(1)} s); ${r10}`);
      let postgres: RunResult | undefined;
      if (options.database) {
        const storage = await copyToPostgres(db, options.database, options.log);
        try {
          postgres = await runDataset(dataset, {
            db,
            profile: 'default',
            tool: createSessionSearchTool({ storage }),
            modes: ['keyword'],
            limit: options.limit,
            imported: { messages: run.messages, ms: run.importMs },
            onProgress: (mode, done, total) => options.log(`eval: ${name} ${mode} on PostgreSQL: ${done}/${total} questions`),
          });
        } finally {
          await storage.close();
        }
      }
      const perProject = options.sqlitePerProject ? await runPerProject(dataset, { modes: ['keyword'], limit: options.limit, log: options.log }) : undefined;
      reports.push({ run, dataset, facts: built.facts ?? {}, ...(postgres ? { postgres } : {}), ...(perProject ? { perProject } : {}) });
    } finally {
      await built?.close?.();
      db.close();
      rmSync(home, { recursive: true, force: true });
    }
  }
  if (reports.length === 0) throw new EvalDataMissingError(`No eval data found (${missing.join(', ')}) under ${options.dataDir}; expected ../shared/data beside the repository or --data DIR.`);
  if (options.outDir) writeOutputs(reports, options);
  if (options.docsFile) writeDocs(reports, options);
  return reports;
}

function jsonReport(reports: readonly DatasetReport[], options: EvalOptions): Record<string, unknown> {
  return {
    date: new Date().toISOString(),
    machine: machineLine(),
    tools: options.tools.describe(),
    protocol: { limit: options.limit, speaker_prefix: options.speakerPrefix, modes: options.modes },
    datasets: reports.map(({ run, dataset, facts, postgres, perProject }) => ({
      name: run.dataset,
      messages: run.messages,
      import_ms: Math.round(run.importMs),
      notes: dataset.notes,
      facts,
      status: Object.fromEntries(run.status),
      groups: groupRows(run).map((r) => ({ mode: r.mode, split: r.split, group: r.group, ...r.agg })),
      foreign: foreignRows(run),
      questions: Object.fromEntries([...run.outcomes].map(([mode, list]) => [mode, list.map(outcomeJson)])),
      ...(postgres ? { postgres_groups: groupRows(postgres).map((r) => ({ mode: r.mode, split: r.split, group: r.group, ...r.agg })), postgres_questions: Object.fromEntries([...postgres.outcomes].map(([mode, list]) => [mode, list.map(outcomeJson)])) } : {}),
      ...(perProject ? { per_project_groups: groupRows(perProject).map((r) => ({ mode: r.mode, split: r.split, group: r.group, ...r.agg })), per_project_questions: Object.fromEntries([...perProject.outcomes].map(([mode, list]) => [mode, list.map(outcomeJson)])) } : {}),
    })),
  };
}

function writeOutputs(reports: readonly DatasetReport[], options: EvalOptions): void {
  const dir = options.outDir!;
  mkdirSync(dir, { recursive: true });
  const modes = sectionKey(options);
  writeFileSync(join(dir, `results-${modes}.json`), JSON.stringify(jsonReport(reports, options)) + '\n');
  for (const { run } of reports) for (const c of charts(run)) writeFileSync(join(dir, `${c.name}-${modes}.svg`), c.svg);
  options.log(`eval: wrote ${relative(process.cwd(), dir) || dir}/results-${modes}.json and ${reports.flatMap((r) => charts(r.run)).length} chart(s)`);
}

/** Names the output files and the docs section: the modes, the datasets when not all, and `-nospeaker` for that protocol variant. */
export function sectionKey(options: Pick<EvalOptions, 'modes' | 'speakerPrefix' | 'datasets'>): string {
  const subset = options.datasets.length < DATASETS.length ? `-${options.datasets.join('-')}` : '';
  return `${options.modes.join('-')}${subset}${options.speakerPrefix ? '' : '-nospeaker'}`;
}

/** The eval as the docs print it (repo-checks: every documented command starts with `npx -y pnpm@10`). */
export const EVAL_COMMAND = 'npx -y pnpm@10 eval';

/** The command that reproduces a run (modes, dataset subset, protocol variant), with `--write-docs` when it refreshes the docs. */
export function evalCommand(options: Pick<EvalOptions, 'modes' | 'speakerPrefix' | 'datasets'>, writeDocs: boolean): string {
  const modes = options.modes.length === 1 && options.modes[0] === 'keyword' ? '' : ` --modes ${options.modes.join(',')}`;
  const datasets = options.datasets.length < DATASETS.length ? ` --dataset ${options.datasets.join(',')}` : '';
  return `${EVAL_COMMAND}${modes}${datasets}${options.speakerPrefix ? '' : ' --no-speaker'}${writeDocs ? ' --write-docs' : ''}`;
}

/** The marker comments around the generated docs section of a run's `sectionKey`. */
export function sectionMarkers(key: string): { begin: string; end: string } {
  return { begin: `<!-- eval:${key}:begin (generated by \`${EVAL_COMMAND}\`; edits inside are overwritten) -->`, end: `<!-- eval:${key}:end -->` };
}

/** The protocol sentence every generated section states after its tools line. */
export function protocolSentence(limit: number): string {
  return `Each question is one \`session_search\` call (limit ${limit}) from a fresh empty session of its project; recall counts evidence found as a result's anchor or in its \`other_message_ids\`; "anchor" counts anchors alone (is the anchor the evidence message?), "conversation" counts evidence anywhere in a returned conversation (is the conversation right?). Latency is the tool call in-process.`;
}

/** The generated Markdown section (tables, notes, machine, command). */
export function markdownSection(reports: readonly DatasetReport[], options: EvalOptions, command: string): string {
  const out: string[] = [];
  out.push(`Generated ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC by \`${command}\` on ${machineLine()}.`);
  out.push(`Tools: ${options.tools.describe()}. ${protocolSentence(options.limit)}`);
  const chartDir = options.outDir ? relative(dirname(options.docsFile ?? join(REPO_ROOT, 'docs', 'x.md')), options.outDir) : null;
  for (const { run, dataset, facts, postgres, perProject } of reports) {
    out.push('', `### ${run.dataset === 'locomo' ? 'LoCoMo (English)' : 'MemoryBank (Chinese)'} — ${run.messages.toLocaleString('en')} messages, ${dataset.questions.length} questions`);
    out.push('', ...dataset.notes.map((n) => `- ${n}`));
    if (Object.keys(facts).length) out.push(`- semantic index: ${Object.entries(facts).map(([k, v]) => `${k} ${String(v)}`).join(', ')}`);
    for (const [mode, s] of run.status) {
      out.push(`- ${mode}: used_mode ${JSON.stringify(s.usedModes)}, semantic_status ${JSON.stringify(s.semanticStatus)}`);
      // Honesty guard: a semantic/hybrid run whose calls all fell back to keyword measured keyword.
      if (mode !== 'keyword' && !((s.usedModes[mode] ?? 0) > 0)) out.push(`- **WARNING: no ${mode} call ran as ${mode}; the ${mode} rows below are keyword fallbacks, not ${mode} numbers** (notes: ${s.notes.join(' | ') || 'none'})`);
    }
    out.push('', markdownTable(groupRows(run)));
    if (run.dataset !== 'locomo') out.push('', 'Anchor hit@k (one of the first k anchors is an evidence message; a question labelled with two turns counts 1, not 0.5):', '', anchorHitTable(groupRows(run)));
    if (postgres) out.push('', 'The same keyword questions on a PostgreSQL copy of the data (`--database`), recall@k per category side by side (issue 19 asks for equal within 0.02):', '', backendTable(run, postgres));
    if (perProject) {
      out.push('', 'The same keyword questions on SQLite with one project per file (`--sqlite-per-project`: its BM25 statistics are then the project\'s, as on PostgreSQL), against one file holding every project:', '', backendTable(run, perProject, ['SQLite one file', 'SQLite per project']));
      if (postgres) out.push('', 'SQLite with one project per file against PostgreSQL (the same statistics on both):', '', backendTable(perProject, postgres, ['SQLite per project', 'PostgreSQL']));
    }
    const f = foreignRows(run);
    if (f.length) {
      out.push('', 'Questions whose answer exists only in another user\'s project (asked from the wrong project; expected: nothing from the other project):', '', foreignTable(f));
      out.push('', `<details><summary>what each of them returned (${[...run.outcomes.keys()][0]})</summary>`, '', foreignDetails(run, dataset.questions), '', '</details>');
    }
    if (chartDir) for (const c of charts(run)) out.push('', `![${c.name}](${chartDir}/${c.name}-${sectionKey(options)}.svg)`);
  }
  return out.join('\n');
}

/**
 * `doc` with the generated section `key` replaced by `body` (appended when absent). A begin marker
 * of an older wording is the same section: it is rewritten in place, never duplicated.
 */
export function updateDocsSection(doc: string, key: string, body: string): string {
  const { begin, end } = sectionMarkers(key);
  const current = doc.replace(new RegExp(`^<!-- eval:${key.replace(/[^a-z0-9-]/g, '')}:begin\\b[^\\n]*-->$`, 'm'), () => begin);
  return replaceGenerated(current, body, begin, end);
}

function writeDocs(reports: readonly DatasetReport[], options: EvalOptions): void {
  const file = options.docsFile!;
  const doc = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const modes = sectionKey(options);
  writeFileSync(file, updateDocsSection(doc, modes, markdownSection(reports, options, evalCommand(options, true))));
  options.log(`eval: refreshed the generated section (${modes}) of ${relative(process.cwd(), file) || file}`);
}
