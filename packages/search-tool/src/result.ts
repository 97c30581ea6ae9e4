/**
 * The JSON result contract of `session_search` (snake_case, no vectors). Every shape returns the same
 * envelope: what was asked (`requested_mode`), what actually ran (`used_mode`), the semantic index
 * state, human-readable notes (fallbacks, truncation, timeouts) and `results`, best first, each
 * anchored by `session_id` + `message_id` with a `link` the desktop can open.
 */
import type { Message, MessageRole } from '@recall/rpc-contract';
import type { SessionRecord } from '@recall/storage-ports';
import type { SearchMode } from './arguments.js';
import type { ToolErrorCode } from '@recall/rpc-contract';
import type { SemanticCoverage, SemanticStatus } from './semantic-source.js';

/** Which of the four shapes a call ran: find (`discover`), list recent (`browse`), `read` a conversation, `scroll` around a message. */
export type Shape = 'discover' | 'browse' | 'read' | 'scroll';
/** What actually ran: a search mode (`keyword`, `semantic`, `hybrid`), a direct read (`direct`), or nothing because of an error (`none`). */
export type UsedMode = SearchMode | 'direct' | 'none';
/** How a result was found: by keyword, by meaning, by both (fused), or read directly (browse/read/scroll). */
export type MatchSource = 'keyword' | 'semantic' | 'both' | 'direct';
/**
 * Where a keyword match was: the conversation title (the anchor is still the conversation's
 * best-matching message when one matched, else its first message) or only the message text.
 */
export type MatchField = 'title' | 'message';

/**
 * A neighbour of an anchor. The anchor's own entry carries no `text`: its text is the result's
 * `snippet` (never sent twice). `session_id` is set only when the neighbour lies in another
 * compression segment of the same conversation than the result.
 */
export interface WindowMessage {
  message_id: number;
  role: MessageRole;
  text?: string;
  date: string;
  is_anchor: boolean;
  session_id?: string;
}

/** One result, anchored by `session_id` + `message_id`; `snippet` is original text (clipped), `window` its neighbours. */
export interface SearchResultItem {
  session_id: string;
  message_id: number;
  link: string;
  role: MessageRole;
  snippet: string;
  match_source: MatchSource;
  /** discover only: the match was in the conversation title or in the message text. */
  match_field?: MatchField;
  title: string | null;
  date: string;
  session_date: string;
  /** The logical conversation: its root session id (equal to session_id unless this is a continuation). */
  conversation_id: string;
  /** This session's place among the conversation's compression segments (1 = the root). */
  segment: number;
  segment_count: number;
  window: WindowMessage[];
  /** Other matching messages of the same logical conversation (discover only). */
  other_message_ids?: number[];
  /** Session-level facts for browse results. */
  message_count?: number;
  is_current_session?: boolean;
  /** scroll: the message the window was requested around. */
  is_anchor?: boolean;
  /** read/scroll: the text shown starts at this character of the message (set when > 0). */
  text_offset?: number;
  /** read/scroll: the message goes on; call scroll with around_message_id and offset = next_offset. */
  next_offset?: number;
  /** read/scroll: the message's full length in characters (set when only part is shown). */
  total_chars?: number;
}

/**
 * What `execute()` resolves to, for every shape and for errors: the envelope described in the
 * module header, validated by `sessionSearchResultSchema` of @recall/rpc-contract.
 */
export interface SessionSearchResult {
  shape: Shape | null;
  requested_mode: SearchMode;
  used_mode: UsedMode;
  semantic_status: SemanticStatus;
  semantic_coverage: SemanticCoverage | 'unknown' | null;
  scope: { kind: 'project' | 'own_conversation'; project_id: string | null };
  query: string | null;
  notes: string[];
  results: SearchResultItem[];
  /**
   * discover: more matching conversations exist than were returned; browse: more conversations;
   * read: more messages between head and tail; scroll: more before/after the window; any shape: a
   * message's text or the result was cut to the budget (see notes and next_offset).
   */
  truncated: boolean;
  error?: { code: ToolErrorCode; message: string };
}

/** Snippets and window texts are cut to keep tool results small for the model's context. */
export const SNIPPET_CHARS = 300;
export const WINDOW_TEXT_CHARS = 400;

/** The `recall://session/<id>#m<messageId>` link of a message, as results carry it in `link`. */
export function messageLink(sessionId: string, messageId: number): string {
  return `recall://session/${encodeURIComponent(sessionId)}#m${messageId}`;
}

export function isoDate(ms: number): string {
  return new Date(ms).toISOString();
}

export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max - 1)}…`;
}

export function windowMessage(m: Message, anchorId: number, resultSessionId: string): WindowMessage {
  const base = { message_id: m.id, role: m.role, date: isoDate(m.createdAt), ...(m.sessionId !== resultSessionId ? { session_id: m.sessionId } : {}) };
  return m.id === anchorId ? { ...base, is_anchor: true } : { ...base, text: clip(m.content, WINDOW_TEXT_CHARS), is_anchor: false };
}

/** Where a session sits in its logical conversation (ordered compression segments). */
export interface Lineage {
  conversation_id: string;
  segments: readonly string[];
}

export function sessionFacts(session: SessionRecord, lineage: Lineage): Pick<SearchResultItem, 'title' | 'session_date' | 'conversation_id' | 'segment' | 'segment_count'> {
  const at = lineage.segments.indexOf(session.id);
  return {
    title: session.title,
    session_date: isoDate(session.startedAt),
    conversation_id: lineage.conversation_id,
    segment: at + 1,
    segment_count: lineage.segments.length,
  };
}

/**
 * `count` characters of `text` from `offset`, as shown by read/scroll: a plain slice (no ellipsis,
 * never half a surrogate pair) plus the paging fields when the message goes on or started earlier.
 */
export function textPage(text: string, offset: number, count: number): Pick<SearchResultItem, 'snippet' | 'text_offset' | 'next_offset' | 'total_chars'> {
  let start = Math.min(offset, text.length);
  if (start > 0 && start < text.length && isLowSurrogate(text.charCodeAt(start))) start--;
  let end = Math.min(text.length, start + count);
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end--;
  return {
    snippet: text.slice(start, end),
    ...(start > 0 ? { text_offset: start } : {}),
    ...(end < text.length ? { next_offset: end } : {}),
    ...(start > 0 || end < text.length ? { total_chars: text.length } : {}),
  };
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
