/**
 * `index.*`: the state of recall's indexes and the controls of the semantic index.
 * - `index.status`: keyword counts (the FTS index is maintained in the same transaction as every
 *   message write, so it is always complete) and the semantic index per project — consent, chunk
 *   counts of the active fingerprint (eligible is `unknown` while planning is incomplete, never a
 *   made-up number), worker state and last error.
 * - `index.project.enable` / `index.project.disable`: the explicit per-project consent. The enable
 *   answer names the endpoint that will receive the text and says new messages are sent too.
 * - `index.run` (backfill on request, resumable), `index.pause`, `index.rebuild` (drops derived
 *   rows only). Progress travels as `index.changed` events (throttled); clients re-read index.status.
 * All of them go through the profile's index service (ctx.semantic, stage B plugged in through a
 * SemanticPlugin); without one (no plugin, or a context built outside startGateway) semantic is
 * reported as not configured.
 * The methods' names, summaries and params schemas are the contract's
 * (@recall/rpc-contract, src/methods/index-methods.ts); this module holds their handlers.
 */
import { join } from 'node:path';
import type { IndexProjectStatus, IndexStatus, Project } from '@recall/rpc-contract';
import type { Storage } from '@recall/storage-ports';
import { GatewayError } from '../errors.js';
import { idleProjectStatus, type IndexService } from '../index-service.js';
import { method, type GatewayMethod } from './common.js';

/** How to switch semantic search on, for people: names this home's real config file. */
export function semanticHowToConfigure(home: string): string {
  return `Semantic search is off; keyword search works fully. To turn it on, add a "semantic" section to ${join(home, 'config.json')} (the built-in offline English model: {"enabled": true, "provider": "use-lite"}; or any OpenAI-compatible embeddings server, see docs/semantic.md), restart recall serve, then switch each project on in the Index panel or with \`recall index enable --project …\`. No history is sent anywhere before that.`;
}

/** The sample that tells a project's script: its newest sessions, their newest messages, the first characters of each. */
const SCRIPT_SAMPLE_SESSIONS = 10;
const SCRIPT_SAMPLE_MESSAGES = 200;
const SCRIPT_SAMPLE_CHARS = 200;
const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
const LETTER = /\p{L}/gu;

/**
 * The share of Chinese/Japanese/Korean characters among the letters of a sample of a project's
 * text (its SCRIPT_SAMPLE_SESSIONS newest conversations, at most SCRIPT_SAMPLE_MESSAGES of their
 * newest user/assistant messages, SCRIPT_SAMPLE_CHARS characters each, read by the storage
 * adapter), or null when it has no text. Only asked for while the English-only built-in model is
 * in use, to warn that it cannot read such a project.
 */
export async function projectCjkShare(storage: Storage, projectId: string): Promise<number | null> {
  const rows = (await storage.stats?.textSample(projectId, { sessions: SCRIPT_SAMPLE_SESSIONS, messages: SCRIPT_SAMPLE_MESSAGES, chars: SCRIPT_SAMPLE_CHARS })) ?? [];
  let letters = 0;
  let cjk = 0;
  for (const text of rows) {
    letters += text.match(LETTER)?.length ?? 0;
    cjk += text.match(CJK_CHAR)?.length ?? 0;
  }
  return letters === 0 ? null : Math.round((cjk / letters) * 100) / 100;
}

// The answer's shape is part of the wire contract (the desktop's Index panel reads it).
export type { IndexStatus } from '@recall/rpc-contract';

/**
 * Counts of what keyword recall serves: visible (live/compacted) messages of non-hidden sessions,
 * and the logical conversations those sessions form — a compression continuation or delegation
 * whose parent is listed folds into it, as the sidebar and `recall projects` count (the Index panel
 * said "10 conversations" next to a sidebar of 9). Read by the storage adapter (StorageStats).
 */
async function keywordCounts(storage: Storage): Promise<{ messages: number; sessions: number; conversations: number }> {
  return (await storage.stats?.keywordCounts()) ?? { messages: 0, sessions: 0, conversations: 0 };
}

function requireSemantic(index: IndexService | null | undefined): IndexService {
  // An index that cannot run says why (e.g. semantic_not_installed); otherwise it is not configured.
  const why = index && !index.active ? index.worker?.health.lastError : null;
  if (why) throw new GatewayError(why.code, why.message);
  if (!index || !index.active) throw new GatewayError('semantic_disabled', 'Semantic indexing is not configured for this profile (config.json "semantic" section).');
  return index;
}

/**
 * The consent records the endpoints in use now; when the client says which ones it showed the
 * person (`endpoint`, `rerankEndpoint`) and they are no longer those, nothing is recorded and the
 * person is asked again (`consent_endpoint_changed`) — a consent never covers an endpoint nobody saw.
 */
function assertShownEndpoints(index: IndexService, shown: { endpoint?: string | undefined; rerankEndpoint?: string | null | undefined }): void {
  const endpoint = index.provider?.info.endpoint ?? null;
  const rerankEndpoint = index.reranker?.endpoint ?? null;
  const embeddingChanged = shown.endpoint !== undefined && shown.endpoint !== endpoint;
  const rerankChanged = shown.rerankEndpoint !== undefined && shown.rerankEndpoint !== rerankEndpoint;
  if (!embeddingChanged && !rerankChanged) return;
  const now = `the text now goes to ${endpoint ?? 'no embedding server'}${rerankEndpoint ? ` and to the reranker at ${rerankEndpoint}` : ' and to no reranker'}`;
  throw new GatewayError('consent_endpoint_changed', `Nothing was switched on: the servers changed since you were asked (${now}). Please look at the question again.`, {
    data: { endpoint, rerankEndpoint },
  });
}

async function assertProject(storage: Storage, projectId: string): Promise<void> {
  if (!(await storage.projects.exists(projectId))) {
    throw new GatewayError('project_not_found', `No project ${JSON.stringify(projectId)} in this profile.`, { data: { projectId } });
  }
}

/** The `index.status` answer: keyword counts and, through the profile's index service, the semantic index per project. */
export async function indexStatus(storage: Storage, index: IndexService | null | undefined, projectId?: string, home = '<home>'): Promise<IndexStatus> {
  const keyword = await keywordCounts(storage);
  if (projectId !== undefined) await assertProject(storage, projectId);
  const projectRows = projectId !== undefined ? [await storage.projects.get(projectId)] : byArchivedThenName(await storage.projects.list({ includeArchived: true }));
  // Without an index service (stage B not plugged in) every project is listed as not configured.
  const englishOnly = index?.provider?.info.languages === 'english-only';
  const projects: IndexProjectStatus[] = [];
  for (const p of projectRows) {
    const { fingerprintId: _f, ...s } = index ? await index.status(p.id) : idleProjectStatus(p.id, { status: 'disabled', reason: 'not_configured' });
    projects.push({ ...s, name: p.name, slug: p.slug, archived: p.archived, ...(englishOnly && !p.archived ? { cjkShare: await projectCjkShare(storage, p.id) } : {}) });
  }
  const configured = index?.config != null;
  const enabled = index?.config?.enabled === true;
  const info = index?.provider?.info;
  const health = index?.worker?.health ?? null;
  const base = {
    configured,
    enabled,
    provider:
      info && index?.fingerprint
        ? {
            provider: info.provider,
            endpoint: info.endpoint,
            model: info.model,
            dims: info.dims,
            remote: info.remote,
            languages: info.languages,
            maxInputTokens: info.maxInputTokens,
            maxBatch: info.maxBatch,
            fingerprintId: index.fingerprint.id,
            ...(index.reranker ? { reranker: { endpoint: index.reranker.endpoint, model: index.reranker.model } } : {}),
          }
        : null,
    worker: health
      ? { state: health.state, providerAvailable: health.providerAvailable, lastError: health.lastError, lastSuccessAt: health.lastSuccessAt, embedded: health.embedded }
      : null,
    projects,
  };
  if (!configured) return { keyword, semantic: { status: 'disabled', reason: 'not_configured', howToConfigure: semanticHowToConfigure(home), ...base } };
  if (!enabled) return { keyword, semantic: { status: 'disabled', reason: 'turned_off', howToConfigure: semanticHowToConfigure(home), ...base } };
  if (health && !health.providerAvailable) return { keyword, semantic: { status: 'unavailable', reason: 'provider_unavailable', ...base } };
  const on = projects.filter((p) => p.status !== 'disabled');
  if (on.length === 0) return { keyword, semantic: { status: 'disabled', reason: 'no_project_enabled', ...base } };
  const unknown = on.some((p) => p.eligible === 'unknown');
  const coverage = unknown ? ('unknown' as const) : { indexed: on.reduce((n, p) => n + p.ready, 0), total: on.reduce((n, p) => n + (p.eligible as number), 0) };
  const partial = on.some((p) => p.status !== 'ready');
  return { keyword, semantic: { status: partial ? 'partial' : 'ready', ...(partial ? { reason: 'indexing' } : {}), coverage, ...base } };
}

/** ASCII case folded, as SQLite's `collate nocase`. */
const nocase = (text: string): string => text.replace(/[A-Z]/g, (c) => c.toLowerCase());
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Active projects first, then by name ignoring ASCII case, then by id (the Index panel's order). */
function byArchivedThenName(projects: Project[]): Project[] {
  return [...projects].sort((a, b) => Number(a.archived) - Number(b.archived) || compare(nocase(a.name), nocase(b.name)) || compare(a.id, b.id));
}

export const indexMethods: GatewayMethod[] = [
  method('index.status', (p, ctx): Promise<IndexStatus> => indexStatus(ctx.storage, ctx.semantic, p.projectId, ctx.home)),
  method('index.project.enable', async (p, ctx) => {
    const index = requireSemantic(ctx.semantic);
    assertShownEndpoints(index, p);
    return await index.enable(p.projectId);
  }),
  method('index.project.disable', async (p, ctx) => {
    if (!ctx.semantic) {
      await assertProject(ctx.storage, p.projectId);
      return { projectId: p.projectId, enabled: false };
    }
    const c = await ctx.semantic.disable(p.projectId);
    return { projectId: c.projectId, enabled: false as const };
  }),
  method('index.run', async (p, ctx) => {
    const index = requireSemantic(ctx.semantic);
    if (p.projectId !== undefined) await assertProject(ctx.storage, p.projectId);
    const running = index.run(p.projectId === undefined ? {} : { projectId: p.projectId });
    if (!p.wait) {
      running.catch((error: unknown) => ctx.logger.warn('index.run failed', { error: String(error) }));
      return { started: true, projectId: p.projectId ?? null };
    }
    const result = await running;
    return { started: true, projectId: p.projectId ?? null, ...result };
  }),
  method('index.pause', (_p, ctx) => {
    const index = requireSemantic(ctx.semantic);
    index.pause();
    return { state: index.worker?.health.state ?? 'stopped' };
  }),
  method('index.rebuild', async (p, ctx) => await requireSemantic(ctx.semantic).rebuild(p.projectId)),
];
