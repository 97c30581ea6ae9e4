/**
 * The user's data out and away: `projects.export` / `conversations.export` answer with the file's
 * text (bounded by the importers' exportText; `export_too_large` past it), and
 * `conversations.delete` / `conversations.purge_hidden` delete for real through the store's purge
 * functions, which scrub the text from the database file. The methods' names, summaries and params
 * are the contract's (@recall/rpc-contract, src/methods/data.ts). Not on the storage ports yet: on a
 * PostgreSQL team database they answer `storage_unsupported`; `projects.delete` with
 * `withConversations` is in projects.ts.
 */
import { exportFileName, exportText, type ExportFormat, type ExportScope } from '@recall/importers';
import { deleteConversation, purgeHiddenMessages, type PurgeResult } from '@recall/store';
import type { CallContext } from '../context.js';
import { method, sqliteOnly, type GatewayMethod } from './common.js';

function exported(ctx: CallContext, scope: ExportScope, format: ExportFormat) {
  const db = sqliteOnly(ctx, 'Exporting conversations');
  const { text, counts } = exportText(db, scope, format);
  return { fileName: exportFileName(db, scope, format), mimeType: format === 'markdown' ? 'text/markdown; charset=utf-8' : 'application/x-ndjson; charset=utf-8', text, ...counts };
}

function purged(ctx: CallContext, result: PurgeResult): PurgeResult {
  if (result.sessionIds.length > 0) {
    ctx.events.emit({ type: 'sessions.changed', sessionIds: result.sessionIds, projectIds: result.projectIds, ...(result.projectIds.length === 0 ? { unassigned: true } : {}) });
    ctx.events.emit({ type: 'projects.changed', projectIds: result.projectIds });
  }
  return result;
}

export const dataMethods: GatewayMethod[] = [
  method('projects.export', (p, ctx) => exported(ctx, { projectId: p.projectId }, p.format)),
  method('conversations.export', (p, ctx) => exported(ctx, { sessionId: p.sessionId }, p.format)),
  method('conversations.delete', (p, ctx) => purged(ctx, deleteConversation(sqliteOnly(ctx, 'Deleting a conversation for good'), p.sessionId))),
  method('conversations.purge_hidden', (p, ctx) => {
    const result = purgeHiddenMessages(sqliteOnly(ctx, 'Removing hidden messages for good'), p.sessionId);
    if (result.messages > 0) ctx.events.emit({ type: 'messages.changed', sessionIds: result.sessionIds, messageIds: [], projectIds: result.projectIds });
    return result;
  }),
];
