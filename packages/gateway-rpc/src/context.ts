/**
 * What every method handler receives: the profile's storage (@recall/storage-ports: the SQLite file
 * of the profile, or a PostgreSQL team database), the SQLite handle (null on PostgreSQL), the profile/home it belongs to, the event hub for change notifications, the
 * optional session_search tool, the semantic index and a logger. Handlers get nothing else — no env, no globals — so the
 * same handlers run under the HTTP server, the WebSocket server and direct in-process calls.
 */
import type { RecallDatabase } from '@recall/schema';
import type { Storage } from '@recall/storage-ports';
import type { ChatRuns } from '@recall/chat';
import type { RedactionPolicy } from '@recall/redaction';
import type { SearchCallContext, SessionSearchExecutor } from '@recall/search-tool';
import type { EventHub } from './events.js';
import type { IndexService } from './index-service.js';

/** The logger the gateway and its handlers write to; `meta` is structured context (never secrets). */
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

/** Drops everything (tests, benches, embedders with their own logging). */
export const silentLogger: GatewayLogger = { info: () => {}, warn: () => {}, error: () => {} };

// The shape the gateway needs from the session_search tool, and its trusted call context, are the
// chat package's (the chat loop runs the model's tool calls on the same executor).
export type { SearchCallContext, SessionSearchExecutor };

/** What every method handler can use: built once by `startGateway` (`gateway.context`), or by you to dispatch without a server. */
export interface GatewayContext {
  /** Where every method reads and writes (the storage ports): the profile's SQLite file or a PostgreSQL team database. */
  readonly storage: Storage;
  /**
   * The profile's open read-write SQLite database (the semantic index and the search workers use
   * it); `null` on PostgreSQL. Every method handler reads and writes through `storage`.
   */
  readonly db: RecallDatabase | null;
  /** The Recall home folder. */
  readonly home: string;
  /** The profile `db` belongs to. */
  readonly profile: string;
  /** Where handlers emit change events after their writes commit. */
  readonly events: EventHub;
  /** Where handlers log. */
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
  /**
   * How an MCP client starts this installation's `recall` (command + leading args; `gateway.info`
   * appends `mcp --home H [--profile P]`). The CLI passes node and its own bin.
   */
  readonly launcher: RecallLauncher;
  /**
   * The redaction policy of this process (what chat sends to its model is redacted by it);
   * `gateway.info` reports its counts. Absent in contexts built outside startGateway.
   */
  readonly redaction?: RedactionPolicy;
}

/** A command line that runs `recall`, e.g. `{ command: '/usr/bin/node', args: ['/…/bin/recall.js'] }`. */
export interface RecallLauncher {
  readonly command: string;
  readonly args: readonly string[];
}

/** `recall` found on the PATH: what a host that does not say otherwise advertises. */
export const DEFAULT_LAUNCHER: RecallLauncher = { command: 'recall', args: [] };

/** How a call arrived: HTTP POST, WebSocket, or in-process (`gateway.call`, `dispatch`). */
export type Transport = 'http' | 'ws' | 'direct';

/** Per-call view handed to handlers: the gateway's context plus the transport of this call. */
export interface CallContext extends GatewayContext {
  /** How this call arrived. */
  readonly transport: Transport;
}
