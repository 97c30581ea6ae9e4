/**
 * Per-project consent. Semantic indexing is switched on per project by an explicit action that
 * names the endpoint receiving the text; text of a project is sent only while it is enabled AND
 * the consented endpoint equals the active fingerprint's endpoint (a model moved to another server
 * needs a new consent). The consent also records the reranker (`semantic.rerank`) it was given
 * for: search-time reranking sends a project's text only while its consent names the configured
 * rerank endpoint too, so a reranker added or moved later asks again (migration 0006). Switching off stops sending at once and deletes nothing. The triggers of
 * migration 0003 queue the project's sessions when it is switched on.
 */
import type { RecallDatabase } from '@recall/schema';
import { semanticConsent } from '@recall/store';
import type { ProjectConsent } from '../consent.js';
import { SemanticProjectNotFoundError } from '../errors.js';

function assertProject(db: RecallDatabase, projectId: string): void {
  if (!db.raw.prepare('select 1 from projects where id = ?').get(projectId)) throw new SemanticProjectNotFoundError(projectId);
}

/**
 * Switches a project on for `endpoint`: its existing and future messages may be sent there, and —
 * when `rerankEndpoint` is given — the question and top matches of a search to that reranker.
 * Replaces any earlier consent of the project (a consent without a reranker clears the old one).
 */
export function enableProject(db: RecallDatabase, projectId: string, endpoint: string, options: { rerankEndpoint?: string | null; now?: number } = {}): ProjectConsent {
  const now = options.now ?? Date.now();
  const rerankEndpoint = options.rerankEndpoint ?? null;
  return db.raw
    .transaction(() => {
      assertProject(db, projectId);
      db.raw
        .prepare(
          `insert into semantic_projects (project_id, enabled, endpoint, rerank_endpoint, enabled_at, updated_at) values (?, 1, ?, ?, ?, ?)
           on conflict (project_id) do update set enabled = 1, endpoint = excluded.endpoint, rerank_endpoint = excluded.rerank_endpoint,
             enabled_at = excluded.enabled_at, updated_at = excluded.updated_at`,
        )
        .run(projectId, endpoint, rerankEndpoint, now, now);
      return semanticConsent(db, projectId)!;
    })
    .immediate();
}

/** Switches a project off: nothing more is sent; its vectors stay (search decides whether to use them). */
export function disableProject(db: RecallDatabase, projectId: string, now = Date.now()): ProjectConsent {
  return db.raw
    .transaction(() => {
      assertProject(db, projectId);
      if (!semanticConsent(db, projectId)) return { projectId, enabled: false, endpoint: '', rerankEndpoint: null, enabledAt: null, updatedAt: now };
      db.raw.prepare('update semantic_projects set enabled = 0, updated_at = ? where project_id = ?').run(now, projectId);
      return semanticConsent(db, projectId)!;
    })
    .immediate();
}

/** A project's consent row (null: never switched on), read by @recall/store's one reader of those rows. */
export function projectConsent(db: RecallDatabase, projectId: string): ProjectConsent | null {
  return semanticConsent(db, projectId);
}

/** True when text of this project may be sent to `endpoint` right now. */
export function consentAllows(db: RecallDatabase, projectId: string | null, endpoint: string): boolean {
  if (projectId === null) return false;
  return db.raw.prepare('select 1 from semantic_projects where project_id = ? and enabled = 1 and endpoint = ?').get(projectId, endpoint) !== undefined;
}

/**
 * True when a search may send this project's question and top matches to the reranker at
 * `rerankEndpoint`: the project is switched on for the embedding `endpoint` AND its consent named
 * that rerank endpoint (consent given before the reranker was configured, or for another one, does not count).
 */
export function rerankConsentAllows(db: RecallDatabase, projectId: string | null, endpoint: string, rerankEndpoint: string): boolean {
  if (projectId === null) return false;
  return (
    db.raw.prepare('select 1 from semantic_projects where project_id = ? and enabled = 1 and endpoint = ? and rerank_endpoint = ?').get(projectId, endpoint, rerankEndpoint) !== undefined
  );
}
