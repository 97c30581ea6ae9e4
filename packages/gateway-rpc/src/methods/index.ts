/**
 * The gateway's method table: every JSON-RPC method registered in one registry, plus two
 * introspection methods (`rpc.discover` with each method's JSON Schema, `gateway.info`). Adding a
 * method means adding it to one of the lists below and a row to docs/rpc.md (a test checks both).
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { CallContext } from '../context.js';
import { MethodRegistry } from '../jsonrpc.js';
import { GATEWAY_VERSION } from '../version.js';
import { chatMethods } from './chat.js';
import { method, type GatewayMethod } from './common.js';
import { importMethods } from './import.js';
import { indexMethods } from './index-status.js';
import { pageMethods } from './pages.js';
import { projectMethods } from './projects.js';
import { searchMethods } from './search.js';
import { sessionMethods } from './sessions.js';

/** The `recall` launcher of this installation (stable across src/dist), for `gateway.info.mcpCommand`. */
const RECALL_BIN = fileURLToPath(new URL('../../bin/recall.js', import.meta.url));

export const DOMAIN_METHODS: readonly GatewayMethod[] = [...projectMethods, ...sessionMethods, ...pageMethods, ...searchMethods, ...indexMethods, ...importMethods, ...chatMethods];

export function createMethodRegistry(): MethodRegistry<CallContext> {
  const registry = new MethodRegistry<CallContext>();
  registry.register(...DOMAIN_METHODS);
  registry.register(
    method('gateway.info', 'Which profile this gateway serves and its version.', z.strictObject({}), (_p, ctx) => ({
      profile: ctx.profile,
      version: GATEWAY_VERSION,
      searchAvailable: ctx.searchTool !== null,
      // Exactly how an MCP client starts `recall mcp` on this profile (the desktop's "Use with an
      // agent" shows it); the client appends one scope flag.
      mcpCommand: {
        command: process.execPath,
        args: [RECALL_BIN, 'mcp', '--home', ctx.home, ...(ctx.profile === 'default' ? [] : ['--profile', ctx.profile])],
      },
    })),
    method('rpc.discover', 'Every method with its summary and the JSON Schema of its params.', z.strictObject({}), () => ({
      methods: registry.list().map((m) => ({ name: m.name, summary: m.summary, params: z.toJSONSchema(m.params, { io: 'input', unrepresentable: 'any' }) })),
    })),
  );
  return registry;
}
