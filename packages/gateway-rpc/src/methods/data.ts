/**
 * The user's data out and away: `projects.export` / `conversations.export` answer with the file's
 * text (bounded by the importers' exportText; `export_too_large` past it), and
 * `conversations.delete` / `conversations.purge_hidden` delete for real through the storage's
 * PurgeStore (SQLite: rows removed and the text scrubbed from the file; PostgreSQL: one transaction
 * each, keyword rows and chunks removed with their messages). They run on the storage ports, so the
 * same answers and typed errors come from a profile file and from a team database. The methods'
 * names, summaries and params are the contract's (@recall/rpc-contract, src/methods/data.ts);
 * `projects.delete` with `withConversations` is in projects.ts.
 */
import { exportFileName, exportText, type ExportFormat, type ExportScope } from '@recall/importers';
import type { PurgeOutcome } from '@recall/storage-ports';
import type { CallContext } from '../context.js';
import { method, purgesOf, type GatewayMethod } from './common.js';

async function exported(ctx: CallContext, scope: ExportScope, format: ExportFormat) {
  const { text, counts } = await exportText(ctx.storage, scope, format);
  return { fileName: await exportFileName(ctx.storage, scope, format), mimeType: format === 'markdown' ? 'text/markdown; charset=utf-8' : 'application/x-ndjson; charset=utf-8', text, ...counts };
}

function purged(ctx: CallContext, result: PurgeOutcome): PurgeOutcome {
  if (result.sessionIds.length > 0) {
    ctx.events.emit({ type: 'sessions.changed', sessionIds: result.sessionIds, projectIds: result.projectIds, ...(result.projectIds.length === 0 ? { unassigned: true } : {}) });
    ctx.events.emit({ type: 'projects.changed', projectIds: result.projectIds });
  }
  return result;
}

export const dataMethods: GatewayMethod[] = [
  method('projects.export', (p, ctx) => exported(ctx, { projectId: p.projectId }, p.format)),
  method('conversations.export', (p, ctx) => exported(ctx, { sessionId: p.sessionId }, p.format)),
  method('conversations.delete', async (p, ctx) => purged(ctx, await purgesOf(ctx, 'Deleting a conversation for good').deleteConversation(p.sessionId))),
  method('conversations.purge_hidden', async (p, ctx) => {
    const result = await purgesOf(ctx, 'Removing hidden messages for good').purgeHidden(p.sessionId);
    if (result.messages > 0) ctx.events.emit({ type: 'messages.changed', sessionIds: result.sessionIds, messageIds: [], projectIds: result.projectIds });
    return result;
  }),
];
