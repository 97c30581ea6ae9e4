/**
 * `pnpm eval --database URL`: the same questions on PostgreSQL. After a dataset is imported into its
 * SQLite temp home, its rows are copied into the given PostgreSQL database unchanged (ids kept) with
 * the storage ports' TransferSource → BulkImport, as `recall migrate` does, and the keyword
 * questions are asked again through `createSessionSearchTool({ storage })` on that database; the
 * report prints both backends' recall@k per category side by side (issue 19: equal within 0.02).
 * The database must be empty or hold only an earlier copy of the same dataset (existing ids are
 * skipped, so a re-run copies nothing); its URL is never printed.
 */
import type { RecallDatabase } from '@recall/schema';
import type { Storage } from '@recall/storage-ports';
import { redactStorageUrl } from '@recall/storage-ports';
import { sqliteStorage } from '@recall/store';
import { EvalUsageError } from './errors.js';
import { groupRows } from './report.js';
import type { RunResult } from './runner.js';

const SESSION_PAGE = 500;
const MESSAGE_BATCH = 5_000;

/** Opens the PostgreSQL storage and copies the SQLite database's rows into it; returns the open storage (close it). */
export async function copyToPostgres(db: RecallDatabase, url: string, log: (line: string) => void): Promise<Storage> {
  const from = sqliteStorage(db).transfer!;
  // Loaded only for --database (as the CLI loads it): the default eval never loads the pg driver.
  const { openPostgresStorage } = await import('@recall/store-postgres');
  const target = await openPostgresStorage({ kind: 'postgres', url });
  try {
    const to = target.bulk!;
    const [source, before] = [await from.counts(), await to.counts()];
    if (before.messages > 0 && before.messages !== source.messages) {
      throw new EvalUsageError(`--database ${redactStorageUrl(url)} already holds ${before.messages} messages of other data; give an empty database`);
    }
    const t0 = performance.now();
    await to.importProjects(await from.projects());
    for (let after = ''; ; ) {
      const page = await from.sessions(after, SESSION_PAGE);
      if (page.length === 0) break;
      await to.importSessions(page);
      for (const session of page) {
        for (let last = await to.lastMessageId(session.id); ; ) {
          const batch = await from.messages(session.id, last, MESSAGE_BATCH);
          if (batch.length === 0) break;
          await to.importMessages(batch);
          last = batch[batch.length - 1]!.id;
        }
      }
      after = page[page.length - 1]!.id;
    }
    await to.finish();
    const after = await to.counts();
    if (after.messages !== source.messages || after.sessions !== source.sessions) throw new Error(`the PostgreSQL copy holds ${after.messages} messages / ${after.sessions} sessions, the SQLite home ${source.messages} / ${source.sessions}`);
    log(`eval: copied ${after.messages} messages, ${after.sessions} sessions into PostgreSQL in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return target;
  } catch (error) {
    await target.close();
    throw error;
  }
}

/** Largest difference of recall@k allowed between the backends per category (issue 19). */
export const BACKEND_TOLERANCE = 0.02;

/** Recall@1/5/10 per split and category on SQLite and PostgreSQL (or two other runs, named by `labels`), with the largest difference. */
export function backendTable(sqlite: RunResult, postgres: RunResult, labels: readonly [string, string] = ['SQLite', 'PostgreSQL']): string {
  const pgRows = new Map(groupRows(postgres).map((r) => [`${r.mode}|${r.split}|${r.group}`, r]));
  const lines = [`| mode | split | category | ${labels[0]} R@1 / R@5 / R@10 | ${labels[1]} R@1 / R@5 / R@10 | max Δ |`, '|---|---|---|---|---|---|'];
  for (const row of groupRows(sqlite)) {
    const pg = pgRows.get(`${row.mode}|${row.split}|${row.group}`);
    if (!pg) continue;
    const ks = [1, 5, 10] as const;
    const delta = Math.max(...ks.map((k) => Math.abs(row.agg.recall[k] - pg.agg.recall[k])));
    const f = (r: typeof row) => ks.map((k) => r.agg.recall[k].toFixed(3)).join(' / ');
    lines.push(`| ${row.mode} | ${row.split} | ${row.group} | ${f(row)} | ${f(pg)} | ${delta.toFixed(3)}${delta > BACKEND_TOLERANCE ? ' (over 0.02)' : ''} |`);
  }
  return lines.join('\n');
}
