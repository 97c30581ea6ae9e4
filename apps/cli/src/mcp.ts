/**
 * The stdio MCP server behind `recall mcp`: exposes exactly one tool, `session_search`, to any
 * MCP-capable agent, using the official SDK. The search scope is fixed when the host starts the
 * process, never by the model: either a current session (`--session`; the tool re-reads that
 * session's stored project on every call, so a move made in the desktop meanwhile applies to the
 * next call, and its own live messages are left out) or a whole project (`--project`, `--cwd`, for
 * an agent whose transcript Recall does not hold). It is not a tool argument. We use the SDK's
 * low-level `Server` rather than `McpServer.registerTool` on purpose: it lets us advertise the
 * tool's own JSON Schema verbatim and leave argument validation to the tool, so MCP clients get the
 * same `error: { code, message }` result contract as the JSON-RPC and OpenAI-style callers instead
 * of an SDK-specific message. Results are one text content item holding the tool's JSON plus the
 * same object as `structuredContent`, described by the advertised `outputSchema` (MCP 2025-06-18);
 * `isError` is set when it has `error`. Every string of a result passes the redaction policy's
 * `search_results` surface first (@recall/redaction: secrets become `[redacted:KIND]`, `<private>`
 * spans always do), so what the agent's model reads never holds them; the database keeps the
 * original. stdout carries only protocol frames; diagnostics go to stderr.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sessionSearchOutputJsonSchema } from '@recall/search-tool';
import type { CliSearchTool } from './commands/tool.js';
import { CLI_VERSION } from './version.js';
import { RedactionPolicy } from '@recall/redaction';

export const MCP_SERVER_NAME = 'recall';

/** The host's choice, the only source of the search scope: a current session or a whole project. */
export type McpScope = { currentSessionId: string } | { projectId: string };

export interface McpServerOptions {
  tool: CliSearchTool;
  scope: McpScope;
  profile: string;
  /** Redacts every result before it is returned (its `search_results` surface); default: the built-in rules. */
  redaction?: RedactionPolicy;
}

export function createMcpServer(options: McpServerOptions): Server {
  const { tool, scope, profile } = options;
  const redaction = options.redaction ?? new RedactionPolicy();
  const trusted = 'currentSessionId' in scope ? { currentSessionId: scope.currentSessionId, profile } : { projectId: scope.projectId, profile };
  const where = 'currentSessionId' in scope ? "this conversation's project" : 'this project';
  const outputSchema = sessionSearchOutputJsonSchema() as { type: 'object'; [key: string]: unknown };
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- see the header: the low-level Server is deliberate.
  const server = new Server(
    { name: MCP_SERVER_NAME, version: CLI_VERSION },
    {
      capabilities: { tools: {} },
      instructions: `Recall: use ${tool.name} to find the original text of earlier conversations in ${where} (profile "${profile}").`,
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: tool.name,
        description: tool.description,
        inputSchema: tool.parameters as { type: 'object'; [key: string]: unknown },
        outputSchema,
        annotations: { title: 'Search earlier conversations of this project', readOnlyHint: true, openWorldHint: false, idempotentHint: true },
      },
    ],
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    if (request.params.name !== tool.name) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${JSON.stringify(request.params.name)}; this server has only ${tool.name}.`);
    }
    const result = redaction.value('search_results', await tool.execute(request.params.arguments ?? {}, trusted));
    return {
      content: [{ type: 'text', text: JSON.stringify(result) }],
      structuredContent: result as unknown as Record<string, unknown>,
      isError: result.error !== undefined,
    };
  });

  return server;
}

/**
 * Serves MCP on this process's stdin/stdout until the client closes stdin or `stop` resolves.
 * Resolves after the transport is closed; the caller then closes the database.
 */
export async function runMcpStdio(options: McpServerOptions, stop: Promise<unknown>): Promise<void> {
  const server = createMcpServer(options);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolveClosed) => {
    transport.onclose = () => resolveClosed();
  });
  // The SDK's stdio transport does not watch for end of input; a host that closes our stdin is done with us.
  const endOfInput = new Promise<void>((resolveEnd) => {
    process.stdin.once('end', () => resolveEnd());
    process.stdin.once('close', () => resolveEnd());
  });
  transport.onerror = (error) => process.stderr.write(`recall mcp: transport error: ${error.message}\n`);
  await server.connect(transport);
  await Promise.race([closed, endOfInput, stop]);
  await server.close();
}
