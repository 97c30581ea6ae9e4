/**
 * `recall index status|run|rebuild|enable|disable [--project ID|SLUG|NAME]`: the semantic index from the
 * command line. `status`, `enable`, `disable` and `rebuild` run the gateway's own `index.*` methods
 * in-process over the profile's database (so the CLI and the desktop can never disagree); `run`
 * backfills in this process with a progress bar on stderr (a running `recall serve` may index at
 * the same time: leases make the two share the work, never embed a chunk twice). Ctrl-C interrupts
 * a run; it resumes from the stored rows next time. On a PostgreSQL team database the same methods
 * run over its storage ports (consent per project, leased claims shared with every gateway).
 */
import { resolveProjectRef, resolveProjectRefOnStorage } from './project-ref.js';
import { openCommandStorage } from './command-storage.js';
import { sqliteStorage } from '@recall/store';
import { EventHub } from '@recall/gateway-rpc';
import { consoleLogger, type CallContext } from '@recall/gateway-rpc';
import { dispatch } from '@recall/gateway-rpc';
import { createMethodRegistry } from '@recall/gateway-rpc';
import type { IndexStatus } from '@recall/rpc-contract';
import type { SemanticIndex } from '@recall/semantic';
import { indexServiceFor, indexServiceForStorage } from '../stage-b.js';
import { RECALL_LAUNCHER } from '../install-paths.js';
import { defineCommand } from './command.js';
import { printJson, type CliContext } from './context.js';
import { printIndexStatus, serverIndexStatus, whereConfigGoes } from './index-status-text.js';
import { didYouMean } from './style.js';
import { UsageError } from '../errors.js';
import { GatewayError } from '@recall/gateway-rpc';
import { progressBar } from './progress.js';
import { redactionPolicy } from '../config.js';
import { waitForStop } from './signals.js';
import { runIndexHnsw } from './index-hnsw.js';

const SUBCOMMANDS = ['status', 'run', 'rebuild', 'enable', 'disable', 'hnsw'] as const;
type Sub = (typeof SUBCOMMANDS)[number];

function resolveProject(ctx: CliContext, ref: string | undefined): string | undefined {
  if (ref === undefined) return undefined;
  return resolveProjectRef(ctx.db(), ref).id;
}

/** `semantic_disabled`, saying where to configure it. */
function notConfigured(ctx: CliContext): GatewayError {
  return new GatewayError(
    'semantic_disabled',
    `Semantic search is not configured: add {"semantic": {"enabled": true, "provider": "use-lite"}} (the built-in English model; others in docs/semantic.md) to ${whereConfigGoes(ctx.config.configFile.path)} first.`,
  );
}

async function call(ctx: CliContext, callCtx: CallContext, methodName: string, params: Record<string, unknown>): Promise<unknown> {
  const response = await dispatch(createMethodRegistry(), { jsonrpc: '2.0', id: 1, method: methodName, params }, callCtx);
  if (response === null || Array.isArray(response) || 'error' in response) {
    const error = response !== null && !Array.isArray(response) && 'error' in response ? response.error : null;
    const data = error?.data as { code?: string } | undefined;
    const code = data?.code ?? 'internal_error';
    // The gateway cannot know where this user's config.json is; the CLI does.
    if (code === 'semantic_disabled') throw notConfigured(ctx);
    throw new GatewayError(code, error?.message ?? `${methodName} failed`);
  }
  return response.result;
}

export const indexCommand = defineCommand<{ json?: boolean; project?: string; off?: boolean }>({
  name: 'index',
  summary: 'Show and control the keyword and semantic indexes.',
  usage: 'index status|run|rebuild|enable|disable|hnsw [--project ID|SLUG|NAME] [--off] [--json]',
  optionsHelp: `  status            keyword counts and the semantic index per project (also on a team database)
  enable            switch semantic indexing on for --project (its messages, also new ones, are sent to the configured endpoint)
  disable           switch it off for --project (nothing more is sent; nothing is deleted)
  run               backfill now (--project, or every switched-on project), with a progress bar; Ctrl-C interrupts, the next run resumes
  rebuild           drop the semantic rows (derived data only) of --project or of all, then re-index
  hnsw              team database only: build the HNSW index for --project, measure its recall against the exact search; searches use it only at recall@10 ≥ 0.98
  --off             with hnsw: searches of --project are exact again (the measurement is removed, the index stays)
  --project ID|SLUG|NAME one project
  --json            print JSON`,
  options: { json: { type: 'boolean' }, project: { type: 'string' }, off: { type: 'boolean' } },
  positionals: { min: 1, max: 1, names: 'a subcommand (status, run, rebuild, enable, disable, hnsw)' },
  check: ({ positionals, values }) => {
    const sub = positionals[0] as Sub;
    if (!SUBCOMMANDS.includes(sub)) {
      throw new UsageError(`Unknown index subcommand ${JSON.stringify(positionals[0])}; available: ${SUBCOMMANDS.join(', ')}.${didYouMean(sub, SUBCOMMANDS)}`, 'index');
    }
    if (sub === 'hnsw' && values.project === undefined) throw new UsageError('"index hnsw" needs --project ID|SLUG|NAME: which project\'s searches to measure.', 'index');
    if (sub !== 'hnsw' && values.off) throw new UsageError('--off goes with "index hnsw" only (to switch semantic indexing off, use "index disable").', 'index');
    if ((sub === 'enable' || sub === 'disable') && values.project === undefined) throw new UsageError(`"index ${sub}" needs --project ID|SLUG|NAME: which project to switch ${sub === 'enable' ? 'on' : 'off'}.`, 'index');
  },
  servesPostgres: true,
  async run(ctx, { values, positionals }) {
    const sub = positionals[0] as Sub;
    if (sub === 'hnsw') return runIndexHnsw(ctx, { project: values.project!, ...(values.off ? { off: true } : {}), ...(values.json ? { json: true } : {}) }, () => notConfigured(ctx));
    // A team database (PostgreSQL): the same index.* methods over its storage ports.
    const team = ctx.config.storage.kind === 'postgres';
    const opened = team ? await openCommandStorage(ctx, 'index') : null;
    const db = team ? null : ctx.db();
    const storage = opened?.storage ?? sqliteStorage(db!);
    const events = new EventHub();
    const redaction = redactionPolicy(ctx.config);
    const settings = { config: ctx.config.semantic, keys: ctx.config.semanticKeys, redaction };
    let semantic: Awaited<ReturnType<typeof indexServiceFor>> = null;
    try {
      semantic = db !== null ? await indexServiceFor(db, settings, { logger: consoleLogger, events }) : await indexServiceForStorage(storage, settings, { logger: consoleLogger, events });
      const callCtx: CallContext = { storage, db, home: ctx.config.home, profile: ctx.config.profile, events, logger: consoleLogger, searchTool: null, semantic, launcher: RECALL_LAUNCHER, transport: 'direct' };
      const projectId = values.project === undefined ? undefined : db !== null ? resolveProject(ctx, values.project) : (await resolveProjectRefOnStorage(storage, values.project)).id;
      const params = projectId === undefined ? {} : { projectId };
      if (sub === 'status') {
        // A running `recall serve` of this profile knows whether its worker is indexing; this process runs none.
        const live = team ? null : await serverIndexStatus(ctx, params);
        const status = live ?? ((await call(ctx, callCtx, 'index.status', params)) as IndexStatus);
        if (values.json) printJson(ctx.out, status);
        else printIndexStatus(ctx, status, live !== null, redaction);
        return;
      }
      if (sub === 'enable') {
        // The consent records the endpoints this process names in its notice (embeddings and, when configured, the reranker).
        const shown = semantic?.active && semantic.provider ? { endpoint: semantic.provider.info.endpoint, rerankEndpoint: semantic.reranker?.endpoint ?? null } : {};
        const result = (await call(ctx, callCtx, 'index.project.enable', { ...params, ...shown })) as { notice: string };
        if (values.json) printJson(ctx.out, result);
        else ctx.out.write(`${result.notice}\nRun \`recall index run --project ${values.project}\` to index the existing messages now (recall serve also does it in the background).\n`);
        return;
      }
      if (sub === 'disable') {
        const result = await call(ctx, callCtx, 'index.project.disable', params);
        if (values.json) printJson(ctx.out, result);
        else ctx.out.write('Semantic indexing is off for this project: nothing more is sent. Existing vectors were kept.\n');
        return;
      }
      if (sub === 'rebuild') {
        const result = (await call(ctx, callCtx, 'index.rebuild', params)) as { chunksDeleted: number };
        if (values.json) printJson(ctx.out, result);
        else ctx.out.write(`Dropped ${result.chunksDeleted} semantic index rows (messages untouched). Run \`recall index run\` to re-index now.\n`);
        return;
      }
      // run: in this process, with a progress bar and Ctrl-C to interrupt.
      if (!semantic?.active) throw notConfigured(ctx);
      // Active implies the real index (a stand-in for a missing @recall/semantic is never active).
      const index = semantic as unknown as SemanticIndex;
      const controller = new AbortController();
      void waitForStop().then(() => controller.abort());
      const bar = progressBar(ctx.err);
      const targets = projectId ? [projectId] : (await index.consents()).filter((c) => c.enabled).map((c) => c.projectId);
      let done = 0;
      const result = await index.run({
        ...(projectId ? { projectId } : {}),
        signal: controller.signal,
        onProgress: async () => {
          const counts = await Promise.all(targets.map((id) => index.status(id)));
          const ready = counts.reduce((n, c) => n + c.ready, 0);
          const unknown = counts.some((c) => c.eligible === 'unknown');
          const total = unknown ? null : counts.reduce((n, c) => n + (c.eligible as number), 0);
          done = ready;
          bar.update(ready, total, total === null ? `${ready} chunks ready (planning…)` : `${ready}/${total} chunks`);
        },
      });
      bar.finish();
      const finalStatus = indexSummary(await Promise.all(targets.map((id) => index.status(id))));
      const redacted = redaction.stats().surfaces.embedding.redactions;
      if (values.json) printJson(ctx.out, { ...result, ...finalStatus, secretsRedacted: redacted });
      else {
        const how = result.completed ? 'done' : result.reason === 'aborted' ? 'interrupted (run again to resume)' : result.reason;
        ctx.out.write(`Semantic index ${how}: ${result.written} chunks embedded now; ${finalStatus.ready} ready, ${finalStatus.pending} pending, ${finalStatus.failed} failed.${redacted > 0 ? ` ${redacted} secrets were replaced by placeholders before sending.` : ''}\n`);
        void done;
      }
      return result.completed ? 0 : 1;
    } finally {
      await semantic?.close();
      await opened?.close();
    }
  },
});

function indexSummary(statuses: { ready: number; pending: number; failed: number }[]): { ready: number; pending: number; failed: number } {
  return statuses.reduce((a, s) => ({ ready: a.ready + s.ready, pending: a.pending + s.pending, failed: a.failed + s.failed }), { ready: 0, pending: 0, failed: 0 });
}

