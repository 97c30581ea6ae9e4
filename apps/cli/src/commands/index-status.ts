/**
 * `recall index status|run|rebuild|enable|disable [--project ID|SLUG|NAME]`: the semantic index from the
 * command line. `status`, `enable`, `disable` and `rebuild` run the gateway's own `index.*` methods
 * in-process over the profile's database (so the CLI and the desktop can never disagree); `run`
 * backfills in this process with a progress bar on stderr (a running `recall serve` may index at
 * the same time: leases make the two share the work, never embed a chunk twice). Ctrl-C interrupts
 * a run; it resumes from the stored rows next time.
 */
import { resolveProjectRef } from './project-ref.js';
import { EventHub } from '@recall/gateway-rpc';
import { consoleLogger, type CallContext } from '@recall/gateway-rpc';
import { dispatch } from '@recall/gateway-rpc';
import { createMethodRegistry } from '@recall/gateway-rpc';
import type { IndexStatus } from '@recall/rpc-contract';
import type { SemanticIndex } from '@recall/semantic';
import { indexServiceFor } from '../stage-b.js';
import { RECALL_LAUNCHER } from '../install-paths.js';
import { defineCommand } from './command.js';
import { printJson, printTable, type CliContext } from './context.js';
import { UsageError } from '../errors.js';
import { GatewayError } from '@recall/gateway-rpc';
import { progressBar } from './progress.js';
import { REDACTION_SURFACES, type RedactionPolicy, type RedactionSurface } from '@recall/redaction';
import { redactionPolicy } from '../config.js';
import { waitForStop } from './signals.js';

const SUBCOMMANDS = ['status', 'run', 'rebuild', 'enable', 'disable'] as const;
type Sub = (typeof SUBCOMMANDS)[number];

function resolveProject(ctx: CliContext, ref: string | undefined): string | undefined {
  if (ref === undefined) return undefined;
  return resolveProjectRef(ctx.db(), ref).id;
}

async function call(ctx: CliContext, callCtx: CallContext, methodName: string, params: Record<string, unknown>): Promise<unknown> {
  const response = await dispatch(createMethodRegistry(), { jsonrpc: '2.0', id: 1, method: methodName, params }, callCtx);
  if (response === null || Array.isArray(response) || 'error' in response) {
    const error = response !== null && !Array.isArray(response) && 'error' in response ? response.error : null;
    const data = error?.data as { code?: string } | undefined;
    throw new GatewayError(data?.code ?? 'internal_error', error?.message ?? `${methodName} failed`);
  }
  void ctx;
  return response.result;
}

const SURFACE_NAMES: Record<RedactionSurface, string> = { embedding: 'embedding', chat: 'chat', search_results: 'search results' };

/** One line: which outgoing surfaces redact secrets (config.json `privacy.redact`). */
function redactionLine(policy: RedactionPolicy): string {
  const on = REDACTION_SURFACES.filter((s) => policy.enabled(s)).map((s) => SURFACE_NAMES[s]);
  const off = REDACTION_SURFACES.filter((s) => !policy.enabled(s)).map((s) => SURFACE_NAMES[s]);
  if (off.length === 0) return 'Secrets:  redacted before anything is sent (embedding, chat, search results)';
  if (on.length === 0) return 'Secrets:  NOT redacted before sending (switched off in config.json); private spans still never leave';
  return `Secrets:  redacted for ${on.join(', ')}; not for ${off.join(', ')} (switched off in config.json)`;
}

function printStatus(ctx: CliContext, status: IndexStatus, policy: RedactionPolicy): void {
  const s = status.semantic;
  const coverage = s.coverage === undefined ? '' : s.coverage === 'unknown' ? ' (coverage unknown: still planning)' : ` (${s.coverage.indexed}/${s.coverage.total} chunks)`;
  const provider = s.provider ? `${s.provider.model} at ${s.provider.endpoint}${s.provider.languages === 'english-only' ? ' (English only, local)' : s.provider.remote ? '' : ' (local)'}` : null;
  ctx.out.write(
    [
      `Profile:  ${ctx.config.profile} (${ctx.config.home})`,
      `Keyword:  ready — ${status.keyword.messages} messages in ${status.keyword.conversations} conversations (${status.keyword.sessions} sessions)`,
      `Semantic: ${s.status}${coverage}${s.reason ? ` — ${s.reason}` : ''}`,
      ...(provider ? [`Model:    ${provider}`] : []),
      ...(s.worker?.lastError ? [`Last error: ${s.worker.lastError.message}`] : []),
      ...(s.howToConfigure ? [`          ${s.howToConfigure}`] : []),
      redactionLine(policy),
      '',
    ].join('\n'),
  );
  if (s.provider && s.projects.length > 0) {
    printTable(
      ctx.out,
      ['PROJECT', 'STATUS', 'READY', 'PENDING', 'FAILED', 'ELIGIBLE', 'NAME'],
      s.projects.map((p) => [p.slug, p.status === 'ready' || p.status === 'partial' ? p.status : `${p.status} (${p.reason})`, String(p.ready), String(p.pending), String(p.failed), String(p.eligible), p.name]),
    );
  }
}

export const indexCommand = defineCommand<{ json?: boolean; project?: string }>({
  name: 'index',
  summary: 'Show and control the keyword and semantic indexes.',
  usage: 'index status|run|rebuild|enable|disable [--project ID|SLUG|NAME] [--json]',
  optionsHelp: `  status            keyword counts and the semantic index per project
  enable            switch semantic indexing on for --project (its messages, also new ones, are sent to the configured endpoint)
  disable           switch it off for --project (nothing more is sent; nothing is deleted)
  run               backfill now (--project, or every switched-on project), with a progress bar; Ctrl-C interrupts, the next run resumes
  rebuild           drop the semantic rows (derived data only) of --project or of all, then re-index
  --project ID|SLUG|NAME one project
  --json            print JSON`,
  options: { json: { type: 'boolean' }, project: { type: 'string' } },
  positionals: { min: 1, max: 1, names: 'a subcommand (status, run, rebuild, enable, disable)' },
  check: ({ positionals, values }) => {
    const sub = positionals[0] as Sub;
    if (!SUBCOMMANDS.includes(sub)) throw new UsageError(`Unknown index subcommand ${JSON.stringify(positionals[0])}; available: ${SUBCOMMANDS.join(', ')}.`, 'index');
    if ((sub === 'enable' || sub === 'disable') && values.project === undefined) throw new UsageError(`recall index ${sub} needs --project ID|SLUG|NAME.`, 'index');
  },
  async run(ctx, { values, positionals }) {
    const sub = positionals[0] as Sub;
    const db = ctx.db();
    const events = new EventHub();
    const redaction = redactionPolicy(ctx.config);
    const semantic = await indexServiceFor(db, { config: ctx.config.semantic, keys: ctx.config.semanticKeys, redaction }, { logger: consoleLogger, events });
    try {
      const callCtx: CallContext = { db, home: ctx.config.home, profile: ctx.config.profile, events, logger: consoleLogger, searchTool: null, semantic, launcher: RECALL_LAUNCHER, transport: 'direct' };
      const projectId = resolveProject(ctx, values.project);
      const params = projectId === undefined ? {} : { projectId };
      if (sub === 'status') {
        const status = (await call(ctx, callCtx, 'index.status', params)) as IndexStatus;
        if (values.json) printJson(ctx.out, status);
        else printStatus(ctx, status, redaction);
        return;
      }
      if (sub === 'enable') {
        const result = (await call(ctx, callCtx, 'index.project.enable', params)) as { notice: string };
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
      if (!semantic?.active) throw new GatewayError('semantic_disabled', 'Semantic indexing is not configured for this profile (config.json "semantic" section); see docs/semantic.md.');
      // Active implies the real index (a stand-in for a missing @recall/semantic is never active).
      const index = semantic as unknown as SemanticIndex;
      const controller = new AbortController();
      void waitForStop().then(() => controller.abort());
      const bar = progressBar(ctx.err);
      const targets = projectId ? [projectId] : index.consents().filter((c) => c.enabled).map((c) => c.projectId);
      let done = 0;
      const result = await index.run({
        ...(projectId ? { projectId } : {}),
        signal: controller.signal,
        onProgress: () => {
          const counts = targets.map((id) => index.status(id));
          const ready = counts.reduce((n, c) => n + c.ready, 0);
          const unknown = counts.some((c) => c.eligible === 'unknown');
          const total = unknown ? null : counts.reduce((n, c) => n + (c.eligible as number), 0);
          done = ready;
          bar.update(ready, total, total === null ? `${ready} chunks ready (planning…)` : `${ready}/${total} chunks`);
        },
      });
      bar.finish();
      const finalStatus = indexSummary(targets.map((id) => index.status(id)));
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
    }
  },
});

function indexSummary(statuses: { ready: number; pending: number; failed: number }[]): { ready: number; pending: number; failed: number } {
  return statuses.reduce((a, s) => ({ ready: a.ready + s.ready, pending: a.pending + s.pending, failed: a.failed + s.failed }), { ready: 0, pending: 0, failed: 0 });
}
