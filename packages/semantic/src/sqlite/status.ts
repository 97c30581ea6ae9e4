/**
 * Index status from the rows, per project and fingerprint: eligible / ready / pending / failed
 * chunk counts over the same allowed set the scan uses (visible messages of indexed roles in
 * non-hidden sessions currently in the project). `eligible` is `unknown` while planning for the
 * project is incomplete (sessions still queued — including sessions with messages above the
 * discovery mark, discovery.ts — or the fingerprint not planned yet): chunk rows
 * exist only after planning, so a count then would be a made-up denominator. `semanticStatus()`
 * is the one function `session_search`'s semantic_status / semantic_coverage and `index.status`
 * read: disabled | ready | partial | unavailable, with a reason.
 */
import type { MessageRole, SemanticStatusName } from '@recall/rpc-contract';
import { VISIBLE_VISIBILITIES, type RecallDatabase } from '@recall/schema';
import { projectConsent } from './consent.js';
import { undiscoveredSessions } from './discovery.js';
import type { Fingerprint } from './fingerprint.js';
import type { WorkerHealth } from './worker.js';

// SemanticStatusName (disabled | ready | partial | unavailable) is the wire's: @recall/rpc-contract.
export type { SemanticStatusName };

/** Why a project's status is what it is (e.g. `project_not_enabled`, `indexing`, `complete`). */
export type SemanticStatusReason =
  | 'not_configured'
  | 'turned_off'
  | 'no_project'
  | 'project_not_enabled'
  | 'consent_for_other_endpoint'
  | 'provider_unavailable'
  | 'planning'
  | 'indexing'
  | 'failed_chunks'
  | 'complete';

/**
 * Chunk counts of a project for the active fingerprint: eligible (or `unknown` while planning), ready, pending, failed.
 */
export interface ChunkCounts {
  /** Chunks the project should have for this fingerprint; `unknown` while planning is incomplete. */
  eligible: number | 'unknown';
  ready: number;
  pending: number;
  failed: number;
}

/**
 * A project's index status: `disabled | ready | partial | unavailable` with its reason, consent and counts.
 */
export interface ProjectIndexStatus extends ChunkCounts {
  projectId: string;
  status: SemanticStatusName;
  reason: SemanticStatusReason;
  /** `rerankEndpoint`: the reranker the consent named too (null = none). */
  consent: { enabled: boolean; endpoint: string | null; enabledAt: number | null; rerankEndpoint: string | null };
  fingerprintId: number | null;
  /** Sessions of the project still queued for planning. */
  queuedSessions: number;
  lastError: string | null;
}

const VISIBLE_SQL = VISIBLE_VISIBILITIES.map((v) => `'${v}'`).join(', ');

/** Counts over the scan's allowed set for (project, fingerprint, roles). */
export function chunkCounts(db: RecallDatabase, projectId: string, fingerprint: Pick<Fingerprint, 'id'>, roles: readonly MessageRole[]): ChunkCounts & { planned: boolean; queuedSessions: number; lastError: string | null } {
  const roleSql = roles.map((r) => `'${r.replace(/'/g, "''")}'`).join(', ');
  const rows = db.raw
    .prepare(
      `select c.status as status, count(*) as n from semantic_chunks c
       join messages m on m.id = c.message_id join sessions s on s.id = m.session_id
       where c.fingerprint_id = ? and s.project_id = ? and s.hidden = 0 and m.visibility in (${VISIBLE_SQL}) and m.role in (${roleSql})
       group by c.status`,
    )
    .all(fingerprint.id, projectId) as { status: 'pending' | 'ready' | 'failed'; n: number }[];
  const by = { pending: 0, ready: 0, failed: 0 };
  for (const r of rows) by[r.status] = r.n;
  // Queued = in the planner's queue, or holding messages above the discovery mark (not queued yet).
  const queuedSessions =
    (db.raw.prepare('select count(*) from semantic_dirty_sessions d join sessions s on s.id = d.session_id where s.project_id = ?').pluck().get(projectId) as number) +
    undiscoveredSessions(db, projectId);
  const plannedFp = db.raw.prepare('select planned_fingerprint_id from semantic_projects where project_id = ?').pluck().get(projectId) as number | null | undefined;
  const planned = plannedFp === fingerprint.id && queuedSessions === 0;
  const lastError = (db.raw
    .prepare(
      `select c.last_error from semantic_chunks c join sessions s on s.id = c.session_id
       where c.fingerprint_id = ? and s.project_id = ? and c.status = 'failed' order by c.updated_at desc limit 1`,
    )
    .pluck()
    .get(fingerprint.id, projectId) ?? null) as string | null;
  return { eligible: planned ? by.pending + by.ready + by.failed : 'unknown', ...by, planned, queuedSessions, lastError };
}

export interface SemanticStatusInput {
  /** The validated config's state: `null` = no `semantic` section. */
  configured: boolean;
  enabled: boolean;
  /** Active fingerprint (null when semantic is off). */
  fingerprint: Pick<Fingerprint, 'id' | 'endpoint'> | null;
  roles: readonly MessageRole[];
  /** The in-process worker's health, when one runs. */
  health?: WorkerHealth | null;
}

/** Status of one project (null project = a conversation outside any project: always disabled). */
export function semanticStatus(db: RecallDatabase, projectId: string | null, input: SemanticStatusInput): ProjectIndexStatus {
  const consent = projectId === null ? null : projectConsent(db, projectId);
  const counts = projectId !== null && input.configured && input.enabled && input.fingerprint !== null ? chunkCounts(db, projectId, input.fingerprint, input.roles) : null;
  return statusOf(projectId, consent, counts, input);
}

/** What statusOf() needs of a project's consent (a ProjectConsent, or the ports' consentRecord). */
export interface ConsentFields {
  enabled: boolean;
  endpoint: string | null;
  enabledAt?: number | null;
  rerankEndpoint?: string | null;
}

/** What statusOf() needs of a project's counts (chunkCounts, or the ports' indexCounts). */
export interface CountFields {
  pending: number;
  ready: number;
  failed: number;
  planned: boolean;
  queuedSessions: number;
  lastError: string | null;
}

/**
 * A project's status from its consent and counts (read by either adapter): disabled (not
 * configured, off, no project, not switched on, consent for another endpoint), unavailable
 * (provider down), partial (planning, indexing, failed chunks) or ready. `counts` is read only
 * while semantic is configured, on and has a fingerprint (null otherwise).
 */
export function statusOf(projectId: string | null, consent: ConsentFields | null, counts: CountFields | null, input: SemanticStatusInput): ProjectIndexStatus {
  const base = {
    projectId: projectId ?? '',
    consent: { enabled: consent?.enabled ?? false, endpoint: consent?.endpoint || null, enabledAt: consent?.enabledAt ?? null, rerankEndpoint: consent?.enabled ? (consent.rerankEndpoint ?? null) : null },
    fingerprintId: input.fingerprint?.id ?? null,
  };
  const none = { eligible: 'unknown' as const, ready: 0, pending: 0, failed: 0, queuedSessions: 0, lastError: null };
  if (!input.configured) return { ...base, ...none, status: 'disabled', reason: 'not_configured' };
  if (!input.enabled || input.fingerprint === null) return { ...base, ...none, status: 'disabled', reason: 'turned_off' };
  if (projectId === null || counts === null) return { ...base, ...none, status: 'disabled', reason: 'no_project' };
  const { planned, ...by } = counts;
  const rest = { eligible: planned ? by.pending + by.ready + by.failed : ('unknown' as const), ...by };
  if (!consent?.enabled) return { ...base, ...rest, status: 'disabled', reason: 'project_not_enabled' };
  if (consent.endpoint !== input.fingerprint.endpoint) return { ...base, ...rest, status: 'disabled', reason: 'consent_for_other_endpoint' };
  if (input.health && !input.health.providerAvailable) {
    return { ...base, ...rest, lastError: input.health.lastError?.message ?? rest.lastError, status: 'unavailable', reason: 'provider_unavailable' };
  }
  if (!planned) return { ...base, ...rest, status: 'partial', reason: 'planning' };
  if (counts.pending > 0) return { ...base, ...rest, status: 'partial', reason: 'indexing' };
  if (counts.failed > 0) return { ...base, ...rest, status: 'partial', reason: 'failed_chunks' };
  return { ...base, ...rest, status: 'ready', reason: 'complete' };
}

/** The shape session_search's SemanticSource.status() returns (structurally, without importing search-tool). */
export function toolStatus(s: ProjectIndexStatus): { status: SemanticStatusName; coverage: { indexed: number; total: number } | 'unknown'; reason?: string } {
  return {
    status: s.status,
    coverage: s.eligible === 'unknown' ? 'unknown' : { indexed: s.ready, total: s.eligible },
    ...(s.status === 'ready' ? {} : { reason: s.reason }),
  };
}
