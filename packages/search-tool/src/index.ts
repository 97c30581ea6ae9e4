/**
 * Public surface of @recall/search-tool: the `session_search` tool (factory, OpenAI/MCP
 * definitions, JSON Schemas, result types), the executor seam hosts type their tool with, and the
 * semantic-source seam for stage B. The wire vocabulary the tool speaks (SEARCH_MODES, SORTS,
 * TOOL_ERROR_CODES, the argument and result zod schemas and their types) is exported by
 * @recall/rpc-contract, not here.
 */
export { createSessionSearchTool, openAiToolDefinition, SESSION_SEARCH_TOOL_NAME, SESSION_SEARCH_DESCRIPTION } from './tool.js';
export type { SessionSearchTool, SessionSearchToolOptions, SessionSearchContext } from './tool.js';
export type { SessionSearchExecutor, SearchCallContext } from './executor.js';
export { sessionSearchJsonSchema } from './arguments.js';
export { sessionSearchOutputJsonSchema } from './result-schema.js';
export { messageLink } from './result.js';
export type { SessionSearchResult, SearchResultItem, WindowMessage, MatchSource, MatchField, UsedMode, Shape } from './result.js';
export { estimateTokens, RESULT_TOKEN_BUDGET } from './budget.js';
export type { SemanticSource, SemanticStatus, SemanticStatusReply, SemanticCoverage, SemanticHit, FusionHints } from './semantic-source.js';
export type { ToolScope } from './scope.js';
export type { Reranker } from './reranker.js';
export { ToolError } from './errors.js';
