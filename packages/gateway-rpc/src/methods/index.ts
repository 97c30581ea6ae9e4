/**
 * The gateway's method table: every JSON-RPC method registered in one registry, plus two
 * introspection methods (`rpc.discover` with each method's JSON Schema, `gateway.info`). The names,
 * summaries and params schemas come from @recall/rpc-contract; adding a method means adding it
 * there, a handler to one of the lists below and a row to docs/rpc.md (tests check that the
 * registry, the contract and the docs list exactly the same methods with the same params).
 */
import { z } from 'zod';
import type { CallContext } from '../context.js';
import { MethodRegistry } from '../jsonrpc.js';
import { GATEWAY_VERSION } from '../version.js';
import { chatMethods } from './chat.js';
import { dataMethods } from './data.js';
import { method, type GatewayMethod } from './common.js';
import { importMethods } from './import.js';
import { indexMethods } from './index-status.js';
import { pageMethods } from './pages.js';
import { projectMethods } from './projects.js';
import { searchMethods } from './search.js';
import { sessionMethods } from './sessions.js';

/** Every domain method of the gateway (all but the introspection ones). */
export const DOMAIN_METHODS: readonly GatewayMethod[] = [...projectMethods, ...sessionMethods, ...pageMethods, ...searchMethods, ...indexMethods, ...importMethods, ...chatMethods, ...dataMethods];

/**
 * A new registry with every gateway method (projects.*, sessions.*, search.*, index.*, import.*,
 * chat.*, `gateway.info`, `rpc.discover`). `startGateway` uses one per server; use it with
 * {@link dispatch} and a `CallContext` to run the gateway's methods in-process without a server.
 * `gateway.info.mcpCommand` is built from the call context's `launcher` (see
 * `StartGatewayOptions.launcher`).
 */
export function createMethodRegistry(): MethodRegistry<CallContext> {
  const registry = new MethodRegistry<CallContext>();
  registry.register(...DOMAIN_METHODS);
  registry.register(
    method('gateway.info', (_p, ctx) => ({
      profile: ctx.profile,
      version: GATEWAY_VERSION,
      searchAvailable: ctx.searchTool !== null,
      // Exactly how an MCP client starts `recall mcp` on this profile (the desktop's "Use with an
      // agent" shows it); the client appends one scope flag.
      mcpCommand: {
        command: ctx.launcher.command,
        args: [...ctx.launcher.args, 'mcp', '--home', ctx.home, ...(ctx.profile === 'default' ? [] : ['--profile', ctx.profile])],
      },
      ...(ctx.redaction ? { redaction: ctx.redaction.stats() } : {}),
    })),
    method('rpc.discover', () => ({
      methods: registry.list().map((m) => ({ name: m.name, summary: m.summary, params: z.toJSONSchema(m.params, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown> })),
    })),
  );
  return registry;
}
