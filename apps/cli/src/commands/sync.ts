/**
 * `recall sync`: live sync of agent transcripts into the profile (@recall/importers' LiveSync) until
 * Ctrl-C. Sources come from the flags (`--claude-code DIR`, `--codex DIR`, `--hermes PATH`, each
 * repeatable), else from what the last `recall sync` saved for this profile, else the default
 * locations that exist (~/.claude/projects, ~/.codex/sessions, ~/.hermes). The project mapping is
 * as explicit as for `recall import` (`--project`, `--project-per-folder`, or none) and is saved
 * with the sources, so `recall serve --sync` continues with the same choice. `--once` runs one
 * pass and exits (cron, tests). With `--database URL` the records go to a PostgreSQL team database
 * (through the storage ports); the checkpoints stay in this machine's profile folder.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Storage } from '@recall/storage-ports';
import { openCommandStorage, resolveProjectRefOn } from './command-storage.js';
import { LiveSync, loadSyncState, syncStatePath, type ProjectMapping, type SyncPassResult, type SyncSource } from '@recall/importers';
import { intFlag } from './args.js';
import { defineCommand } from './command.js';
import type { CliContext } from './context.js';
import { UsageError } from '../errors.js';
import { waitForStop } from './signals.js';

export interface SyncFlags {
  'claude-code'?: string[];
  codex?: string[];
  hermes?: string[];
  project?: string;
  'project-per-folder'?: boolean;
  interval?: string;
  once?: boolean;
}

/** Sync errors printed per pass; the rest are counted (all of them are in the saved state's `errors`). */
const SHOWN_SYNC_ERRORS = 10;

/** What a sync pass did, for stderr: the counts, then each refused line or failed file (`file:line [code] message`). */
export function syncPassText(prefix: string, r: SyncPassResult): string {
  let text = `${prefix} +${r.messages} messages, +${r.sessions} sessions${r.errors ? `, ${r.errors} errors (passed: refused lines; retried: failed files)` : ''}\n`;
  for (const e of r.errorList.slice(0, SHOWN_SYNC_ERRORS)) text += `  ${e.file}${e.line > 0 ? `:${e.line}` : ''}: [${e.code}] ${e.message}\n`;
  if (r.errors > SHOWN_SYNC_ERRORS) text += `  … and ${r.errors - SHOWN_SYNC_ERRORS} more (the recent ones are in sync-state.json)\n`;
  return text;
}

export function defaultSyncSources(): SyncSource[] {
  const home = homedir();
  const candidates: SyncSource[] = [
    { format: 'claude-code', path: join(home, '.claude', 'projects') },
    { format: 'codex', path: join(home, '.codex', 'sessions') },
    { format: 'hermes', path: join(home, '.hermes') },
  ];
  return candidates.filter((s) => existsSync(s.path));
}

/** Sources and mapping for this run (flags, else the saved configuration, else the defaults: no project), read through the storage ports. */
export async function syncConfigOn(ctx: CliContext, storage: Storage, values: SyncFlags): Promise<{ sources: SyncSource[]; mapping: ProjectMapping; origin: string }> {
  return syncSources(ctx, values, values.project === undefined ? null : { kind: 'project', projectId: (await resolveProjectRefOn(storage, values.project)).id });
}

function syncSources(ctx: CliContext, values: SyncFlags, explicit: ProjectMapping | null): { sources: SyncSource[]; mapping: ProjectMapping; origin: string } {
  const fromFlags: SyncSource[] = [
    ...(values['claude-code'] ?? []).map((p) => ({ format: 'claude-code' as const, path: resolve(p) })),
    ...(values.codex ?? []).map((p) => ({ format: 'codex' as const, path: resolve(p) })),
    ...(values.hermes ?? []).map((p) => ({ format: 'hermes' as const, path: resolve(p) })),
  ];
  let mapping: ProjectMapping | null = explicit;
  if (mapping === null && values['project-per-folder']) mapping = { kind: 'per-folder' };
  const saved = loadSyncState(syncStatePath(ctx.config.home, ctx.config.profile));
  if (fromFlags.length > 0) return { sources: fromFlags, mapping: mapping ?? { kind: 'none' }, origin: 'flags' };
  if (saved && saved.sources.length > 0) return { sources: saved.sources, mapping: mapping ?? saved.mapping, origin: 'saved configuration' };
  return { sources: defaultSyncSources(), mapping: mapping ?? { kind: 'none' }, origin: 'default locations' };
}

export const syncCommand = defineCommand<SyncFlags>({
  name: 'sync',
  createsData: true,
  servesPostgres: true,
  summary: 'Live-import Claude Code / Codex / Hermes transcripts as they are written (watch + poll, resumes from saved offsets).',
  usage: 'sync [--claude-code DIR]... [--codex DIR]... [--hermes PATH]... [--project ID|SLUG|NAME | --project-per-folder] [--interval MS] [--once]',
  optionsHelp: `  --claude-code DIR transcripts folder to follow (repeatable; e.g. ~/.claude/projects)
  --codex DIR       rollouts folder to follow (repeatable; e.g. ~/.codex/sessions)
  --hermes PATH     a Hermes state.db or home to follow (repeatable)
                    Without source flags: the sources saved by the last "recall sync", else the default
                    locations that exist (~/.claude/projects, ~/.codex/sessions, ~/.hermes).
  --project ID|SLUG|NAME new conversations go to this project; --project-per-folder: one project per git root/cwd;
                    neither: no project (saved with the sources for the next run and for "recall serve --sync")
  --interval MS     polling interval, the fallback when file events are missed (100-600000, default 2000)
  --once            one pass, then exit`,
  options: {
    'claude-code': { type: 'string', multiple: true },
    codex: { type: 'string', multiple: true },
    hermes: { type: 'string', multiple: true },
    project: { type: 'string' },
    'project-per-folder': { type: 'boolean' },
    interval: { type: 'string' },
    once: { type: 'boolean' },
  },
  positionals: { min: 0, max: 0 },
  check({ values }) {
    intFlag('sync', 'interval', values.interval, 100, 600_000);
    if (values.project !== undefined && values['project-per-folder']) throw new UsageError('Use either --project or --project-per-folder, not both.', 'sync');
  },
  async run(ctx, { values }) {
    const target = await openCommandStorage(ctx, 'sync');
    try {
      await follow(ctx, target.storage, target.where, values);
    } finally {
      await target.close();
    }
  },
});

async function follow(ctx: CliContext, storage: Storage, where: string, values: SyncFlags): Promise<void> {
  const { sources, mapping, origin } = await syncConfigOn(ctx, storage, values);
  if (sources.length === 0) throw new UsageError('No transcript folders found: pass --claude-code DIR, --codex DIR or --hermes PATH.', 'sync');
  const sync = new LiveSync({
    db: storage,
    statePath: syncStatePath(ctx.config.home, ctx.config.profile),
    sources,
    mapping,
    intervalMs: intFlag('sync', 'interval', values.interval, 100, 600_000) ?? 2000,
    onPass: (r) => ctx.err.write(syncPassText('recall sync:', r)),
    onError: (error) => ctx.err.write(`recall sync: failed: ${(error as Error).message}\n`),
  });
  const mappingText = mapping.kind === 'project' ? `project ${mapping.projectId}` : mapping.kind === 'per-folder' ? 'one project per folder' : 'no project';
  ctx.err.write(`recall sync: following ${sources.map((s) => `${s.format} ${s.path}`).join(', ')} into ${where} (${origin}; ${mappingText})\n`);
  if (values.once) {
    const r = await sync.syncOnce();
    ctx.out.write(`${JSON.stringify(r)}\n`);
    return;
  }
  const stopped = waitForStop();
  await sync.start();
  ctx.err.write('recall sync: watching. Press Ctrl-C to stop.\n');
  const reason = await stopped;
  await sync.stop();
  ctx.err.write(`recall sync: ${reason}, stopped.\n`);
}
