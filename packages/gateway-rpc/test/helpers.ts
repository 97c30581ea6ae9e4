/**
 * Test helpers: real gateways on 127.0.0.1:0 over a temp home (real SQLite files); the client half
 * (raw HTTP, JSON-RPC over HTTP and WebSocket, row counts) is shared with the CLI's tests through
 * @recall/config/gateway-client. No mocks: every test talks to the real server and the real store.
 */
import type { RecallDatabase } from '@recall/schema';
import { startGateway, type Gateway, type GatewayContext, type StartGatewayOptions } from '../src/index.js';
import { cleanup, collectingLogger, onCleanup, tempHome, type LogEntry } from '@recall/config/gateway-client';

export { cleanup, collectingLogger, tempHome };
export type { LogEntry };

/** A started test gateway; these run on the profile's SQLite file, so `context.db` is there. */
export interface TestGateway extends Gateway {
  logs: LogEntry[];
  readonly context: GatewayContext & { readonly db: RecallDatabase };
}

export async function startTestGateway(options: Partial<StartGatewayOptions> = {}): Promise<TestGateway> {
  const logger = collectingLogger();
  const gw = await startGateway({ home: options.home ?? tempHome(), port: 0, uiDir: null, logger, searchTool: null, ...options });
  onCleanup(() => gw.close());
  if (gw.context.db === null) throw new Error('startTestGateway: expected a SQLite profile');
  return Object.assign(gw, { logs: logger.entries }) as TestGateway;
}

export {
  rawRequest,
  postRpc,
  rpcRaw,
  rpc,
  rpcError,
  rowCounts,
  wsConnect,
  chatEvents,
  waitForRunEnd,
  createProject,
  createConversation,
  messagesOf,
} from '@recall/config/gateway-client';
export type { RawResponse, RawRequest, RpcErrorShape, RowCounts, WsClient, GatewayEndpoint } from '@recall/config/gateway-client';
