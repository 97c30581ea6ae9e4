/**
 * Index status from the rows, per project and fingerprint: eligible / ready / pending / failed
 * chunk counts over the same allowed set the scan uses (visible messages of indexed roles in
 * non-hidden sessions currently in the project). `eligible` is `unknown` while planning for the
 * project is incomplete (sessions still queued — including, on SQLite, sessions with messages
 * above the discovery mark — or the fingerprint not planned yet): chunk rows exist only after
 * planning, so a count then would be a made-up denominator. `statusOf()` turns a project's consent
 * and counts into what `index.status` and the SQLite source's semantic_status / semantic_coverage
 * say: disabled | ready | partial | unavailable, with a reason. The counts are read by each adapter
 * (the ports' `ChunkStore.indexCounts`; SQLite's sqlite/status.ts `chunkCounts`).
 */
import type { MessageRole, SemanticStatusName } from '@recall/rpc-contract';
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

/** What a status is computed for: the config's state, the active fingerprint, the indexed roles and the worker's health. */
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
