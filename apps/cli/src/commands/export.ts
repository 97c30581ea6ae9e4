/**
 * `recall export (--project P | --session S) [--format recall-jsonl|markdown] [--to FILE]`: a
 * project's conversations, or one logical conversation, as recall-jsonl (re-importable with
 * `recall import`: same ids, lineage, visibility and text — docs/import-format.md) or as Markdown
 * for people. Standard output when `--to` is left out; a file is written 0600 under a temporary
 * name and renamed when complete. No size bound (the RPC methods have one). Reads through the
 * storage ports: the profile's SQLite file or, with `--database`, a PostgreSQL team database.
 */
import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { EXPORT_FORMAT_NAMES } from '@recall/rpc-contract';
import { PRIVATE_FILE_MODE } from '@recall/schema';
import { exportConversations, type ExportScope } from '@recall/importers';
import { GatewayError } from '@recall/gateway-rpc';
import type { Storage } from '@recall/storage-ports';
import { UsageError } from '../errors.js';
import { enumFlag } from './args.js';
import { defineCommand } from './command.js';
import { openCommandStorage } from './command-storage.js';
import type { CliContext } from './context.js';
import { resolveProjectRefOnStorage } from './project-ref.js';

type Flags = { project?: string; session?: string; format?: string; to?: string };

function checkScope(command: string, values: Flags): void {
  if ((values.project === undefined) === (values.session === undefined)) throw new UsageError('Give exactly one of --project P or --session S.', command);
}

export const exportCommand = defineCommand<Flags>({
  name: 'export',
  summary: 'Export a project or a conversation as recall-jsonl (re-importable) or Markdown.',
  usage: 'export (--project P | --session S) [--format recall-jsonl|markdown] [--to FILE]',
  optionsHelp: `  --project P       a project id, slug or name: all its conversations
  --session S       any session of a conversation: the whole conversation (continuations, sub-agents)
  --format F        recall-jsonl (default; "recall import" reads it back) or markdown (for people)
  --to FILE         write to FILE (a new file) instead of standard output`,
  options: { project: { type: 'string' }, session: { type: 'string' }, format: { type: 'string' }, to: { type: 'string' } },
  positionals: { min: 0, max: 0 },
  check: ({ values }) => {
    checkScope('export', values);
    enumFlag('export', 'format', values.format, EXPORT_FORMAT_NAMES);
  },
  servesPostgres: true,
  async run(ctx, { values }) {
    const opened = await openCommandStorage(ctx, 'export');
    try {
      await exportTo(ctx, opened.storage, values);
    } finally {
      await opened.close();
    }
  },
});

async function exportTo(ctx: CliContext, storage: Storage, values: Flags): Promise<void> {
  const format = enumFlag('export', 'format', values.format, EXPORT_FORMAT_NAMES) ?? 'recall-jsonl';
  const scope: ExportScope = values.project !== undefined ? { projectId: (await resolveProjectRefOnStorage(storage, values.project)).id } : { sessionId: (await storage.sessions.get(values.session!)).id };
  if (values.to === undefined) {
    const counts = await exportConversations(storage, scope, format, (piece) => ctx.out.write(piece));
    ctx.err.write(`recall export: ${counts.sessions} session(s), ${counts.messages} message(s).\n`);
    return;
  }
  const to = resolve(values.to);
  if (existsSync(to)) throw new GatewayError('export_target_exists', `${to} already exists; choose another file (an export never overwrites one).`, { data: { path: to } });
  const tmp = join(dirname(to), `.${basename(to)}.${process.pid}.tmp`);
  const fd = openSync(tmp, 'wx', PRIVATE_FILE_MODE);
  try {
    const counts = await exportConversations(storage, scope, format, (piece) => {
      writeSync(fd, piece);
    });
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, to);
    ctx.out.write(`Exported ${counts.sessions} session(s), ${counts.messages} message(s) to ${to}.\n`);
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(tmp, { force: true });
    throw error;
  }
}
