/**
 * `recall migrate --from HOME --to URL [--profile P]`: copies a SQLite profile into a PostgreSQL
 * team database through the storage ports — the source read by the SQLite adapter's
 * TransferSource, the target written by the PostgreSQL adapter's BulkImport — keeping ids,
 * timestamps, lineage, ownership and visibility. Idempotent (a row whose id exists is skipped, so a
 * re-run copies nothing) and resumable (messages go in id order, one transaction per batch; an
 * interrupted run continues after the last copied message of each session). Counts are verified
 * at the end (projects, sessions and messages per project); a mismatch exits 1
 * (`migration_mismatch`). The per-project semantic consent (switched on or off, for which endpoint
 * and reranker) is copied for projects that have none on the target yet, so a re-run never
 * overrides a decision made later on the team database. The semantic index is not copied: its
 * chunk rows and vectors are derived data, rebuilt from the messages by the embedding worker once it
 * runs on PostgreSQL (`recall index run` or `recall serve`) for the projects switched on.
 * The URL may come from RECALL_DATABASE_URL (or config.json `storage`) so that its password is not
 * on the command line (`ps`); it is printed only as redactStorageUrl shows it.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { GatewayError } from '@recall/gateway-rpc';
import type { Message } from '@recall/rpc-contract';
import { profileDatabasePath } from '@recall/schema';
import { redactStorageUrl, type Storage, type StorageCounts } from '@recall/storage-ports';
import { openSqliteStorage } from '@recall/store';
import { UsageError } from '../errors.js';
import { defineCommand } from './command.js';
import { ProfileNotFoundError, printJson } from './context.js';
import { progressBar } from './progress.js';

const SESSION_PAGE = 500;
const MESSAGE_BATCH = 2000;

/** The copy's counts differ from the source's (code `migration_mismatch`; `data.differences`). */
export class MigrationMismatchError extends GatewayError {
  constructor(differences: string[]) {
    super('migration_mismatch', `The copy does not match the source: ${differences.slice(0, 5).join('; ')}${differences.length > 5 ? ` (and ${differences.length - 5} more)` : ''}.`, {
      data: { differences },
    });
    this.name = 'MigrationMismatchError';
  }
}

/** What differs between the source's and the target's counts (the target may hold more: other profiles). */
export function compareCounts(source: StorageCounts, target: StorageCounts): string[] {
  const out: string[] = [];
  for (const [project, s] of Object.entries(source.perProject)) {
    const t = target.perProject[project] ?? { sessions: 0, messages: 0 };
    const name = project === '' ? 'conversations without a project' : `project ${project}`;
    if (t.sessions !== s.sessions) out.push(`${name}: ${s.sessions} sessions in the profile, ${t.sessions} in the database`);
    if (t.messages !== s.messages) out.push(`${name}: ${s.messages} messages in the profile, ${t.messages} in the database`);
  }
  if (target.projects < source.projects) out.push(`${source.projects} projects in the profile, ${target.projects} in the database`);
  return out;
}

export const migrateCommand = defineCommand<{ from?: string; to?: string; json?: boolean }>({
  name: 'migrate',
  summary: 'Copy a profile into a PostgreSQL team database (idempotent, resumable, verified).',
  usage: 'migrate [--from HOME] [--to URL] [--profile P] [--json]',
  optionsHelp: `  --from HOME       the Recall home holding the profile (default: --home, $RECALL_HOME, else ~/.recall)
  --to URL          the PostgreSQL database (default: --database, $RECALL_DATABASE_URL, else config.json
                    "storage"); prefer the environment variable: a flag is visible in "ps"
  --json            print JSON ({ target, copied, counts })
  Re-running copies nothing new; an interrupted run continues where it stopped. Which projects
  are switched on for semantic indexing is copied too (never over a choice already made on the
  team database). The semantic index itself is not copied: the next "recall index run" or
  "recall serve" on the team database rebuilds it from the messages.`,
  options: { from: { type: 'string' }, to: { type: 'string' }, json: { type: 'boolean' } },
  positionals: { min: 0, max: 0 },
  servesPostgres: true,
  async run(ctx, { values }) {
    const home = values.from !== undefined ? resolve(values.from) : ctx.config.home;
    const url = values.to ?? (ctx.config.storage.kind === 'postgres' ? ctx.config.storage.url : undefined);
    if (url === undefined) throw new UsageError('No target database: pass --to URL or set RECALL_DATABASE_URL.', 'migrate');
    if (!/^postgres(ql)?:\/\/\S+$/.test(url)) throw new UsageError('--to must be a postgres:// or postgresql:// URL.', 'migrate');
    const path = profileDatabasePath(home, ctx.config.profile);
    if (!existsSync(path)) throw new ProfileNotFoundError(home, ctx.config.profile, existsSync(home));
    const shown = redactStorageUrl(url);
    ctx.err.write(`recall migrate: profile "${ctx.config.profile}" of ${home} → ${shown}\n`);

    const source = await openSqliteStorage({ kind: 'sqlite', path, readonly: true });
    let target: Storage | undefined;
    try {
      const { openPostgresStorage } = await loadPostgresAdapter();
      try {
        target = await openPostgresStorage({ kind: 'postgres', url, maxConnections: 2 });
      } catch (error) {
        throw new GatewayError('storage_unavailable', `Cannot open the PostgreSQL database ${shown}: ${String((error as Error).message).split(url).join(shown)}`, { data: { target: shown } });
      }
      const from = source.transfer!;
      const to = target.bulk!;
      const before = await from.counts();
      const bar = progressBar(ctx.err);
      const projects = await from.projects();
      const copied = { projects: await to.importProjects(projects), sessions: 0, messages: 0, consents: 0 };
      // Semantic consent: the user's decision, copied only where the team database has none yet.
      const consents = (await from.consents?.()) ?? [];
      const held = new Set(((await target.transfer?.consents?.()) ?? []).map((c) => c.projectId));
      const newConsents = consents.filter((c) => !held.has(c.projectId));
      if (to.importConsents) copied.consents = await to.importConsents(newConsents);
      const names = new Map(projects.map((p) => [p.id, p.name]));
      const switchedOn = to.importConsents ? newConsents.filter((c) => c.enabled).map((c) => names.get(c.projectId) ?? c.projectId) : [];
      let seen = 0;
      let lastLine = 0;
      // Messages of several sessions share a batch (most sessions are much smaller than a batch,
      // and each batch is one transaction: one commit per MESSAGE_BATCH messages, not per session).
      // A session's messages still go in id order and every batch is all-or-nothing, so a resumed
      // run continues after each session's last stored message.
      const pending: Message[] = [];
      const flush = async () => {
        if (pending.length > 0) copied.messages += await to.importMessages(pending.splice(0));
      };
      for (let after = ''; ; ) {
        const page = await from.sessions(after, SESSION_PAGE);
        if (page.length === 0) break;
        copied.sessions += await to.importSessions(page);
        for (const session of page) {
          for (let last = await to.lastMessageId(session.id); ; ) {
            const batch = await from.messages(session.id, last, MESSAGE_BATCH);
            if (batch.length === 0) break;
            pending.push(...batch);
            if (pending.length >= MESSAGE_BATCH) await flush();
            if (batch.length < MESSAGE_BATCH) break;
            last = batch[batch.length - 1]!.id;
          }
          seen++;
          if (session === page[page.length - 1]) await flush(); // the page's progress line counts what is stored

          const label = `${seen.toLocaleString('en')} / ${before.sessions.toLocaleString('en')} sessions, ${copied.messages.toLocaleString('en')} messages copied`;
          bar.update(seen, before.sessions, label);
          if (!ctx.err.isTTY && (Date.now() - lastLine > 1000 || seen === before.sessions)) {
            lastLine = Date.now();
            ctx.err.write(`recall migrate: ${label}\n`);
          }
        }
        after = page[page.length - 1]!.id;
      }
      await flush();
      await to.finish();
      bar.finish();
      const counts = await to.counts();
      const differences = compareCounts(before, counts);
      if (values.json) printJson(ctx.out, { target: shown, copied, counts: { profile: before, database: counts }, verified: differences.length === 0 });
      if (differences.length > 0) throw new MigrationMismatchError(differences);
      if (!values.json) {
        const total = `${before.projects} projects, ${before.sessions} sessions, ${before.messages} messages`;
        ctx.out.write(
          copied.projects + copied.sessions + copied.messages + copied.consents === 0
            ? `Nothing new to copy: ${shown} already holds the profile (${total}; counts verified).\n`
            : `Copied ${copied.projects} projects, ${copied.sessions} sessions and ${copied.messages} messages to ${shown}; counts verified (${total}).\n` +
                (switchedOn.length > 0
                  ? `Semantic indexing was switched on for ${switchedOn.length} ${switchedOn.length === 1 ? 'project' : 'projects'} (${switchedOn.join(', ')}); their index is built from the messages by the next \`recall index run\` or \`recall serve\` on the team database. The vectors themselves are not copied.\n`
                  : 'The semantic index is not copied: it is rebuilt from the messages for the projects switched on for semantic indexing.\n'),
        );
      }
    } finally {
      await target?.close();
      await source.close();
    }
  },
});

/**
 * The PostgreSQL adapter is not published yet (team mode is served only from a source checkout):
 * an installed CLI without it says so instead of failing with a module-resolution stack.
 */
async function loadPostgresAdapter(): Promise<typeof import('@recall/store-postgres')> {
  try {
    return await import('@recall/store-postgres');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new GatewayError('storage_unsupported', 'recall migrate needs the team-mode package @recall/store-postgres, which this installation does not include (it is not published yet): run it from a source checkout of Recall, see docs/team-mode.md.', {
      data: { missing: '@recall/store-postgres' },
    });
  }
}
