/**
 * Public surface of @recall/gateway-rpc: `startGateway()` (HTTP + WebSocket JSON-RPC and the desktop
 * UI on 127.0.0.1), configuration loading (the only reader of process.env), the token file, the
 * protocol layer and method registry, the event hub and the error-code mapping. The CLI, import and
 * MCP modules of this package build on these exports.
 */
export { startGateway, DEFAULT_BODY_LIMIT_BYTES, DEFAULT_PORT, DEFAULT_PROFILE } from './server.js';
export type { Gateway, StartGatewayOptions } from './server.js';
export {
  GatewayError,
  ConfigError,
  TokenFileError,
  JsonRpcError,
  DOMAIN_ERROR_CODES,
  DOMAIN_ERROR_FALLBACK,
  JSONRPC_PARSE_ERROR,
  JSONRPC_INVALID_REQUEST,
  JSONRPC_METHOD_NOT_FOUND,
  JSONRPC_INVALID_PARAMS,
  JSONRPC_INTERNAL_ERROR,
  toJsonRpcError,
  rpcCodeFor,
  registerDomainErrorClass,
} from './errors.js';
export type { DomainErrorCode, ChatErrorCode, JsonRpcErrorObject, ErrorLogger } from './errors.js';
export { defineMethod, MethodRegistry, dispatch, handleRpcText, serializeResponse, notification, MAX_BATCH_SIZE } from './jsonrpc.js';
export type { JsonRpcId, JsonRpcResponse, JsonRpcSuccess, JsonRpcFailure, JsonRpcNotification, MethodDefinition, MethodHandler, DispatchOptions } from './jsonrpc.js';
export { ensureToken, tokenPath, tokenMatches, bearerToken, generateToken, TOKEN_FILE_NAME } from './token.js';
export { EventHub, EVENT_TYPES } from './events.js';
export type { GatewayEvent, GatewayEventType, HubEvent, EventListener, EventInput } from './events.js';
export { consoleLogger, silentLogger, DEFAULT_LAUNCHER } from './context.js';
export type { GatewayContext, CallContext, GatewayLogger, SessionSearchExecutor, SearchCallContext, Transport, RecallLauncher } from './context.js';
export { openProfileDatabase, listProfiles } from './profiles.js';
export { createMethodRegistry, DOMAIN_METHODS } from './methods/index.js';
export type { IndexService, IndexServiceProjectStatus, IndexServiceProvider, IndexServiceWorker, SemanticBinding, SemanticPlugin, SemanticPluginDeps, SemanticSearchBinding } from './index-service.js';
export { injectToken } from './static.js';
export { GATEWAY_VERSION } from './version.js';
export { tightenHome } from './home-permissions.js';
export type { TightenedPath } from './home-permissions.js';
