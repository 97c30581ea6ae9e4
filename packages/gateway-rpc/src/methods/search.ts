/**
 * `search.session_search`: the agent-facing recall tool over JSON-RPC. The caller names its own
 * current session (`sessionId`, trusted context); the tool re-reads that session's stored project
 * from the database on every call, so the scope is never an argument and a move is effective for
 * the very next search. Or it names a whole project (`projectId`, the desktop's project-wide
 * search): the same project scope `recall mcp --project` runs the tool with. Calls are not queued behind moves: a search that started before a move
 * completes with the scope it read, the next one sees the new project. The tool's arguments are
 * passed through in its own snake_case spelling and its JSON result is returned verbatim —
 * including a tool-level `error: {code, message}` (e.g. `not_found` for an out-of-scope
 * session_id), which is part of the result contract, not a JSON-RPC error.
 * The methods' names, summaries and params schemas are the contract's
 * (@recall/rpc-contract, src/methods/search.ts); this module holds their handlers.
 */
import type { RpcResult } from '@recall/rpc-contract';
import { GatewayError } from '../errors.js';
import { definedOnly, method, type GatewayMethod } from './common.js';

export const searchMethods: GatewayMethod[] = [
  method('search.session_search', async (p, ctx) => {
    const { sessionId, projectId, ...args } = p;
    // Unknown current session → session_not_found, unknown project → project_not_found, whatever
    // the tool would have said. The params schema admits exactly one of the two.
    if (sessionId !== undefined) await ctx.storage.sessions.getRecord(sessionId);
    else await ctx.storage.projects.get(projectId!);
    const tool = ctx.searchTool;
    if (tool === null) {
      throw new GatewayError('search_unavailable', 'The session_search tool is not available in this gateway build.');
    }
    // The executor may answer from a worker thread (structured clone, so untyped here); the tool's
    // result is the contract's sessionSearchResultSchema — search-tool's shape tests and
    // test/result-contract.test.ts parse real results with it.
    const trusted = sessionId !== undefined ? { profile: ctx.profile, currentSessionId: sessionId } : { profile: ctx.profile, projectId: projectId! };
    return (await tool.execute(definedOnly(args), trusted)) as RpcResult<'search.session_search'>;
  }),
];
