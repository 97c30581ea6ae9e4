/**
 * `recall index hnsw --project P [--off]`: on a PostgreSQL team database, builds the HNSW index of
 * the active embedding fingerprint (the one `recall index status` reports), measures its recall@10
 * in the project against the exact search, and records it: searches of the project use the index
 * only while that recall is ≥ 0.98 (store-postgres measureHnswRecall; docs/team-mode.md, "Choosing
 * the HNSW index"). `--off` removes the measurement, so the project's searches are exact again (the
 * index stays). On a SQLite home there is nothing to do: its exact in-memory scan needs no index.
 */
import { consoleLogger, EventHub } from '@recall/gateway-rpc';
import type { HnswMeasurement, HnswProgress, HnswSettings } from '@recall/store-postgres';
import { redactionPolicy } from '../config.js';
import { NothingIndexedError, TeamDatabaseOnlyError } from '../errors.js';
import { indexServiceForStorage } from '../stage-b.js';
import { openCommandStorage } from './command-storage.js';
import { printJson, type CliContext } from './context.js';
import { progressBar } from './progress.js';
import { resolveProjectRefOnStorage } from './project-ref.js';
import { openTeamDatabase } from './team-storage.js';
import type { GatewayError } from '@recall/gateway-rpc';

/** Two decimals, rounded down (0.979 is not shown as the 0.98 it did not reach). */
const shown = (recall: number): string => (Math.floor(recall * 100) / 100).toFixed(2);

function describe(s: HnswSettings): string {
  const scan = s.iterativeScan === 'off' ? 'no iterative scan' : `${s.iterativeScan.replace('_', ' ')} iterative scan up to ${s.maxScanTuples.toLocaleString('en-US')} rows`;
  return `ef_search ${s.efSearch}, ${scan}`;
}

function stageLabel(p: HnswProgress): string {
  if (p.stage === 'building') return 'Building the HNSW index (this can take minutes on a large project)…';
  if (p.stage === 'exact') return `Answering ${p.total} sample queries with the exact search…`;
  return `Measuring recall@10 through the index with ${describe(p.settings!)}…`;
}

/** Runs `recall index hnsw`; `notConfigured` is index-status's "semantic search is not configured" error. */
export async function runIndexHnsw(ctx: CliContext, values: { project: string; off?: boolean; json?: boolean }, notConfigured: () => GatewayError): Promise<number> {
  if (ctx.config.storage.kind !== 'postgres') {
    throw new TeamDatabaseOnlyError(
      'The HNSW index',
      `on this profile's SQLite file semantic search already compares every vector of the project exactly, in memory, and needs no index. Name a team database with --database URL or RECALL_DATABASE_URL.`,
    );
  }
  const opened = await openCommandStorage(ctx, 'index hnsw');
  const settings = { config: ctx.config.semantic, keys: ctx.config.semanticKeys, redaction: redactionPolicy(ctx.config) };
  let semantic: Awaited<ReturnType<typeof indexServiceForStorage>> = null;
  let database: Awaited<ReturnType<typeof openTeamDatabase>> | null = null;
  try {
    const project = await resolveProjectRefOnStorage(opened.storage, values.project);
    semantic = await indexServiceForStorage(opened.storage, settings, { logger: consoleLogger, events: new EventHub() });
    if (!semantic?.active || !semantic.fingerprint || !semantic.provider) throw notConfigured();
    const fingerprintId = semantic.fingerprint.id;
    const dims = semantic.provider.info.dims;
    database = await openTeamDatabase(ctx, 'index hnsw');
    const name = `"${project.name}"`;
    if (values.off) {
      await database.adapter.closeHnswGate(database.pool, fingerprintId, project.id);
      if (values.json) printJson(ctx.out, { projectId: project.id, fingerprintId, open: false });
      else ctx.out.write(`Searches of ${name} are exact again: the HNSW measurement was removed (the index itself stays; it is used again only after a new \`recall index hnsw --project ${values.project}\`).\n`);
      return 0;
    }
    const counts = (await opened.storage.semantic?.chunks.counts(fingerprintId, project.id)) ?? { ready: 0 };
    if (counts.ready === 0) {
      throw new NothingIndexedError(
        `Project ${name} has no semantic index of the current model yet, so there is nothing to build an HNSW index over: switch it on with \`recall index enable --project ${values.project}\` and index it with \`recall index run --project ${values.project}\` first.`,
        project.id,
      );
    }
    const bar = progressBar(ctx.err);
    let stage: string | null = null;
    const measurement: HnswMeasurement = await database.adapter.measureHnswRecall(database.pool, {
      fingerprintId,
      dims,
      projectId: project.id,
      onProgress: (p) => {
        const label = stageLabel(p);
        if (label !== stage) {
          bar.finish();
          ctx.err.write(`${label}\n`);
          stage = label;
        }
        bar.update(p.done, p.total, `${p.done}/${p.total}`);
      },
    });
    bar.finish();
    const { adapter } = database;
    if (values.json) {
      printJson(ctx.out, { projectId: project.id, fingerprintId, chunks: counts.ready, minimum: adapter.HNSW_MIN_RECALL, ...measurement });
      return 0;
    }
    const lines = measurement.open
      ? [`Searches of ${name} now use the HNSW index (recall@10 ${shown(measurement.recallAt10)} against the exact search, over ${counts.ready} chunks; ${describe(measurement.settings)}).`]
      : [
          `Searches of ${name} stay exact: the best recall was ${shown(measurement.recallAt10)}, below ${adapter.HNSW_MIN_RECALL.toFixed(2)} (${describe(measurement.settings)}).`,
          'Settings tried:',
          ...measurement.tried.map((t) => `  ${describe(t.settings)}: recall@10 ${shown(t.recallAt10)}`),
        ];
    ctx.out.write(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    await semantic?.close();
    await database?.close();
    await opened.close();
  }
}
