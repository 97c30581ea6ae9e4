/**
 * How a browser on the owner's machine gets into the UI without the page ever carrying the token:
 * the owner (who can read `<home>/gateway.token`) obtains a one-time launch URL
 * `http://127.0.0.1:PORT/?launch=CODE` — `recall serve` prints one, `GET /launch` with
 * `Authorization: Bearer <token>` answers a fresh one — and visiting it exchanges the code (random,
 * single use, short-lived) for a session cookie (`HttpOnly; SameSite=Strict; Path=/`, a random
 * server-side session id, never the token) and redirects to `/` without the code. index.html and
 * `/rpc` then accept that cookie. Codes and sessions live in memory only, stored as SHA-256
 * digests: a gateway restart ends every browser session, and nothing secret is written to disk.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** How long a launch code stays redeemable when `launchCodeTtlMs` is not given: 5 minutes. */
export const DEFAULT_LAUNCH_CODE_TTL_MS = 5 * 60_000;
/** Unredeemed launch codes kept at most; minting more drops the oldest. */
const MAX_PENDING_CODES = 32;
/** Browser sessions kept at most; a new one beyond that ends the oldest. */
const MAX_SESSIONS = 64;

function digest(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** The cookie's name carries the port: cookies are not port-scoped, and two gateways on one machine must not overwrite each other's session. */
export function sessionCookieName(port: number): string {
  return `recall_session_${port}`;
}

/** Every value of cookie `name` in a `Cookie:` header (a browser may send the same name twice). */
export function cookieValues(header: string | undefined, name: string): string[] {
  if (typeof header !== 'string') return [];
  const values: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) values.push(part.slice(eq + 1).trim());
  }
  return values;
}

/** The launch codes and browser sessions of one gateway. */
export class BrowserSessions {
  private readonly codes = new Map<string, number>();
  private readonly sessions = new Set<string>();

  constructor(
    private readonly cookieName: () => string,
    private readonly ttlMs: number = DEFAULT_LAUNCH_CODE_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new single-use launch code, redeemable for `ttlMs`. */
  issueCode(): string {
    this.purge();
    while (this.codes.size >= MAX_PENDING_CODES) this.codes.delete(this.codes.keys().next().value!);
    const code = newSecret();
    this.codes.set(digest(code), this.now() + this.ttlMs);
    return code;
  }

  /** Consumes `code`: a new session id when it was issued, unused and unexpired, else null. */
  redeem(code: string | null): string | null {
    this.purge();
    if (code === null || code.length === 0 || code.length > 128) return null;
    const key = digest(code);
    const expires = this.codes.get(key);
    if (expires === undefined) return null;
    this.codes.delete(key);
    if (expires <= this.now()) return null;
    while (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.values().next().value!);
    const session = newSecret();
    this.sessions.add(digest(session));
    return session;
  }

  /** Whether the request carries a live session cookie of this gateway. */
  hasSession(req: IncomingMessage): boolean {
    return cookieValues(req.headers.cookie, this.cookieName()).some((value) => value.length > 0 && value.length <= 128 && this.sessions.has(digest(value)));
  }

  /** The `Set-Cookie` value for a new session. No Max-Age: it ends with the browser session (and with the gateway). */
  setCookie(session: string): string {
    return `${this.cookieName()}=${session}; HttpOnly; SameSite=Strict; Path=/`;
  }

  private purge(): void {
    const now = this.now();
    for (const [key, expires] of this.codes) if (expires <= now) this.codes.delete(key);
  }
}

/** The page index.html is replaced by without a session: it holds no data and no secret. */
export const NO_SESSION_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Recall — open the launch link</title></head>
<body>
<h1>Open Recall from its launch link</h1>
<p>This page only opens through the one-time link <code>recall serve</code> prints
(<code>http://127.0.0.1:PORT/?launch=…</code>). A link works once and for a few minutes; if yours
was used or has expired, get a fresh one: restart <code>recall serve</code>, or ask the running gateway
with the token: <code>curl -H "Authorization: Bearer $(cat ~/.recall/gateway.token)" http://127.0.0.1:PORT/launch</code>.</p>
</body></html>
`;

/**
 * `GET /?launch=CODE`: a valid code sets the session cookie and redirects (303) to `/`; an invalid,
 * used or expired one answers 403 with {@link NO_SESSION_HTML} (a browser that already has a
 * session is just sent on to `/`). Returns false when the request is not a launch visit.
 */
export function handleLaunchVisit(req: IncomingMessage, res: ServerResponse, sessions: BrowserSessions, securityHeaders: Readonly<Record<string, string>>): boolean {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (url.pathname !== '/' || !url.searchParams.has('launch') || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
  const session = sessions.redeem(url.searchParams.get('launch'));
  const common = { ...securityHeaders, 'Cache-Control': 'no-store' };
  if (session !== null || sessions.hasSession(req)) {
    res.writeHead(303, { ...common, Location: '/', 'Content-Length': '0', ...(session !== null ? { 'Set-Cookie': sessions.setCookie(session) } : {}) });
    res.end();
    return true;
  }
  const body = Buffer.from(NO_SESSION_HTML, 'utf8');
  res.writeHead(403, { ...common, 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': String(body.length) });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}
