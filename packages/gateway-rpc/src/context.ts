/**
 * What every method handler receives: the profile's open database (one handle per server, opened
 * once at start), the profile/home it belongs to, the event hub for change notifications, the
 * optional session_search tool, the semantic index and a logger. Handlers get nothing else — no env, no globals — so the
 * same handlers run under the HTTP server, the WebSocket server and direct in-process calls.
 */
import type { RecallDatabase } from '@recall/schema';
import type { ChatRuns } from '@recall/chat';
import type { SearchCallContext, SessionSearchExecutor } from '@recall/search-tool';
import type { EventHub } from './events.js';
import type { IndexService } from './index-service.js';

export interface GatewayLogger {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
}

/** Logs to stderr, one line per entry; stdout stays free for the CLI's own output. */
export const consoleLogger: GatewayLogger = {
  info: (message, meta) => console.error(`[recall] ${message}${meta ? ` ${JSON.stringify(meta)}` : ''}`),
  warn: (message, meta) => console.error(`[recall] warning: ${message}${meta ? ` ${JSON.stringify(meta)}` : ''}`),
  error: (message, meta) => console.error(`[recall] error: ${message}${meta ? ` ${JSON.stringify(meta)}` : ''}`),
};

export const silentLogger: GatewayLogger = { info: () => {}, warn: () => {}, error: () => {} };

// The shape the gateway needs from the session_search tool, and its trusted call context, are the
// chat package's (the chat loop runs the model's tool calls on the same executor).
export type { SearchCallContext, SessionSearchExecutor };

export interface GatewayContext {
  readonly db: RecallDatabase;
  readonly home: string;
  readonly profile: string;
  readonly events: EventHub;
  readonly logger: GatewayLogger;
  /** `null` when the search tool is not wired in: search.session_search then answers `search_unavailable`. */
  readonly searchTool: SessionSearchExecutor | null;
  /** Chat runs (@recall/chat); absent in contexts built outside startGateway (e.g. one-shot CLI calls). */
  readonly chat?: ChatRuns;
  /**
   * The semantic index of this profile (stage B, plugged in through a SemanticPlugin): consent,
   * worker, status. Absent/null = not wired (index.* methods then report semantic as not configured).
   */
  readonly semantic?: IndexService | null;
}

export type Transport = 'http' | 'ws' | 'direct';

/** Per-call view handed to handlers. */
export interface CallContext extends GatewayContext {
  readonly transport: Transport;
}
