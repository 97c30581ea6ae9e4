/**
 * Public surface of @recall/chat: the chat loop whose model can call `session_search`. `ChatRuns`
 * owns every answer in progress (persist the user's message first, stream the model, run its tool
 * calls with the trusted context, store each complete message, emit `chat.*` events); the settings
 * rules, the history mapping and the error classification are exported for hosts and tests. The
 * host (gateway-rpc) supplies the storage (or an open SQLite database), an event sink, a logger and
 * the search executor.
 */

/**
 * Owner of the runs in progress, on the storage ports (SQLite or PostgreSQL): `start`, `checkOpen`,
 * `cancel`, `status`, `assertIdle`, `exclusive` (hold an idle session while writing to it), `shutdown`.
 */
export { ChatRuns } from './runs.js';
/** The newest compression continuation of a session (read through a Storage), or null when the conversation did not go on elsewhere. */
export { latestContinuation } from './runs.js';
/** What `ChatRuns` is constructed with (storage or database, profile, event sink, logger, search executor) and what `start` returns. */
export type { ChatRunsDeps, ChatRunHandle } from './runs.js';

/** Turns raw chat settings (model, base URL, key, limits) into the validated settings a run uses; throws `ChatConfigError`. */
export { resolveChatSettings } from './config.js';
/** The `chat.status` view of the settings: never the key, only whether one is set. */
export { publicChatSettings } from './config.js';
/** The endpoint as safe to show (scheme, host, port, path; no user-info or query string). */
export { displayBaseUrl } from './config.js';
/** The zod schema of the raw chat settings (bounds and defaults of the limits). */
export { chatSettingsInputSchema } from './config.js';
/** The human hint of how to configure a chat model (shown by `chat.status` and `chat_not_configured`). */
export { HOW_TO_CONFIGURE } from './config.js';
/** Defaults of the limits: tool rounds per turn, per-turn deadline in ms, retries of a model request. */
export { DEFAULT_MAX_TOOL_ROUNDS, DEFAULT_TURN_TIMEOUT_MS, DEFAULT_MAX_RETRIES } from './config.js';
/** The endpoint used when no base URL is configured (an API key is then required). */
export { OPENAI_DEFAULT_BASE_URL } from './config.js';
/** Raw settings as a host passes them, the resolved settings, and the limits reported by `chat.status`. */
export type { ChatSettingsInput, ChatSettings, ChatStatusLimits } from './config.js';

/** Every live message of a session in id order, read through the storage ports: the context a turn is answered from. */
export { loadLiveHistory } from './history.js';
/** Stored messages → chat-completions messages, with unpaired tool calls/results left out. */
export { toModelMessages } from './history.js';
/** Parses a stored `toolCalls` column (ours or an importer's); anything not in the wire shape is ignored. */
export { parseToolCalls } from './history.js';
/** Serialises tool calls into the stored `toolCalls` column (the OpenAI `tool_calls` array as JSON). */
export { serializeToolCalls } from './history.js';
/** One stored tool call, in the chat-completions wire shape. */
export type { StoredToolCall } from './history.js';

/** One chat turn: the streamed tool-calling loop (the building block `ChatRuns` drives). */
export { runChatTurn, MAX_TOOL_CALLS_PER_ROUND } from './loop.js';
/** Input and result of one turn. */
export type { ChatTurnInput, ChatTurnResult } from './loop.js';
/** The tool definitions offered to the model: `session_search` when the host has an executor. */
export { chatToolDefinitions } from './tools.js';
/** Runs one model tool call with the trusted context; never throws (failures become `{ error }` results). */
export { executeToolCall } from './tools.js';
/** A tool call as assembled from the stream, and what executing it produced. */
export type { ModelToolCall, ToolOutcome } from './tools.js';

/** Maps anything thrown while talking to the endpoint to a `ChatError`; `abortError` names a cancel, deadline or shutdown. */
export { classifyChatError, abortError } from './classify.js';
/** Why a run was aborted by its owner: `cancelled`, `deadline` or `shutdown`. */
export type { AbortReason } from './classify.js';

/** The package's errors: the base class, chat_* refusals/failures, invalid settings, and send during shutdown. */
export { ChatModuleError, ChatError, ChatConfigError, ChatShuttingDownError } from './errors.js';

/** What the host provides besides the search executor (typed by @recall/search-tool's `SessionSearchExecutor`): an event sink and a logger. */
export type { ChatEventSink, ChatSinkEvent, ChatMessagesChangedEvent, ChatLogger } from './host.js';
