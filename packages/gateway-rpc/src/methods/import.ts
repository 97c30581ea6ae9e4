/**
 * `import.jsonl`: imports a recall-jsonl v1 document (DESIGN §8) sent as text — the desktop's "Load
 * demo data" and scripts that prefer the wire to the CLI. The work is the same importer as
 * `recall import` (@recall/importers' recall-jsonl importer): line errors come back in the summary (by line number with a
 * stable code) rather than as a JSON-RPC error, because valid lines are still imported. The text is
 * bounded by the transport's body limit (1 MiB by default) before it ever reaches this handler.
 * Afterwards one change event per kind lets every connected UI refresh its sidebar.
 * The methods' names, summaries and params schemas are the contract's
 * (@recall/rpc-contract, src/methods/import.ts); this module holds their handlers.
 */
import { importJsonlText } from '@recall/importers';
import type { ImportSummary } from '@recall/rpc-contract';
import { method, type GatewayMethod } from './common.js';

export const importMethods: GatewayMethod[] = [
  method('import.jsonl', async (p, ctx): Promise<ImportSummary> => {
    const summary = await importJsonlText(ctx.db, p.text);
    if (summary.projects > 0) ctx.events.emit({ type: 'projects.changed' });
    if (summary.sessions > 0 || summary.sessionsUpdated > 0) ctx.events.emit({ type: 'sessions.changed', unassigned: true });
    if (summary.messages > 0) ctx.events.emit({ type: 'messages.changed' });
    return summary;
  }),
];
