/**
 * `import.jsonl`: imports a recall-jsonl v1 document (DESIGN §8) sent as text — the desktop's "Load
 * demo data" and scripts that prefer the wire to the CLI. The work is the same importer as
 * `recall import` (@recall/importers' recall-jsonl importer): line errors come back in the summary (by line number with a
 * stable code) rather than as a JSON-RPC error, because valid lines are still imported. The text is
 * bounded by the transport's body limit (1 MiB by default) before it ever reaches this handler.
 * Afterwards one change event per kind lets every connected UI refresh its sidebar. An import that
 * stops part-way (a full disk) answers its error (`disk_full`) with the committed counts in `data`.
 * The methods' names, summaries and params schemas are the contract's
 * (@recall/rpc-contract, src/methods/import.ts); this module holds their handlers.
 */
import { ImportAbortedError, importJsonlText } from '@recall/importers';
import type { ImportSummary } from '@recall/rpc-contract';
import type { CallContext } from '../context.js';
import { method, type GatewayMethod } from './common.js';

function announce(ctx: CallContext, counts: { projects: number; sessions: number; sessionsUpdated: number; messages: number }): void {
  if (counts.projects > 0) ctx.events.emit({ type: 'projects.changed' });
  if (counts.sessions > 0 || counts.sessionsUpdated > 0) ctx.events.emit({ type: 'sessions.changed', unassigned: true });
  if (counts.messages > 0) ctx.events.emit({ type: 'messages.changed' });
}

export const importMethods: GatewayMethod[] = [
  method('import.jsonl', async (p, ctx): Promise<ImportSummary> => {
    // The profile's SQLite file when there is one (its bulk batches), else the storage ports (a
    // PostgreSQL team database): the same importer, the same per-line rules.
    const target = ctx.db ?? ctx.storage;
    let summary: ImportSummary;
    try {
      summary = await importJsonlText(target, p.text);
    } catch (error) {
      // Stopped part-way (a full disk: `disk_full`): the error's data holds exactly what was
      // committed, and the clients hear about that part too.
      if (error instanceof ImportAbortedError) announce(ctx, error.committed);
      throw error;
    }
    announce(ctx, summary);
    return summary;
  }),
];
