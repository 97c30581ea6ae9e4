/**
 * Public surface of @recall/gateway-rpc, for running the Recall gateway in your own process:
 * `startGateway()` (HTTP + WebSocket JSON-RPC, and optionally a built UI, on 127.0.0.1), the
 * `SemanticPlugin`/`IndexService` seam through which a host plugs in stage B, the errors and the one
 * exception → JSON-RPC error mapping, the method registry and dispatch (to add methods or to run the
 * gateway's methods without a server), the event hub, the token and launch-URL/session-cookie helpers, and the profile database.
 * The wire vocabulary itself (error-code numbers, event types, method names and result shapes) is
 * `@recall/rpc-contract`'s: import it from there.
 */
export { startGateway, DEFAULT_PORT, DEFAULT_PROFILE } from './server.js';
export type { Gateway, StartGatewayOptions } from './server.js';
export { GatewayError, ConfigError, TokenFileError, JsonRpcError, toJsonRpcError, registerDomainErrorClass } from './errors.js';
export type { JsonRpcErrorObject, ErrorLogger } from './errors.js';
export { defineMethod, MethodRegistry, dispatch, handleRpcText } from './jsonrpc.js';
export type { JsonRpcId, JsonRpcResponse, JsonRpcSuccess, JsonRpcFailure, MethodDefinition, MethodHandler, DispatchOptions } from './jsonrpc.js';
export { createMethodRegistry } from './methods/index.js';
export { ensureToken, tokenPath, tokenMatches, bearerToken } from './token.js';
export { DEFAULT_LAUNCH_CODE_TTL_MS, sessionCookieName } from './browser-sessions.js';
export { EventHub } from './events.js';
export type { HubEvent, EventListener, EventInput } from './events.js';
export { consoleLogger, silentLogger, DEFAULT_LAUNCHER } from './context.js';
export type { GatewayContext, CallContext, GatewayLogger, Transport, RecallLauncher } from './context.js';
export { openProfileDatabase } from './profiles.js';
export { idleProjectStatus } from './index-service.js';
export type { IndexService, IndexServiceProjectStatus, IndexServiceProvider, IndexServiceWorker, SemanticBinding, SemanticPlugin, SemanticPluginDeps, SemanticSearchBinding } from './index-service.js';
export { GATEWAY_VERSION } from './version.js';
export { tightenHome } from './home-permissions.js';
export type { TightenedPath } from './home-permissions.js';
