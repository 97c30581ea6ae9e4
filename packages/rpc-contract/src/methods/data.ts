/**
 * The user's own data, out and away: export a project or a conversation (`projects.export`,
 * `conversations.export`: the file's text, bounded, for the desktop's "Export…" download) and
 * delete for real (`conversations.delete`: a whole logical conversation; `conversations.purge_hidden`:
 * its rewound and soft-deleted messages). Deleting a project with its conversations is
 * `projects.delete` with `withConversations: true` (src/methods/projects.ts). Unlike the soft
 * `session.delete` of one message, these remove the text from the database file.
 */
import { z } from 'zod';
import { projectIdField, sessionIdField } from '../fields.js';
import { methodGroup } from '../method-spec.js';

/** The export formats: `recall-jsonl` (re-importable, docs/import-format.md) and `markdown` (for people). */
export const EXPORT_FORMAT_NAMES = ['recall-jsonl', 'markdown'] as const;
const formatField = z.enum(EXPORT_FORMAT_NAMES).default('recall-jsonl').describe('"recall-jsonl" (re-importable, default) or "markdown" (for people)');

export const DATA_METHODS = methodGroup({
  'projects.export': {
    summary: 'The export of a whole project (its conversations, hidden and archived ones included) as recall-jsonl or Markdown text; refused with export_too_large past 32 MiB (use recall export --to FILE).',
    params: z.strictObject({ projectId: projectIdField, format: formatField }),
  },
  'conversations.export': {
    summary: 'The export of the logical conversation a session belongs to (root, continuations, sub-agent sessions) as recall-jsonl or Markdown text; bounded like projects.export.',
    params: z.strictObject({ sessionId: sessionIdField.describe('Any session of the conversation'), format: formatField }),
  },
  'conversations.delete': {
    summary: 'Delete for real the whole logical conversation a session belongs to: every segment, message, keyword index row and semantic chunk, scrubbed from the database file. Cannot be undone.',
    params: z.strictObject({ sessionId: sessionIdField.describe('Any session of the conversation') }),
  },
  'conversations.purge_hidden': {
    summary: "Delete for real the rewound and soft-deleted messages of a session's logical conversation (kept and recoverable until then); live and compacted messages stay.",
    params: z.strictObject({ sessionId: sessionIdField.describe('Any session of the conversation') }),
  },
});
