/**
 * The gateway process surface: one node:http server bound to 127.0.0.1 only, carrying JSON-RPC at
 * `/rpc` (HTTP POST, and WebSocket upgrade via the `ws` package) and the built desktop UI at `/`.
 * Every request passes, in order: Host check (127.0.0.1/localhost with our port — the DNS-rebinding
 * guard), Origin check (browsers only; our own origin plus explicit extras — so a foreign page cannot
 * ride on the session cookie), then for /rpc the Bearer token header or the browser session cookie
 * (never a URL parameter) before a single byte of the body is read, so an unauthenticated request
 * runs nothing. Browsers get that cookie from a one-time launch URL (browser-sessions.ts). Bodies are capped (413 / -32600; WebSocket close 1009).
 * `startGateway()` opens the profile database once (or serves the storage the host opened: a
 * PostgreSQL team database shared by several gateways), and `close()` stops accepting, lets in-flight
 * calls finish, closes sockets and then the database, so a shutdown loses no acknowledged write.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { URL } from 'node:url';
import type { Duplex } from 'node:stream';
import type { RecallDatabase } from '@recall/schema';
import { createSessionSearchTool } from '@recall/search-tool';
import type { Storage } from '@recall/storage-ports';
import { sqliteStorage } from '@recall/store';
import { WebSocketServer, type WebSocket } from 'ws';
import { consoleLogger, DEFAULT_LAUNCHER, type CallContext, type GatewayContext, type GatewayLogger, type RecallLauncher, type SessionSearchExecutor } from './context.js';
import { JSONRPC_INTERNAL_ERROR } from '@recall/rpc-contract';
import type { JsonRpcErrorObject } from './errors.js';
import { EventHub } from './events.js';
import { readBody, refuse, rpcErrorBody, sendJson } from './http-body.js';
import { serveWebSocket } from './ws-connection.js';
import { ConnectionSlots } from './connection-slots.js';
import { handleRpcText, type MethodRegistry } from './jsonrpc.js';
import { createMethodRegistry } from './methods/index.js';
import { openProfileDatabase } from './profiles.js';
import { createStaticHandler, SECURITY_HEADERS } from './static.js';
import { BrowserSessions, DEFAULT_LAUNCH_CODE_TTL_MS, handleLaunchVisit, sessionCookieName } from './browser-sessions.js';
import { bearerToken, ensureToken, tokenMatches } from './token.js';
import { defaultSearchWorkers, startSearchPool, type SearchPool } from './search-pool.js';
import { tightenHome } from './home-permissions.js';
import { DEFAULT_CHANGE_COALESCE_MS, DEFAULT_EXTERNAL_WRITE_POLL_MS, watchExternalWrites, type ExternalWriteWatcher } from './external-writes.js';
import { ChatRuns, resolveChatSettings, type ChatSettingsInput, type ChatSinkEvent } from '@recall/chat';
import { RedactionPolicy } from '@recall/redaction';
import type { IndexService, SemanticPlugin, SemanticSearchBinding } from './index-service.js';

/** The gateway's TCP port on 127.0.0.1 when none is given. */
export const DEFAULT_PORT = 7821;
/** The profile a gateway serves when none is given. */
export const DEFAULT_PROFILE = 'default';
/** Largest JSON-RPC body / WebSocket message accepted when `bodyLimitBytes` is not given: 1 MiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;
/** An unauthenticated connection is closed this long after it opened when `firstRequestTimeoutMs` is not given: 5 s. */
export const DEFAULT_FIRST_REQUEST_TIMEOUT_MS = 5_000;
/** Open connections (HTTP and WebSocket) a gateway keeps at most when `maxConnections` is not given. */
export const DEFAULT_MAX_CONNECTIONS = 256;
/** Of those, connections that have not authenticated (yet) at most, when `maxUnauthenticatedConnections` is not given. */
export const DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS = 64;
export { MAX_WS_BUFFERED_BYTES, MAX_WS_IN_FLIGHT } from './ws-connection.js';
const LOOPBACK = '127.0.0.1';

/**
 * Options of {@link startGateway}. Only `home` is required; everything else has a default suitable
 * for a local desktop install. Pass `port: 0` for any free port and `uiDir: null` for JSON-RPC only.
 */
export interface StartGatewayOptions {
  /** Recall home folder (holds `gateway.token` and `profiles/<name>/recall.db`); created private (0700) when missing. */
  home: string;
  /** Profile name (default "default"). */
  profile?: string;
  /**
   * A storage the host opened (@recall/storage-ports), e.g. a PostgreSQL team database through
   * @recall/store-postgres's openPostgresStorage: the gateway serves its methods from it (several
   * gateways may share one database) and closes it on close(). Omitted or null = the profile's
   * SQLite file under `home`. Every method runs on the storage ports (chat, export and purges
   * included); the semantic index and hybrid search run on its ports (`semantic`).
   */
  storage?: Storage | null;
  /** TCP port on 127.0.0.1 (default 7821; 0 = any free port, see `Gateway.port`). */
  port?: number;
  /** Built desktop UI folder to serve at `/` (the CLI passes the one it ships); omitted or `null` = no UI (JSON-RPC only). */
  uiDir?: string | null;
  /** Max JSON-RPC body / WebSocket message size in bytes (default 1 MiB). */
  bodyLimitBytes?: number;
  /** Extra browser origins allowed to call /rpc (e.g. a vite dev server `http://localhost:5173`). */
  allowedOrigins?: readonly string[];
  /** Where the gateway logs (default {@link consoleLogger}, i.e. stderr; {@link silentLogger} for none). */
  logger?: GatewayLogger;
  /**
   * The session_search tool. `undefined` = build it from @recall/search-tool with this profile's
   * database (keyword-only unless a semantic source is wired); `null` = no search method backend.
   */
  searchTool?: SessionSearchExecutor | null | ((db: RecallDatabase) => SessionSearchExecutor | null);
  /**
   * With the default search tool: worker threads that run searches on their own read-only
   * connections (default: one per core, 2–8); 0 = search on the main connection, in-process.
   */
  searchWorkers?: number;
  /**
   * How often to look for writes by other processes (SQLite: `PRAGMA data_version`), in ms (default
   * 500; 0 = never, on any storage). A PostgreSQL storage is told by LISTEN/NOTIFY instead of polling.
   */
  externalWritePollMs?: number;
  /** A connection none of whose requests authenticated is closed this long after it opened, whatever it sent (default 5 s). */
  firstRequestTimeoutMs?: number;
  /**
   * Open connections (HTTP and WebSocket) at most (default 256). A newcomer beyond it closes the
   * authenticated connection idle longest; it is refused only when every connection is busy.
   */
  maxConnections?: number;
  /**
   * Connections that have not authenticated at most (default 64, at most a quarter of
   * `maxConnections` by default); one more closes the oldest of them, so they can never take the
   * slots of authenticated clients (connection-slots.ts).
   */
  maxUnauthenticatedConnections?: number;
  /** Chat model settings (`loadConfig().chat`); omitted or null = no model configured (chat.send answers chat_not_configured). */
  chat?: ChatSettingsInput | null;
  /**
   * Stage B: the semantic index and hybrid search, plugged in by the host (the CLI builds one from
   * `@recall/semantic` when config.json enables it). Omitted or null = not configured (keyword-only,
   * index.status says so). Its worker starts with the gateway and stops before the database closes.
   */
  semantic?: SemanticPlugin | null;
  /** How MCP clients start this installation's `recall` (shown by `gateway.info`); default `recall` on the PATH. */
  launcher?: RecallLauncher;
  /** How long a launch code (see `Gateway.launchUrl`) stays redeemable, in ms (default 5 minutes). */
  launchCodeTtlMs?: number;
  /**
   * What is redacted before text leaves for a chat model (@recall/redaction; the CLI builds it from
   * `privacy.redact` in config.json). Default: the built-in rules on every surface. `gateway.info`
   * reports its counts since start.
   */
  redaction?: RedactionPolicy;
}

/**
 * A running gateway, as {@link startGateway} resolves it. Clients authenticate with
 * `Authorization: Bearer <token>`; browsers with the session cookie a launch URL sets. Call `close()`
 * before the process exits so in-flight writes finish and the database is closed cleanly.
 */
export interface Gateway {
  /** `http://127.0.0.1:PORT/` — the desktop UI (404 when started with `uiDir: null`). */
  readonly url: string;
  /** `http://127.0.0.1:PORT/rpc` */
  readonly rpcUrl: string;
  /** `ws://127.0.0.1:PORT/rpc` */
  readonly wsUrl: string;
  /** The TCP port actually bound on 127.0.0.1 (the chosen one when started with `port: 0`). */
  readonly port: number;
  /**
   * A fresh one-time launch URL `http://127.0.0.1:PORT/?launch=CODE` (single use, expires after
   * `launchCodeTtlMs`): opening it gives that browser a session cookie for the UI. Secret until used.
   */
  launchUrl(): string;
  /** The install's bearer token (the content of `<home>/gateway.token`). Secret: do not log it. */
  readonly token: string;
  /** The Recall home this gateway serves. */
  readonly home: string;
  /** The profile this gateway serves (one SQLite database, or the team database it was given). */
  readonly profile: string;
  /** Shared with in-process components (index worker, CLI) so they reuse the one DB handle and emit events. */
  readonly context: GatewayContext;
  /** Change and chat events; subscribe to see what WebSocket clients receive as `event` notifications. */
  readonly events: EventHub;
  /** The live method table: `registry.register(defineMethod(…))` adds a method to every transport (and to `rpc.discover`). */
  readonly registry: MethodRegistry<CallContext>;
  /**
   * In-process JSON-RPC call (same params validation and error mapping as the wire). Resolves with
   * the method's result; rejects with an `Error` whose `rpcError` property is the JSON-RPC error object
   * (`{ code, message, data: { code } }`).
   */
  call(method: string, params?: unknown): Promise<unknown>;
  /** Stops accepting, waits for in-flight calls, closes sockets, then the database. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts a gateway on 127.0.0.1: tightens the home's permissions, creates or reads the token, opens
 * the profile database once, starts the search tool (worker threads by default) and the plugged-in
 * semantic index, then listens. Rejects with `ConfigError` (`invalid_config`) for invalid chat or
 * semantic settings, `TokenFileError` (`invalid_token_file`) for an unusable token file, the schema
 * package's errors for a database it cannot open, and the listen error (e.g. `EADDRINUSE`) when the
 * port is taken; nothing stays open when it rejects.
 */
export async function startGateway(options: StartGatewayOptions): Promise<Gateway> {
  const home = options.home;
  const profile = options.profile ?? DEFAULT_PROFILE;
  const requestedPort = options.port ?? DEFAULT_PORT;
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const logger = options.logger ?? consoleLogger;
  const uiDir = options.uiDir ?? null;

  // Before anything is written: a home others can read is reported and made private.
  tightenHome(home, (message) => logger.warn(message));
  const token = ensureToken(home);
  // Before the database opens: invalid chat settings fail the start without anything to clean up.
  const chatSettings = resolveChatSettings(options.chat);
  const pollMs = options.externalWritePollMs ?? DEFAULT_EXTERNAL_WRITE_POLL_MS;
  // A storage of the host's (a team database) has no SQLite file: the methods not on the ports yet say so.
  const db: RecallDatabase | null = options.storage ? null : openProfileDatabase(home, profile);
  const storage: Storage =
    options.storage ??
    sqliteStorage(db!, { feedIntervalMs: pollMs > 0 ? pollMs : DEFAULT_EXTERNAL_WRITE_POLL_MS, onFeedError: (error) => logger.warn('Could not check for external writes', { error: String(error) }) });
  const closeStorage = async (): Promise<void> => {
    await storage.close();
    db?.close();
  };
  const events = new EventHub((error) => logger.error('Event listener failed', { error: String(error) }));
  let searchTool: SessionSearchExecutor | null;
  let semantic: IndexService | null = null;
  let composition: SemanticSearchBinding | null = null;
  let searchPool: SearchPool | null = null;
  try {
    // Invalid semantic settings fail the start (like chat settings): a typo must not silently mean keyword-only.
    // The semantic index runs on the storage ports: the profile's SQLite file or the host's team database.
    const binding = (await options.semantic?.start({ db, storage, profile, events, logger })) ?? null;
    semantic = binding?.index ?? null;
    const workers = options.searchWorkers ?? defaultSearchWorkers();
    if (options.searchTool === undefined && binding?.search) {
      // With semantic on, the search tool shares the index's provider (one model / client per
      // process) and reads its worker's health, so a provider that is down makes semantic_status say
      // so; it runs in-process until worker threads can share them.
      composition = binding.search;
    } else if (binding?.search) {
      await binding.search.close();
    }
    if (db === null && options.searchTool === undefined && composition === null) {
      // A team database: the search tool runs in-process over the storage ports (the worker threads
      // each open their own SQLite connection; a pool's connections are shared instead).
      composition = { tool: createSessionSearchTool({ storage }), close: async () => {} };
    } else if (composition === null && options.searchTool === undefined && workers > 0) {
      // Keyword-only (no semantic index running): searches run in worker threads, each on its own
      // read-only connection, so a slow search never holds up the event loop or the writes.
      searchPool = await startSearchPool({ dbPath: db!.path, profile, workers, logger });
    } else if (composition === null && options.searchTool === undefined) {
      // No worker threads asked for: keyword search in-process on the main connection.
      composition = { tool: createSessionSearchTool({ db: db! }), close: async () => {} };
    }
    searchTool =
      searchPool !== null
        ? searchPool
        : composition !== null
          ? composition.tool
          : typeof options.searchTool === 'function'
            ? db !== null
              ? options.searchTool(db)
              : null
            : (options.searchTool ?? null);
  } catch (error) {
    await searchPool?.close();
    await composition?.close();
    await semantic?.close();
    await closeStorage();
    throw error;
  }
  // The chat package emits change events already normalised and chat.* events as built; the hub delivers both.
  const chatEvents = { emit: (event: ChatSinkEvent) => (event.type === 'messages.changed' ? events.emit(event) : events.emitChat(event)) };
  const redaction = options.redaction ?? new RedactionPolicy();
  // Chat reads and writes through the storage ports: the same runs on a profile file and a team database.
  const chat = new ChatRuns({ storage, profile, events: chatEvents, logger, searchTool, redaction }, chatSettings);
  const context: GatewayContext = { storage, db, home, profile, events, logger, searchTool, chat, semantic, launcher: options.launcher ?? DEFAULT_LAUNCHER, redaction };
  // Message, session and consent writes made through this gateway wake the worker at once (writes by
  // other processes are found by its poll).
  const unsubscribeWake = semantic?.active
    ? events.subscribe((event) => {
        if (event.type === 'messages.changed' || event.type === 'sessions.changed' || event.type === 'projects.changed') semantic?.wake();
      })
    : null;
  semantic?.start();
  const registry = createMethodRegistry();

  // In-flight work: every dispatch registers here so close() can wait for it.
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(work: () => Promise<T>): Promise<T> => {
    const promise = work();
    inFlight.add(promise);
    const done = (): void => {
      inFlight.delete(promise);
    };
    promise.then(done, done);
    return promise;
  };
  let closing = false;

  let port = requestedPort;
  const allowedHosts = (): Set<string> => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const allowedOrigins = (): Set<string> => new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`, ...(options.allowedOrigins ?? [])]);

  /** DNS-rebinding guard: a page on evil.example that resolves to 127.0.0.1 still sends Host: evil.example. */
  const hostAllowed = (req: IncomingMessage): boolean => {
    const host = req.headers.host;
    return typeof host === 'string' && allowedHosts().has(host.toLowerCase());
  };
  /** Non-browser clients send no Origin; browsers always do on cross-origin requests and WebSockets. */
  const originAllowed = (req: IncomingMessage): boolean => {
    const origin = req.headers.origin;
    return origin === undefined || allowedOrigins().has(origin.toLowerCase());
  };

  const sessions = new BrowserSessions(() => sessionCookieName(port), options.launchCodeTtlMs ?? DEFAULT_LAUNCH_CODE_TTL_MS);
  const launchUrl = (): string => `http://${LOOPBACK}:${port}/?launch=${sessions.issueCode()}`;
  /** The CLI and scripts send the token; the UI (same origin, Origin already checked) sends its session cookie. */
  const authenticated = (req: IncomingMessage): boolean => tokenMatches(token, bearerToken(req.headers.authorization)) || sessions.hasSession(req);
  const staticHandler = createStaticHandler({ root: uiDir, hasSession: (req) => sessions.hasSession(req) });

  const handleRpcPost = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST') {
      refuse(res, 405, 'forbidden', 'Use POST for JSON-RPC over HTTP, or a WebSocket upgrade.', { Allow: 'POST' });
      return;
    }
    if (!authenticated(req)) {
      refuse(res, 401, 'unauthorized', 'Missing or invalid token: send Authorization: Bearer <token from gateway.token> (browsers: open the launch URL `recall serve` printed).', {
        'WWW-Authenticate': 'Bearer realm="recall"',
      });
      return;
    }
    // An oversized body is read and discarded up to a bound first, so the client can read the 413 (http-body.ts).
    const body = await readBody(req, bodyLimit);
    if (body === 'too_large') {
      refuse(res, 413, 'payload_too_large', `Request body larger than ${bodyLimit} bytes.`);
      return;
    }
    let text: string;
    try {
      // fatal: invalid UTF-8 is a parse error, not silently replaced characters in stored text.
      text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch {
      text = '\u0000invalid-utf8';
    }
    const callCtx: CallContext = { ...context, transport: 'http' };
    const response = await handleRpcText(registry, text, callCtx, { logger });
    if (response === null) {
      res.writeHead(204, { 'Cache-Control': 'no-store' });
      res.end();
      return;
    }
    sendJson(res, 200, response);
  };

  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const slots = new ConnectionSlots({
    maxTotal: maxConnections,
    maxUnauthenticated: options.maxUnauthenticatedConnections ?? Math.max(1, Math.min(DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS, Math.floor(maxConnections / 4))),
    unauthenticatedTimeoutMs: options.firstRequestTimeoutMs ?? DEFAULT_FIRST_REQUEST_TIMEOUT_MS,
  });
  /** Credentials valid for this request (Host, Origin and token or session): its connection moves to the authenticated budget. */
  const admit = (req: IncomingMessage, socket: Socket): void => {
    if (hostAllowed(req) && originAllowed(req) && authenticated(req)) slots.authenticate(socket);
  };

  const server: Server = createServer({ requestTimeout: 60_000, headersTimeout: 30_000 }, (req, res) => {
    const socket = req.socket;
    admit(req, socket);
    slots.begin(socket);
    res.once('close', () => slots.end(socket));
    const work = (async () => {
      if (closing) {
        refuse(res, 503, 'shutting_down', 'The gateway is shutting down.');
        return;
      }
      if (!hostAllowed(req)) {
        refuse(res, 403, 'forbidden', 'Host not allowed: use http://127.0.0.1:PORT or http://localhost:PORT.');
        return;
      }
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/rpc') {
        if (!originAllowed(req)) {
          refuse(res, 403, 'forbidden', 'Origin not allowed.');
          return;
        }
        await handleRpcPost(req, res);
        return;
      }
      if (path === '/launch') {
        // A fresh launch URL for whoever holds the token (scripts, tests, a second browser).
        if (!originAllowed(req)) return refuse(res, 403, 'forbidden', 'Origin not allowed.');
        if (req.method !== 'GET') return refuse(res, 405, 'forbidden', 'Use GET /launch.', { Allow: 'GET' });
        if (!tokenMatches(token, bearerToken(req.headers.authorization))) {
          return refuse(res, 401, 'unauthorized', 'Send Authorization: Bearer <token from gateway.token>.', { 'WWW-Authenticate': 'Bearer realm="recall"' });
        }
        const body = `${launchUrl()}\n`;
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)), 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
        res.end(body);
        return;
      }
      if (handleLaunchVisit(req, res, sessions, SECURITY_HEADERS)) return;
      staticHandler(req, res);
    })().catch((error: unknown) => {
      logger.error('HTTP request failed', { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      if (!res.headersSent) sendJson(res, 500, rpcErrorBody({ code: JSONRPC_INTERNAL_ERROR, message: 'Internal error', data: { code: 'internal_error' } }), { Connection: 'close' });
      else res.destroy();
    });
    track(() => work);
  });
  // Node's headersTimeout only runs once a request has begun; a connection that sends nothing (or
  // dribbles its headers) would otherwise be kept forever, and server.maxConnections would let such
  // connections lock everyone out. The slots close an unauthenticated connection after the
  // first-request timeout and make room for newcomers (connection-slots.ts); authenticated
  // keep-alive idling is bounded by keepAliveTimeout.
  server.on('connection', (socket: Socket) => slots.accept(socket));
  server.on('clientError', (_error, socket: Duplex) => {
    if ((socket as Socket).writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  // ---- WebSocket ------------------------------------------------------------------------------
  const wss = new WebSocketServer({ noServer: true, maxPayload: bodyLimit, perMessageDeflate: false });
  const clients = new Set<WebSocket>();

  const rejectUpgrade = (socket: Duplex, status: number, reason: string): void => {
    socket.write(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    socket.destroy();
  };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (closing) return rejectUpgrade(socket, 503, 'Service Unavailable');
    if (!hostAllowed(req)) return rejectUpgrade(socket, 403, 'Forbidden');
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://127.0.0.1');
    } catch {
      return rejectUpgrade(socket, 400, 'Bad Request');
    }
    if (url.pathname !== '/rpc') return rejectUpgrade(socket, 404, 'Not Found');
    if (!originAllowed(req)) return rejectUpgrade(socket, 403, 'Forbidden');
    // Browsers cannot set headers on a WebSocket but send the session cookie; a token in the URL
    // (it ends up in logs and console errors) is never accepted.
    if (!authenticated(req)) return rejectUpgrade(socket, 401, 'Unauthorized');
    slots.authenticate(socket as Socket);
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, socket as Socket));
  });

  const onConnection = (ws: WebSocket, socket: Socket): void => {
    // Evicted to make room (idle longest while every slot is taken): "try again later", then gone.
    slots.onEvict(socket, () => {
      ws.close(1013, 'too many connections');
      setTimeout(() => ws.terminate(), 1_000).unref();
    });
    serveWebSocket(ws, {
      clients,
      events,
      logger,
      isClosing: () => closing,
      run: (text) => track(() => handleRpcText(registry, text, { ...context, transport: 'ws' }, { logger })),
      activity: { begin: () => slots.begin(socket), end: () => slots.end(socket) },
    });
  };


  // ---- listen -------------------------------------------------------------------------------
  try {
    await new Promise<void>((resolveListen, rejectListen) => {
      server.once('error', rejectListen);
      server.listen(requestedPort, LOOPBACK, () => {
        server.off('error', rejectListen);
        resolveListen();
      });
    });
  } catch (error) {
    unsubscribeWake?.();
    await composition?.close();
    await semantic?.close();
    await searchPool?.close();
    await closeStorage();
    throw error;
  }
  port = (server.address() as AddressInfo).port;
  server.on('error', (error) => logger.error('HTTP server error', { error: error.message }));
  // `recall mv` / `recall import` from a shell, another gateway on the same team database: tell clients.
  let externalWrites: ExternalWriteWatcher | null = null;
  if (pollMs > 0) {
    try {
      externalWrites = await watchExternalWrites(storage.changes, events, { coalesceMs: storage.kind === 'postgres' ? DEFAULT_CHANGE_COALESCE_MS : 0 });
    } catch (error) {
      // Clients then refresh only after this gateway's own writes; serving goes on.
      logger.warn('Could not watch for writes by other processes', { error: String(error) });
    }
  }

  let closePromise: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closePromise ??= (async () => {
      closing = true;
      await externalWrites?.stop();
      // Chat runs outlive the call that started them: stop them first (each stores what it completed).
      await chat?.shutdown();
      const serverClosed = new Promise<void>((resolveClose) => server.close(() => resolveClose()));
      // Let every accepted call finish (and answer) before sockets and the database go away.
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      for (const ws of clients) ws.close(1001, 'gateway shutting down');
      wss.close();
      server.closeIdleConnections();
      const grace = setTimeout(() => {
        server.closeAllConnections();
        for (const ws of clients) ws.terminate();
      }, 2_000);
      await serverClosed;
      clearTimeout(grace);
      // The worker aborts its request in flight and releases its leases before the database closes.
      unsubscribeWake?.();
      await composition?.close();
      await semantic?.close();
      await searchPool?.close();
      await closeStorage();
    })();
    return closePromise;
  };

  const call = async (method: string, params?: unknown): Promise<unknown> => {
    const callCtx: CallContext = { ...context, transport: 'direct' };
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) });
    const response = await track(() => handleRpcText(registry, text, callCtx, { logger }));
    const parsed = JSON.parse(response ?? 'null') as { result?: unknown; error?: JsonRpcErrorObject };
    if (parsed.error) throw Object.assign(new Error(parsed.error.message), { rpcError: parsed.error });
    return parsed.result;
  };

  return {
    url: `http://${LOOPBACK}:${port}/`,
    rpcUrl: `http://${LOOPBACK}:${port}/rpc`,
    wsUrl: `ws://${LOOPBACK}:${port}/rpc`,
    port,
    launchUrl,
    token,
    home,
    profile,
    context,
    events,
    registry,
    call,
    close,
  };
}
