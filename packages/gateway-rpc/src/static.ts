/**
 * Serving a built desktop UI (the folder `startGateway({ uiDir })` names; the CLI ships one) from the gateway's own
 * origin. The page carries no secret: index.html (and the SPA fallback) is only served to a browser
 * with a session cookie (see browser-sessions.ts; the page then calls /rpc with that cookie), anyone
 * else gets a short page saying to open the launch link `recall serve` printed. Assets hold no data
 * and are served to anyone. No CORS headers are ever sent and the server's Host check defeats DNS
 * rebinding. Paths are decoded, normalised and then checked —
 * after resolving symlinks — to stay inside the UI folder; unknown extension-less paths fall back
 * to index.html (client-side routing). The gateway never imports desktop-ui code and never looks
 * for it: the folder is passed in.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { NO_SESSION_HTML } from './browser-sessions.js';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.jsonl': 'application/x-ndjson; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.wasm': 'application/wasm',
};

/**
 * The page's Content-Security-Policy: everything from our own origin only, no inline or eval'd
 * script (an injected `<script>` or `onerror=` in rendered history cannot run), no inline style
 * either (no `<style>` element or `style="…"` attribute from rendered history or a library), connections
 * only back to this gateway (`'self'` covers the same-origin WebSocket), no plugins, no `<base>`
 * rewriting, no framing. `data:` images are allowed for the inline SVG favicon. The UI needs no
 * inline style: its CSS is one built file, and React's `style={…}` props (a menu's position, a
 * project's colour swatch) are set through the CSSOM (`element.style`), which CSP does not govern —
 * the browser tests click through every view and fail on any `securitypolicyviolation`.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers on every UI response: the CSP, no sniffing, no framing by other sites, no referrer leaking the URL. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export interface StaticHandlerOptions {
  /** UI folder (must contain index.html), or null to serve only a hint page. */
  root: string | null;
  /** Whether the request carries a live browser session (only then is index.html served). */
  hasSession: (req: IncomingMessage) => boolean;
}

function send(res: ServerResponse, req: IncomingMessage, status: number, headers: Record<string, string>, body: string | Buffer): void {
  const buffer = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.writeHead(status, { ...SECURITY_HEADERS, ...headers, 'Content-Length': String(buffer.length) });
  res.end(req.method === 'HEAD' ? undefined : buffer);
}

function sendText(res: ServerResponse, req: IncomingMessage, status: number, text: string): void {
  send(res, req, status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }, text);
}

/** Resolves a URL path to a file inside root, or null if it escapes root or does not exist as a file. */
function resolveInside(root: string, realRoot: string, urlPath: string): string | null {
  const candidate = resolve(root, `.${urlPath}`);
  if (candidate !== root && !candidate.startsWith(root + sep)) return null;
  let real: string;
  try {
    real = realpathSync(candidate);
  } catch {
    return null;
  }
  // A symlink inside dist/ must not lead outside it either.
  if (real !== realRoot && !real.startsWith(realRoot + sep)) return null;
  try {
    return statSync(real).isFile() ? real : null;
  } catch {
    return null;
  }
}

export function createStaticHandler(options: StaticHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const root = options.root === null ? null : resolve(options.root);
  let realRoot: string | null = null;
  if (root !== null) {
    try {
      realRoot = realpathSync(root);
    } catch {
      realRoot = null;
    }
  }

  const serveIndex = (req: IncomingMessage, res: ServerResponse): void => {
    const indexPath = realRoot === null ? null : join(realRoot, 'index.html');
    let html: string;
    try {
      if (indexPath === null) throw new Error('no ui');
      // Read per request: the UI can be rebuilt while the gateway runs, and the file is small.
      html = readFileSync(indexPath, 'utf8');
    } catch {
      sendText(res, req, 404, 'This Recall gateway serves no desktop UI (started without one, or `recall serve --no-ui`).\nThe JSON-RPC endpoint is at /rpc.\n');
      return;
    }
    // no-store either way: whether the page opens depends on the session, so no cache may answer for it.
    if (!options.hasSession(req)) {
      send(res, req, 403, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }, NO_SESSION_HTML);
      return;
    }
    send(res, req, 200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }, html);
  };

  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      sendText(res, req, 405, 'Method Not Allowed\n');
      return;
    }
    const rawPath = (req.url ?? '/').split('?')[0]!.split('#')[0]!;
    let urlPath: string;
    try {
      urlPath = decodeURIComponent(rawPath);
    } catch {
      sendText(res, req, 400, 'Bad Request\n');
      return;
    }
    // NUL bytes and backslashes have no business in a UI asset path; refuse rather than normalise.
    if (!urlPath.startsWith('/') || urlPath.includes('\0') || urlPath.includes('\\')) {
      sendText(res, req, 400, 'Bad Request\n');
      return;
    }
    if (urlPath.split('/').some((segment) => segment === '..')) {
      sendText(res, req, 403, 'Forbidden\n');
      return;
    }
    // Dotfiles (.env, .git/, editor swap files) are never part of the UI: answer as if absent.
    if (urlPath.split('/').some((segment) => segment.startsWith('.'))) {
      sendText(res, req, 404, 'Not Found\n');
      return;
    }
    if (urlPath === '/' || urlPath === '/index.html' || root === null || realRoot === null) {
      if (urlPath === '/' || urlPath === '/index.html' || extname(urlPath) === '') serveIndex(req, res);
      else sendText(res, req, 404, 'Not Found\n');
      return;
    }
    const file = resolveInside(root, realRoot, urlPath);
    if (file === null) {
      // Client-side routes have no extension: hand them to the SPA. Missing assets stay 404s.
      if (extname(urlPath) === '') serveIndex(req, res);
      else sendText(res, req, 404, 'Not Found\n');
      return;
    }
    if (file.endsWith(`${sep}index.html`) && file === join(realRoot, 'index.html')) {
      serveIndex(req, res);
      return;
    }
    const type = CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
    // vite fingerprints everything under /assets/, so those can be cached forever; anything else is revalidated.
    const cache = urlPath.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
    let body: Buffer;
    try {
      body = readFileSync(file);
    } catch {
      sendText(res, req, 404, 'Not Found\n');
      return;
    }
    send(res, req, 200, { 'Content-Type': type, 'Cache-Control': cache }, body);
  };
}
