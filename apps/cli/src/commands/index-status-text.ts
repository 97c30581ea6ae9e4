/**
 * `recall index status` in words a person reads: what the semantic index is doing and what to do
 * next, with the real config.json path, the commands to type and no internal codes or method names.
 * Whether anything is indexing right now is asked of the running `recall serve` (loopback, with the
 * home's own token): this process indexes nothing, so without an answering server a switched-on
 * project's unfinished index is "waiting", never "indexing".
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { tokenPath } from '@recall/gateway-rpc';
import type { IndexProjectStatus, IndexStatus } from '@recall/rpc-contract';
import { printTable, type CliContext } from './context.js';
import { columnsOf, wrapText } from './style.js';
import { REDACTION_SURFACES, type RedactionPolicy, type RedactionSurface } from '@recall/redaction';

const SURFACE_NAMES: Record<RedactionSurface, string> = { embedding: 'embedding', chat: 'chat', search_results: 'search results' };

/** One line: which outgoing surfaces redact secrets (config.json `privacy.redact`). */
function redactionLine(policy: RedactionPolicy): string {
  const on = REDACTION_SURFACES.filter((s) => policy.enabled(s)).map((s) => SURFACE_NAMES[s]);
  const off = REDACTION_SURFACES.filter((s) => !policy.enabled(s)).map((s) => SURFACE_NAMES[s]);
  if (off.length === 0) return 'Secrets:  redacted before anything is sent (embedding, chat, search results)';
  if (on.length === 0) return 'Secrets:  NOT redacted before sending (switched off in config.json); private spans still never leave';
  return `Secrets:  redacted for ${on.join(', ')}; not for ${off.join(', ')} (switched off in config.json)`;
}

/** Continuation lines start under the value column (after "Semantic: "). */
const LABEL_INDENT = ' '.repeat(10);

/** How long `index status` waits for a running gateway on the configured port (it is loopback: refused at once when none). */
const PROBE_TIMEOUT_MS = 1500;

async function rpcCall(url: string, token: string, method: string, params: Record<string, unknown>): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
  });
  if (!response.ok) return null;
  const body = (await response.json()) as { result?: unknown };
  return body.result ?? null;
}

/**
 * The index status of the `recall serve` running for this home and profile on the configured port,
 * or null when none answers (no token yet, nothing listening, another profile, an old version).
 */

/** The config file's path for a hint, naming its folder when that does not exist yet (a team database creates no profile folder). */
export function whereConfigGoes(path: string): string {
  const dir = dirname(path);
  return existsSync(dir) ? path : `${path} (create the folder ${dir} first: it does not exist yet)`;
}

export async function serverIndexStatus(ctx: CliContext, params: Record<string, unknown>): Promise<IndexStatus | null> {
  let token: string;
  try {
    token = readFileSync(tokenPath(ctx.config.home), 'utf8').trim();
  } catch {
    return null;
  }
  const url = `http://127.0.0.1:${ctx.config.port}/rpc`;
  try {
    const info = (await rpcCall(url, token, 'gateway.info', {})) as { profile?: string } | null;
    if (info?.profile !== ctx.config.profile) return null;
    return ((await rpcCall(url, token, 'index.status', params)) as IndexStatus | null) ?? null;
  } catch {
    return null;
  }
}

function projectState(p: IndexProjectStatus, live: boolean): string {
  switch (p.reason) {
    case 'complete':
      return 'ready';
    case 'project_not_enabled':
      return 'not switched on';
    case 'consent_for_other_endpoint':
      return 'switched on for another model endpoint';
    case 'provider_unavailable':
      return 'model not answering';
    case 'failed_chunks':
      return live ? 'some chunks failed (retrying)' : 'some chunks failed';
    case 'planning':
    case 'indexing':
      return live ? 'indexing' : 'waiting (nothing is indexing)';
    case 'not_configured':
    case 'turned_off':
      return 'off';
    default:
      return p.status;
  }
}

/**
 * Prints the status. `live` is true when it came from a running `recall serve` (whose worker
 * state is then the truth), false when this process computed it without any worker.
 */
export function printIndexStatus(ctx: CliContext, status: IndexStatus, live: boolean, policy: RedactionPolicy): void {
  const s = status.semantic;
  const { style } = ctx.out;
  const configPath = whereConfigGoes(ctx.config.configFile.path);
  const enableHint = 'recall index enable --project SLUG';
  const on = s.projects.filter((p) => p.consent.enabled && p.reason !== 'consent_for_other_endpoint');
  const model = s.provider
    ? `${s.provider.model}${s.provider.provider === 'use-lite' ? ' (built in, English only, nothing leaves this computer)' : ` at ${s.provider.endpoint}${s.provider.remote ? '' : ' (local)'}`}`
    : null;
  const lines: string[] = [`Profile:  ${ctx.config.profile} (${ctx.config.home})`];
  lines.push(`Keyword:  ${style.green('ready')} — ${status.keyword.messages} messages in ${status.keyword.conversations} conversations (${status.keyword.sessions} sessions)`);
  const coverage = s.coverage === undefined || s.coverage === 'unknown' ? 'all chunks embedded' : `${s.coverage.indexed} of ${s.coverage.total} chunks embedded`;
  switch (s.reason ?? (s.status === 'ready' ? 'complete' : undefined)) {
    case 'not_configured':
      lines.push(`Semantic: ${style.yellow('off')} — not configured; keyword search works fully.`);
      lines.push(
        `          To add meaning-based search, put {"semantic": {"enabled": true, "provider": "use-lite"}} (the built-in English model; others in docs/semantic.md) in ${configPath}, then switch on a project: ${enableHint}`,
      );
      break;
    case 'turned_off':
      lines.push(`Semantic: ${style.yellow('off')} — "enabled" is not true in the "semantic" section of ${configPath}. Keyword search works fully.`);
      break;
    case 'no_project_enabled':
      lines.push(`Semantic: ${style.yellow('configured, but no project is switched on')} — nothing has been sent or embedded yet.`);
      lines.push(`          Switch on each project whose text may be embedded: ${enableHint}`);
      break;
    case 'provider_unavailable':
      lines.push(`Semantic: ${style.red('unavailable')} — the embedding model does not answer; keyword search works meanwhile.`);
      break;
    case 'complete':
      lines.push(`Semantic: ${style.green('ready')} — ${coverage}, ${on.length} project${on.length === 1 ? '' : 's'} switched on`);
      break;
    default: {
      const failed = s.projects.some((p) => p.reason === 'failed_chunks');
      const ready = on.reduce((n, p) => n + p.ready, 0);
      const built = s.coverage !== undefined && s.coverage !== 'unknown' ? `${s.coverage.indexed} of ${s.coverage.total} chunks embedded` : ready > 0 ? `${ready} chunks embedded so far` : 'not built yet';
      const projects = `switched on for ${on.length} project${on.length === 1 ? '' : 's'}`;
      if (live) lines.push(`Semantic: ${style.yellow('building')} — ${projects}, ${built}; ${failed ? 'some chunks failed, recall serve retries them' : 'recall serve is indexing now'}`);
      else {
        lines.push(`Semantic: ${style.yellow('incomplete')} — ${projects}, ${built}; nothing is indexing now.`);
        lines.push(`          No "recall serve" answered on port ${ctx.config.port}: start it (it indexes in the background), or run "recall index run".`);
      }
    }
  }
  if (model) lines.push(`Model:    ${model}`);
  const reranker = s.provider?.reranker;
  if (reranker) {
    lines.push(`Reranker: ${reranker.model ? `${reranker.model} at ` : ''}${reranker.endpoint}`);
    // A consent given before this reranker was configured (or for another one) does not cover it.
    const without = on.filter((p) => (p.consent.rerankEndpoint ?? null) !== reranker.endpoint);
    if (without.length > 0) {
      lines.push(
        `          Not used for ${without.map((p) => p.slug).join(', ')}: switched on without this reranker. To allow it, switch on again: ${enableHint}`,
      );
    }
  }
  const lastError = s.worker?.lastError?.message ?? s.projects.find((p) => p.lastError)?.lastError ?? null;
  if (lastError) lines.push(`Last error: ${lastError}`);
  lines.push(redactionLine(policy));
  // On a terminal each line wraps under its label; on a pipe it stays one line.
  for (const l of lines) {
    if (!ctx.out.isTTY || columnsOf(l) <= ctx.out.columns) ctx.out.write(`${l}\n`);
    else for (const w of wrapText(l.trimStart(), ctx.out.columns, LABEL_INDENT, l.startsWith(' ') ? LABEL_INDENT : '')) ctx.out.write(`${w}\n`);
  }
  if (s.provider && s.projects.length > 0) {
    ctx.out.write('\n');
    printTable(
      ctx.out,
      ['PROJECT', 'SEMANTIC', 'READY', 'PENDING', 'FAILED', 'CHUNKS', 'NAME'],
      s.projects.map((p) => [p.slug, projectState(p, live), String(p.ready), String(p.pending), String(p.failed), p.eligible === 'unknown' ? '?' : String(p.eligible), p.name]),
    );
  }
}
