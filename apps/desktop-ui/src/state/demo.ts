/**
 * "Load demo data": fetches the demo history shipped with the UI (public/demo/recall-demo.jsonl,
 * recall-jsonl v1) and imports it through the gateway's `import.jsonl` method. Importing twice is
 * harmless: the format is idempotent by external ids.
 */
import { isMethodNotFound, RpcError, type RpcClient } from '../rpc';
import { JSONRPC_METHOD_NOT_FOUND, type ImportSummary } from '@recall/rpc-contract';

export const DEMO_URL = './demo/recall-demo.jsonl';

export async function importDemo(rpc: RpcClient): Promise<ImportSummary> {
  const res = await fetch(DEMO_URL);
  if (!res.ok) throw new Error(`The demo file could not be loaded (HTTP ${res.status})`);
  const text = await res.text();
  try {
    return await rpc.call('import.jsonl', { text });
  } catch (err) {
    if (isMethodNotFound(err)) {
      throw new RpcError(
        'import.jsonl',
        JSONRPC_METHOD_NOT_FOUND,
        'This gateway cannot import yet; from the repository run `npx -y pnpm@10 recall import apps/desktop-ui/public/demo/recall-demo.jsonl`',
        { code: 'method_not_found' },
      );
    }
    throw err;
  }
}

export function describeImport(r: ImportSummary): string {
  const created = r.projects + r.sessions + r.messages;
  const base =
    created === 0 && (r.skipped ?? 0) > 0
      ? 'The demo history is already imported; nothing changed'
      : // Not r.sessions as "conversations": a continuation is a session of its conversation, and the
        // sidebar, counting conversations, would then show fewer than the notice promised.
        `Imported ${r.projects} projects and ${r.messages} messages`;
  const errors = r.errorCount ?? r.errors.length;
  if (errors === 0) return base;
  const first = r.errors[0];
  return `${base}; ${errors} lines were rejected${first ? ` (line ${first.line}: ${first.message} [${first.code}])` : ''}`;
}
