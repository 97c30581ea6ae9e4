/**
 * `recall import [--from FORMAT] PATH`: imports conversations into the profile's database, or with
 * `--database URL` into a PostgreSQL team database (every write through the storage ports).
 * `recall-jsonl` (the default, DESIGN §8) streams one file through @recall/importers; `claude-code`,
 * `codex` and `hermes` read the agents' own transcripts (a file, or a folder searched recursively;
 * for hermes a state.db or a Hermes home with profiles) through the same package. Ownership is explicit:
 * `--project ID|SLUG|NAME`, `--project-per-folder` (one project per distinct git root/cwd, through the
 * folder mapping), or neither (no project). Every import is idempotent (a re-run imports only what
 * is new), batched in transactions (nothing half-written when a line is refused or the process is
 * killed), shows a progress bar on a terminal (stderr) and ends with a summary — `--dry-run` says
 * what would be created per project without writing. Exit code 0 when every line was imported or
 * already present, 1 (code `import_line_errors`) when some lines were rejected — the valid ones are in —
 * and 1 with the cause's code (`disk_full`) when it stopped part-way, saying exactly what was saved.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { redactStorageUrl, type Storage } from '@recall/storage-ports';
import { sqliteStorage } from '@recall/store';
import {
  DEFAULT_IMPORT_BATCH_LINES,
  DEFAULT_SOURCE_BATCH,
  hermesStores,
  IMPORT_FORMATS,
  ImportAbortedError,
  importHermes,
  importJsonlFile,
  importTranscripts,
  transcriptFiles,
  type ImportFormat,
  type ImportProgressInfo,
  type ProjectMapping,
  type SourceImportSummary,
} from '@recall/importers';
import type { ImportSummary } from '@recall/rpc-contract';
import { openProfileDatabase } from '@recall/gateway-rpc';
import { enumFlag, intFlag } from './args.js';
import { openCommandStorage, resolveProjectRefOn } from './command-storage.js';
import { defineCommand } from './command.js';
import { printJson, type CliContext, type Output } from './context.js';
import { EXIT_ERROR, ImportFileError, ImportLineErrors, UsageError } from '../errors.js';
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

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** How a per-project key reads: the project's slug and id, a project a dry run would create, or no project. */
async function projectLabel(storage: Storage | null, key: string, name: string | null): Promise<string> {
  if (key === 'none') return 'no project';
  if (key.startsWith('new:')) return `new project ${name ?? ''} for ${key.slice(4)}`.replace('  ', ' ');
  const project = storage === null ? undefined : await storage.projects.find(key);
  return project ? `${project.slug} (${project.id})` : `${name ?? key} (${key})`;
}

/**
 * The summary of a transcript import, counted the way `recall projects` and the sidebar count:
 * conversations (a compression continuation belongs to its conversation), hidden subagent sessions
 * apart (imported and readable, never listed or searched — said so), and "updated" only for
 * sessions that existed before this import.
 */
async function printSourceSummary(out: Output, err: Output, storage: Storage | null, label: string, s: SourceImportSummary, ms: number): Promise<void> {
  const would = s.dryRun;
  const folded = s.sessions - s.conversations - s.hiddenSessions;
  const parts = [plural(s.conversations, 'conversation'), ...(folded > 0 ? [plural(folded, 'continuation')] : []), ...(s.hiddenSessions > 0 ? [plural(s.hiddenSessions, 'hidden subagent session')] : [])];
  const row = (label: string, value: string) => `  ${`${label}:`.padEnd(26)}${value}`;
  const lines = [
    `${would ? 'Dry run (nothing written): would import' : 'Imported'} ${label} in ${(ms / 1000).toFixed(1)} s: ${plural(s.files, 'file')}, ${s.records} records`,
    row(`projects ${would ? 'to create' : 'created'}`, String(s.projectsCreated)),
    row(`conversations ${would ? 'to add' : 'added'}`, `${s.conversations}${s.sessions !== s.conversations ? `  (${plural(s.sessions, 'session')}: ${parts.join(', ')})` : ''}`),
    ...(would || s.sessionsUpdated === 0 ? [] : [row('earlier sessions updated', String(s.sessionsUpdated))]),
    row(`messages ${would ? 'to insert' : 'inserted'}`, String(s.messages)),
    row('already present', String(s.skipped)),
    row('rejected lines', String(s.errorCount)),
  ];
  if (s.perProject.length > 0) {
    lines.push('  per project:');
    for (const p of s.perProject) {
      const hidden = p.hiddenSessions > 0 ? `; and ${plural(p.hiddenSessions, 'hidden subagent session')}` : '';
      lines.push(`    ${await projectLabel(storage, p.project, p.name)}: ${plural(p.conversations, 'conversation')}, ${plural(p.messages, 'message')}${hidden}`);
    }
  }
  if (s.hiddenSessions > 0 || s.hiddenMessages > 0) {
    lines.push(
      `  Note: subagent work (${plural(s.hiddenSessions, 'hidden session')}, ${plural(s.hiddenMessages, 'message')}) ${would ? 'would be' : 'is'} kept with its conversation but is not searchable or listed.`,
    );
  }
  out.write(`${lines.join('\n')}\n`);
  for (const e of s.errors.slice(0, SHOWN_ERRORS)) err.write(`  ${e.file}${e.line > 0 ? `:${e.line}` : ''}: [${e.code}] ${e.message}\n`);
  if (s.errorCount > SHOWN_ERRORS) err.write(`  … and ${s.errorCount - SHOWN_ERRORS} more (use --json for the list)\n`);
}

function progressLabel(p: ImportProgressInfo): string {
  const where = p.bytesTotal > 0 ? ` (${formatBytes(p.bytesDone)} of ${formatBytes(p.bytesTotal)})` : '';
  return `${p.filesDone}/${p.filesTotal} files, ${p.summary.messages} messages${where}`;
}

async function mappingOf(storage: Storage, values: { project?: string | undefined; 'project-per-folder'?: boolean | undefined }): Promise<ProjectMapping> {
  if (values.project !== undefined) {
    const project = await resolveProjectRefOn(storage, values.project);
    return { kind: 'project', projectId: project.id };
  }
  return values['project-per-folder'] ? { kind: 'per-folder' } : { kind: 'none' };
}

async function importSource(ctx: CliContext, storage: Storage, format: Exclude<ImportFormat, 'recall-jsonl'>, path: string, values: ImportFlags, batchSize: number): Promise<number | void> {
  const bar = progressBar(ctx.err);
  const started = Date.now();
  const dryRun = values['dry-run'] === true;
  const onProgress = (p: ImportProgressInfo) => bar.update(p.bytesDone, p.bytesTotal > 0 ? p.bytesTotal : null, progressLabel(p));
  const results: { profile: string; summary: SourceImportSummary }[] = [];
  try {
    if (format === 'hermes') {
      const stores = hermesStores(path);
      if (stores.length === 0) throw new ImportFileError(path, 'no state.db here (expected a state.db file or a Hermes home with state.db / profiles/<name>/state.db)');
      const others = stores.filter((s) => s.profile !== null && s.profile !== ctx.config.profile);
      if (storage.kind === 'postgres' && others.length > 0) {
        // A team database holds one profile: the other Hermes profiles would be mixed into it.
        throw new UsageError(`${path} holds Hermes profiles (${others.map((s) => s.profile).join(', ')}) besides the default; import each state.db into its own database (pass the state.db file).`, 'import');
      }
      for (const store of stores) {
        const profile = store.profile ?? ctx.config.profile;
        const own = store.profile !== null && store.profile !== ctx.config.profile;
        const db = own ? openProfileDatabase(ctx.config.home, profile) : null;
        try {
          const target = db === null ? storage : sqliteStorage(db);
          const summary = await importHermes(target, store.path, { mapping: await mappingOf(target, values), dryRun, batchSize, onProgress });
          results.push({ profile, summary });
        } finally {
          db?.close();
        }
      }
    } else {
      const files = transcriptFiles(format, path);
      const summary = await importTranscripts(storage, format, files, { mapping: await mappingOf(storage, values), dryRun, batchSize, onProgress, partialLast: 'yield' });
      results.push({ profile: ctx.config.profile, summary });
    }
  } catch (error) {
    reportAborted(ctx, values, error);
    throw error;
  } finally {
    bar.finish();
  }
  const errorCount = results.reduce((n, r) => n + r.summary.errorCount, 0);
  if (values.json) printJson(ctx.out, results.length === 1 ? { profile: results[0]!.profile, ...results[0]!.summary } : { profiles: results.map((r) => ({ profile: r.profile, ...r.summary })) });
  else {
    for (const r of results) {
      const own = r.profile === ctx.config.profile ? storage : null;
      const where = storage.kind === 'postgres' && own ? redactedTarget(ctx) : `profile "${r.profile}"`;
      await printSourceSummary(ctx.out, ctx.err, own, `${format} ${path} → ${where}`, r.summary, Date.now() - started);
    }
  }
  if (errorCount > 0) {
    const error = new ImportLineErrors(errorCount);
    ctx.err.write(`recall import: ${error.message} [${error.code}]\n`);
    return EXIT_ERROR;
  }
}

/**
 * An import stopped part-way (a full disk): its error message (printed by the CLI with its code, no
 * stack) says what was saved; with --json the committed counts are printed as JSON too.
 */
function reportAborted(ctx: CliContext, values: ImportFlags, error: unknown): void {
  if (error instanceof ImportAbortedError && values.json) printJson(ctx.out, { committed: error.committed, error: { code: error.code, message: error.message } });
}

/** The team database as shown to people (password masked). */
function redactedTarget(ctx: CliContext): string {
  return ctx.config.storage.kind === 'postgres' ? redactStorageUrl(ctx.config.storage.url) : `profile "${ctx.config.profile}"`;
}

interface ImportFlags {
  json?: boolean;
  batch?: string;
  from?: string;
  project?: string;
  'project-per-folder'?: boolean;
  'dry-run'?: boolean;
}

export const importCommand = defineCommand<ImportFlags>({
  name: 'import',
  createsData: true,
  servesPostgres: true,
  summary: 'Import conversations: recall-jsonl, or Claude Code / Codex / Hermes history (idempotent: a re-run imports only what is new).',
  usage: 'import [--from recall-jsonl|claude-code|codex|hermes] PATH [--project ID|SLUG|NAME | --project-per-folder] [--dry-run] [--json] [--batch N]',
  optionsHelp: `  --from FORMAT     recall-jsonl (default; PATH is one file), claude-code (~/.claude/projects or a folder/file under it),
                    codex (~/.codex/sessions or a folder/file under it), hermes (a state.db, or a Hermes home with profiles)
  --project ID|SLUG|NAME new conversations go to this project (existing ones are never moved)
  --project-per-folder  one project per distinct git root / cwd (created once, the folder kept as its folder metadata)
                    Without either, imported conversations have no project.
  --dry-run         read everything and print what would be created per project; write nothing
  --json            print the summary as JSON
  --batch N         records per write transaction (1-100000, default ${DEFAULT_IMPORT_BATCH_LINES} for recall-jsonl, ${DEFAULT_SOURCE_BATCH} otherwise)`,
  options: {
    json: { type: 'boolean' },
    batch: { type: 'string' },
    from: { type: 'string' },
    project: { type: 'string' },
    'project-per-folder': { type: 'boolean' },
    'dry-run': { type: 'boolean' },
  },
  positionals: { min: 1, max: 1, names: 'PATH' },
  check({ values }) {
    const format = enumFlag('import', 'from', values.from, IMPORT_FORMATS) ?? 'recall-jsonl';
    if (values.project !== undefined && values['project-per-folder']) throw new UsageError('Use either --project or --project-per-folder, not both.', 'import');
    if (format === 'recall-jsonl' && (values.project !== undefined || values['project-per-folder'] || values['dry-run'])) {
      throw new UsageError('--project, --project-per-folder and --dry-run apply to --from claude-code|codex|hermes (a recall-jsonl file names its own projects).', 'import');
    }
  },
  async run(ctx, { values, positionals }) {
    const format = enumFlag('import', 'from', values.from, IMPORT_FORMATS) ?? 'recall-jsonl';
    const batchLines = intFlag('import', 'batch', values.batch, 1, 100_000);
    const path = resolve(positionals[0]!);
    try {
      const stat = statSync(path);
      if (format === 'recall-jsonl' && !stat.isFile()) throw new ImportFileError(path, 'not a regular file');
    } catch (error) {
      if (error instanceof ImportFileError) throw error;
      throw new ImportFileError(path, (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or folder' : (error as Error).message);
    }
    const target = await openCommandStorage(ctx, 'import');
    try {
      if (format !== 'recall-jsonl') return await importSource(ctx, target.storage, format, path, values, batchLines ?? DEFAULT_SOURCE_BATCH);
      return await importJsonl(ctx, target.storage, path, values, batchLines);
    } finally {
      await target.close();
    }
  },
});

async function importJsonl(ctx: CliContext, storage: Storage, path: string, values: ImportFlags, batchLines: number | undefined): Promise<number | void> {
  const bar = progressBar(ctx.err);
  const started = Date.now();
  let summary: ImportSummary;
  try {
    summary = await importJsonlFile(storage, path, {
      batchLines: batchLines ?? DEFAULT_IMPORT_BATCH_LINES,
      onProgress: (p) =>
        bar.update(p.bytes, p.totalBytes, `${p.lines} lines, ${p.summary.messages} messages${p.totalBytes ? ` (${formatBytes(p.bytes)} of ${formatBytes(p.totalBytes)})` : ''}`),
    });
  } catch (error) {
    reportAborted(ctx, values, error);
    throw error;
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
}
