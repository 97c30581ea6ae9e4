/**
 * Hash routes and message anchors. The UI is routed by `location.hash`:
 *   #/                       home (welcome or last view)
 *   #/s/<sessionId>          a stored conversation
 *   #/s/<sessionId>/m/<id>   …scrolled to and highlighting message <id>
 *   #/new                    a draft with no project; #/new/p/<projectId> a draft in a project
 *                            (optional ?cwd=<path> for the draft's working directory)
 *   #/open/<encoded link>    any tool-result link (e.g. recall://session/<sid>#m<mid>)
 * The `session_search` tool returns `link`s in a `recall://` form; `parseRecallLink` accepts the
 * spellings we have seen proposed so a result always opens its anchor. Pure functions only.
 */

export type Route =
  | { view: 'home' }
  | { view: 'session'; sessionId: string; messageId?: number }
  | { view: 'new'; projectId: string | null; cwd?: string };

export interface Anchor {
  sessionId: string;
  messageId?: number;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function parseMessageId(s: string | null | undefined): number | undefined {
  if (s == null) return undefined;
  const m = /^(?:m|msg|message)?[-_:]?(\d+)$/i.exec(s.trim());
  if (!m?.[1]) return undefined;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * Parses a message link into a session + optional message anchor. Accepts
 * `recall://session/<sid>#m<mid>`, `…#m-<mid>`, `…#<mid>`, `recall://session/<sid>/message/<mid>`,
 * `recall://session/<sid>/m/<mid>`, `recall://s/<sid>/m/<mid>`, `?message_id=<mid>`, and any URL
 * whose hash is one of our own routes (`…#/s/<sid>/m/<mid>`). Returns null for anything else.
 */
export function parseRecallLink(link: string): Anchor | null {
  const text = link.trim();
  if (!text) return null;

  const hashAt = text.indexOf('#');
  const hash = hashAt >= 0 ? text.slice(hashAt + 1) : '';
  const beforeHash = hashAt >= 0 ? text.slice(0, hashAt) : text;

  // Our own hash route embedded in a URL (http://127.0.0.1:7821/#/s/…).
  if (hash.startsWith('/')) {
    const r = parseHash(`#${hash}`);
    if (r.view === 'session') return anchorOf(r.sessionId, r.messageId);
  }

  const m = /^recall:\/\/(?:session|sessions|s)\/([^/?#]+)(?:\/(?:message|messages|msg|m)\/([^/?#]+))?\/?(?:\?([^#]*))?$/i.exec(
    beforeHash,
  );
  if (!m?.[1]) return null;
  const sessionId = safeDecode(m[1]);
  let messageId = parseMessageId(m[2] ? safeDecode(m[2]) : undefined);
  if (messageId === undefined && m[3]) {
    const q = new URLSearchParams(m[3]);
    messageId = parseMessageId(q.get('message_id') ?? q.get('messageId') ?? q.get('message') ?? q.get('m'));
  }
  if (messageId === undefined && hash) messageId = parseMessageId(hash);
  return anchorOf(sessionId, messageId);
}

function anchorOf(sessionId: string, messageId: number | undefined): Anchor {
  return messageId === undefined ? { sessionId } : { sessionId, messageId };
}

/** Parses `location.hash` into a route; unknown routes fall back to home. */
export function parseHash(hash: string): Route {
  let h = hash.startsWith('#') ? hash.slice(1) : hash;
  if (/^recall:\/\//i.test(h)) {
    const a = parseRecallLink(h);
    return a ? sessionRoute(a) : { view: 'home' };
  }
  if (!h.startsWith('/')) h = `/${h}`;
  const qAt = h.indexOf('?');
  const path = qAt >= 0 ? h.slice(0, qAt) : h;
  const query = new URLSearchParams(qAt >= 0 ? h.slice(qAt + 1) : '');
  const parts = path.split('/').filter(Boolean);

  if (parts[0] === 'open' && parts.length >= 2) {
    const a = parseRecallLink(safeDecode(parts.slice(1).join('/')) + (qAt >= 0 ? h.slice(qAt) : ''));
    return a ? sessionRoute(a) : { view: 'home' };
  }
  if (parts[0] === 's' && parts[1]) {
    const sessionId = safeDecode(parts[1]);
    if (parts[2] === 'm' && parts[3]) {
      const messageId = parseMessageId(parts[3]);
      if (messageId !== undefined) return { view: 'session', sessionId, messageId };
    }
    return { view: 'session', sessionId };
  }
  if (parts[0] === 'new') {
    const projectId = parts[1] === 'p' && parts[2] ? safeDecode(parts[2]) : null;
    const cwd = query.get('cwd') ?? undefined;
    return cwd ? { view: 'new', projectId, cwd } : { view: 'new', projectId };
  }
  return { view: 'home' };
}

function sessionRoute(a: Anchor): Route {
  return a.messageId === undefined
    ? { view: 'session', sessionId: a.sessionId }
    : { view: 'session', sessionId: a.sessionId, messageId: a.messageId };
}

/** Formats a route as a hash (with the leading '#'). Inverse of parseHash for canonical routes. */
export function formatHash(route: Route): string {
  switch (route.view) {
    case 'home':
      return '#/';
    case 'session': {
      const base = `#/s/${encodeURIComponent(route.sessionId)}`;
      return route.messageId === undefined ? base : `${base}/m/${route.messageId}`;
    }
    case 'new': {
      const base = route.projectId ? `#/new/p/${encodeURIComponent(route.projectId)}` : '#/new';
      return route.cwd ? `${base}?cwd=${encodeURIComponent(route.cwd)}` : base;
    }
  }
}

/** Hash route for a tool-result link; falls back to the generic /open/ route if unparsable here. */
export function hashForLink(link: string): string {
  const a = parseRecallLink(link);
  if (a) return formatHash(sessionRoute(a));
  return `#/open/${encodeURIComponent(link)}`;
}

/** Hash route of a result anchor: its `link` when it has one we can read, else session + message id. */
export function anchorHash(a: { session_id: string; message_id: number; link?: string | undefined }): string {
  if (typeof a.link === 'string' && a.link) return hashForLink(a.link);
  return formatHash({ view: 'session', sessionId: a.session_id, messageId: a.message_id });
}

/** DOM id of a message element, so `#m-<id>` style anchors and tests can find it. */
export function messageDomId(messageId: number): string {
  return `m-${messageId}`;
}

export type TextPart = { kind: 'text'; text: string } | { kind: 'link'; text: string; href: string };

// Links are ASCII: stop at whitespace, quotes, brackets and any non-ASCII (e.g. CJK punctuation).
const LINK_RE = /recall:\/\/[A-Za-z0-9\-._~:/?#@!$&*+,;=%]+/gi;

/** Splits plain text into text and recall:// link parts so links in message content are clickable. */
export function linkify(text: string): TextPart[] {
  const out: TextPart[] = [];
  let last = 0;
  for (const m of text.matchAll(LINK_RE)) {
    const start = m.index ?? 0;
    let raw = m[0];
    // Trailing sentence punctuation is not part of the link.
    const trail = /[.,;:!?。，；：！？]+$/.exec(raw);
    if (trail) raw = raw.slice(0, raw.length - trail[0].length);
    if (start > last) out.push({ kind: 'text', text: text.slice(last, start) });
    out.push({ kind: 'link', text: raw, href: hashForLink(raw) });
    last = start + raw.length;
  }
  if (last < text.length) out.push({ kind: 'text', text: text.slice(last) });
  return out;
}
