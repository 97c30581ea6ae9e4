/**
 * The reranker of a SQLite profile database: consent is read synchronously from its
 * `semantic_projects` rows (sqlite/consent.ts), so `allows()` answers at once; the client, the
 * redaction pass and the rule are the core's (../rerank.ts, shared with `storageReranker()`).
 */
import type { RecallDatabase } from '@recall/schema';
import { buildReranker, NO_PROJECT, NOT_SWITCHED_ON, withoutReranker, type ConfiguredReranker, type Decision, type RerankerBaseOptions } from '../rerank.js';
import { consentAllows, rerankConsentAllows } from './consent.js';

/** What `createConfiguredReranker()` needs: the database (consent rows), the validated config, the key and the redaction pass. */
export interface ConfiguredRerankerOptions extends RerankerBaseOptions {
  db: RecallDatabase;
}

/**
 * The reranker of a profile: null unless semantic search is configured and switched on and a
 * `semantic.rerank` section exists. Text of a project is sent only while the project is switched
 * on for the configured embedding endpoint AND its consent names the configured rerank endpoint
 * (consent given before the reranker was added, or for another one, does not cover it: the project
 * is switched on again to include it); a conversation without a project is never reranked.
 */
export function createConfiguredReranker(options: ConfiguredRerankerOptions): ConfiguredReranker | null {
  const { db, config } = options;
  if (!config?.enabled || !config.rerank) return null;
  const rerank = config.rerank;
  return buildReranker(options, rerank, (scope): Decision => {
    if (scope.kind !== 'project') return NO_PROJECT;
    if (!consentAllows(db, scope.projectId, config.endpoint)) return NOT_SWITCHED_ON;
    if (!rerankConsentAllows(db, scope.projectId, config.endpoint, rerank.endpoint)) return withoutReranker(rerank.endpoint);
    return { allowed: true };
  });
}
