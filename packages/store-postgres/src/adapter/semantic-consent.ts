/**
 * The semantic consent rows of a team database (`semantic_projects`), read in one place:
 * `recall migrate`'s transfer source (bulk.ts, TransferSource.consents) and the ChunkStore's
 * consent()/consentRecord() (semantic.ts) both map a row through here, so a migrated consent reads
 * back exactly as it was copied (as @recall/store's semantic-consent.ts does for a profile). A row
 * is the consent as given: switched off, it keeps its endpoint, reranker and enabledAt, and only
 * `enabled` is false — every sender checks `enabled` first.
 */
import type { TransferredConsent } from '@recall/storage-ports';
import type pg from 'pg';

const COLUMNS = 'project_id, enabled, endpoint, rerank_endpoint, enabled_at, updated_at';

const toConsent = (r: Record<string, unknown>): TransferredConsent => ({
  projectId: r.project_id as string,
  enabled: r.enabled === true,
  endpoint: r.endpoint as string,
  rerankEndpoint: (r.rerank_endpoint as string | null) ?? null,
  enabledAt: r.enabled_at === null ? null : Number(r.enabled_at),
  updatedAt: Number(r.updated_at),
});

/** Every project's consent row (a project never switched on has none), by project id. */
export async function listSemanticConsents(pool: pg.Pool): Promise<TransferredConsent[]> {
  return (await pool.query(`select ${COLUMNS} from semantic_projects order by project_id`)).rows.map(toConsent);
}

/** One project's consent row, or null when the project was never switched on. */
export async function semanticConsent(pool: pg.Pool, projectId: string): Promise<TransferredConsent | null> {
  const row = (await pool.query(`select ${COLUMNS} from semantic_projects where project_id = $1`, [projectId])).rows[0];
  return row ? toConsent(row) : null;
}
