/**
 * Public surface of @recall/search-tool: the `session_search` tool (factory, argument schema,
 * result contract, OpenAI/MCP definitions), the semantic-source seam for stage B, and RRF.
 */
export { createSessionSearchTool, openAiToolDefinition, SESSION_SEARCH_TOOL_NAME, SESSION_SEARCH_DESCRIPTION } from './tool.js';
export type { SessionSearchTool, SessionSearchToolOptions, SessionSearchContext } from './tool.js';
export { sessionSearchArgsSchema, sessionSearchJsonSchema, SEARCH_MODES, SORTS } from './arguments.js';
export type { SessionSearchArgs, SessionSearchArgsInput, SearchMode } from './arguments.js';
export { messageLink } from './result.js';
export { sessionSearchResultSchema, sessionSearchOutputJsonSchema } from './result-schema.js';
export { estimateTokens, RESULT_TOKEN_BUDGET } from './budget.js';
export type { SessionSearchResult, SearchResultItem, WindowMessage, MatchSource, MatchField, UsedMode, Shape } from './result.js';
export type { SemanticSource, SemanticStatus, SemanticCoverage, SemanticHit } from './semantic-source.js';
export type { ToolScope } from './scope.js';
export { reciprocalRankFusion, RRF_K } from './rrf.js';
export { fuseRankings, fusionParamsFor, FUSION_DEFAULTS } from './fusion.js';
export type { FusionCandidate, FusionForm, FusionParams } from './fusion.js';
export type { FusedItem } from './rrf.js';
export { TOOL_ERROR_CODES, ToolError } from './errors.js';
export type { ToolErrorCode } from './errors.js';
