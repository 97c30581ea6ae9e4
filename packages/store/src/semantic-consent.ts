/**
 * The semantic consent rows of a profile database (`semantic_projects`, @recall/schema's migration
 * 0003; written by @recall/semantic/sqlite), read in one place: `recall migrate`'s transfer source
 * (sqlite-transfer.ts) and the semantic SQLite adapter (its consent.ts) both read them through
 * these two functions, so the two can never map a row differently. They live here because the
 * store may not import @recall/semantic (turbo boundaries), while the semantic adapter already
 * builds on the store.
 */
import type { RecallDatabase } from '@recall/schema';
import type { TransferredConsent } from '@recall/storage-ports';

interface ConsentRow {
  project_id: string;
  enabled: number;
  endpoint: string;
  rerank_endpoint: string | null;
  enabled_at: number | null;
  updated_at: number;
}

const COLUMNS = 'project_id, enabled, endpoint, rerank_endpoint, enabled_at, updated_at';

const toConsent = (r: ConsentRow): TransferredConsent => ({
  projectId: r.project_id,
  enabled: r.enabled === 1,
  endpoint: r.endpoint,
  rerankEndpoint: r.rerank_endpoint,
  enabledAt: r.enabled_at,
  updatedAt: r.updated_at,
});

/** Every project's consent row (a project never switched on has none), by project id. */
export function listSemanticConsents(db: RecallDatabase): TransferredConsent[] {
  return (db.raw.prepare(`select ${COLUMNS} from semantic_projects order by project_id`).all() as ConsentRow[]).map(toConsent);
}

/** One project's consent row, or null when the project was never switched on. */
export function semanticConsent(db: RecallDatabase, projectId: string): TransferredConsent | null {
  const row = db.raw.prepare(`select ${COLUMNS} from semantic_projects where project_id = ?`).get(projectId) as ConsentRow | undefined;
  return row ? toConsent(row) : null;
}
