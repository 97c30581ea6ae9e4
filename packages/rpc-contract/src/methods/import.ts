/**
 * `import.jsonl` params: a recall-jsonl v1 document (docs/import-format.md) sent as text — the
 * desktop's "Load demo data" and scripts that prefer the wire to the CLI. The text is bounded by
 * the transport's body limit (1 MiB by default) before it ever reaches the schema.
 */
import { z } from 'zod';
import { methodGroup } from '../method-spec.js';

export const IMPORT_METHODS = methodGroup({
  'import.jsonl': {
    summary: 'Import recall-jsonl v1 text (projects, sessions, messages); idempotent; line errors are reported in the result.',
    params: z
      .strictObject({
        text: z
          .string()
          .min(1)
          .max(16 * 1024 * 1024)
          .describe('recall-jsonl v1 document: one JSON object per line (project, session or message records)'),
      })
      .describe('Import recall-jsonl text; idempotent (re-importing the same text writes nothing)'),
  },
});
