/**
 * The SQLite side of index status: chunk counts of a project for a fingerprint over the same
 * allowed set the scan uses (visible messages of indexed roles in non-hidden sessions currently in
 * the project), whether planning is complete (no session queued — including sessions with messages
 * above the discovery mark, discovery.ts — and the fingerprint planned), and `semanticStatus()`,
 * the synchronous status of the SQLite search source (../status.ts `statusOf` over these counts).
 */
import type { MessageRole } from '@recall/rpc-contract';
import { VISIBLE_VISIBILITIES, type RecallDatabase } from '@recall/schema';
import type { Fingerprint } from '../fingerprint.js';
import { statusOf, type ChunkCounts, type ProjectIndexStatus, type SemanticStatusInput } from '../status.js';
import { projectConsent } from './consent.js';
import { undiscoveredSessions } from './discovery.js';

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

/** Status of one project (null project = a conversation outside any project: always disabled). */
export function semanticStatus(db: RecallDatabase, projectId: string | null, input: SemanticStatusInput): ProjectIndexStatus {
  const consent = projectId === null ? null : projectConsent(db, projectId);
  const counts = projectId !== null && input.configured && input.enabled && input.fingerprint !== null ? chunkCounts(db, projectId, input.fingerprint, input.roles) : null;
  return statusOf(projectId, consent, counts, input);
}
