/**
 * `index.*` params: the state of recall's indexes (`index.status`) and the controls of the
 * semantic index — the explicit per-project consent (`index.project.enable` / `disable`), backfill
 * on request (`index.run`), `index.pause` and `index.rebuild` (derived rows only).
 */
import { z } from 'zod';
import { projectIdField } from '../fields.js';
import { methodGroup } from '../method-spec.js';

const optionalProject = z.strictObject({ projectId: projectIdField.optional().describe('Only this project (default: every project)') });

export const INDEX_METHODS = methodGroup({
  'index.status': {
    summary: 'Keyword index counts and the semantic index per project: consent, chunk counts, worker state, last error.',
    params: optionalProject,
  },
  'index.project.enable': {
    summary:
      'Switch semantic indexing on for a project (explicit consent): its existing and new messages are sent to the named endpoint, and search questions with top matches to the configured reranker; the consent records both.',
    params: z.strictObject({
      projectId: projectIdField,
      endpoint: z
        .string()
        .min(1)
        .max(2048)
        .optional()
        .describe('The embedding endpoint the person was shown (index.status provider.endpoint); when given and no longer the one in use, nothing is recorded (consent_endpoint_changed)'),
      rerankEndpoint: z
        .string()
        .min(1)
        .max(2048)
        .nullable()
        .optional()
        .describe('The reranker endpoint the person was shown (index.status provider.reranker.endpoint; null = none was shown); when given and not the one configured now, nothing is recorded (consent_endpoint_changed)'),
    }),
  },
  'index.project.disable': {
    summary: 'Switch semantic indexing off for a project: nothing more is sent; nothing is deleted.',
    params: z.strictObject({ projectId: projectIdField }),
  },
  'index.run': {
    summary: 'Backfill now: one project (or every switched-on project). Returns at once unless wait is true; progress arrives as index.changed events.',
    params: z.strictObject({
      projectId: projectIdField.optional().describe('Only this project (default: every switched-on project)'),
      wait: z.boolean().default(false).describe('Answer only when the backfill stopped (done, paused, provider unavailable); default false'),
    }),
  },
  'index.pause': {
    summary: 'Pause the semantic index worker after the batch in flight (index.run resumes it).',
    params: z.strictObject({}),
  },
  'index.rebuild': {
    summary: 'Drop the semantic index rows (derived data only) of one project or all, and re-index with the active model.',
    params: optionalProject,
  },
});
