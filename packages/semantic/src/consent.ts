/**
 * Per-project consent. Semantic indexing is switched on per project by an explicit action that
 * names the endpoint receiving the text; text of a project is sent only while it is enabled AND
 * the consented endpoint equals the active fingerprint's endpoint (a model moved to another server
 * needs a new consent). Switching off stops sending at once and deletes nothing. The triggers of
 * migration 0003 queue the project's sessions when it is switched on.
 */
import type { RecallDatabase } from '@recall/schema';
import { SemanticProjectNotFoundError } from './errors.js';

/**
 * A project's consent row: whether its text may be embedded, and for which endpoint (times in ms since epoch).
 */
export interface ProjectConsent {
  projectId: string;
  enabled: boolean;
  /** The endpoint named in the consent (a base URL, or `local:use-lite`). */
  endpoint: string;
  enabledAt: number | null;
  updatedAt: number;
}

interface ConsentRow {
  project_id: string;
  enabled: number;
  endpoint: string;
  enabled_at: number | null;
  updated_at: number;
}

const toConsent = (r: ConsentRow): ProjectConsent => ({ projectId: r.project_id, enabled: r.enabled === 1, endpoint: r.endpoint, enabledAt: r.enabled_at, updatedAt: r.updated_at });

function assertProject(db: RecallDatabase, projectId: string): void {
  if (!db.raw.prepare('select 1 from projects where id = ?').get(projectId)) throw new SemanticProjectNotFoundError(projectId);
}

/** Switches a project on for `endpoint`: its existing and future messages may be sent there. */
export function enableProject(db: RecallDatabase, projectId: string, endpoint: string, now = Date.now()): ProjectConsent {
  return db.raw
    .transaction(() => {
      assertProject(db, projectId);
      db.raw
        .prepare(
          `insert into semantic_projects (project_id, enabled, endpoint, enabled_at, updated_at) values (?, 1, ?, ?, ?)
           on conflict (project_id) do update set enabled = 1, endpoint = excluded.endpoint, enabled_at = excluded.enabled_at, updated_at = excluded.updated_at`,
        )
        .run(projectId, endpoint, now, now);
      return toConsent(db.raw.prepare('select * from semantic_projects where project_id = ?').get(projectId) as ConsentRow);
    })
    .immediate();
}

/** Switches a project off: nothing more is sent; its vectors stay (search decides whether to use them). */
export function disableProject(db: RecallDatabase, projectId: string, now = Date.now()): ProjectConsent {
  return db.raw
    .transaction(() => {
      assertProject(db, projectId);
      const row = db.raw.prepare('select * from semantic_projects where project_id = ?').get(projectId) as ConsentRow | undefined;
      if (!row) return { projectId, enabled: false, endpoint: '', enabledAt: null, updatedAt: now };
      db.raw.prepare('update semantic_projects set enabled = 0, updated_at = ? where project_id = ?').run(now, projectId);
      return toConsent(db.raw.prepare('select * from semantic_projects where project_id = ?').get(projectId) as ConsentRow);
    })
    .immediate();
}

export function projectConsent(db: RecallDatabase, projectId: string): ProjectConsent | null {
  const row = db.raw.prepare('select * from semantic_projects where project_id = ?').get(projectId) as ConsentRow | undefined;
  return row ? toConsent(row) : null;
}

export function listConsents(db: RecallDatabase): ProjectConsent[] {
  return (db.raw.prepare('select * from semantic_projects order by project_id').all() as ConsentRow[]).map(toConsent);
}

/** True when text of this project may be sent to `endpoint` right now. */
export function consentAllows(db: RecallDatabase, projectId: string | null, endpoint: string): boolean {
  if (projectId === null) return false;
  return db.raw.prepare('select 1 from semantic_projects where project_id = ? and enabled = 1 and endpoint = ?').get(projectId, endpoint) !== undefined;
}
