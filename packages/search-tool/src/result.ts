/**
 * The JSON result contract of `session_search` (snake_case, no vectors). Every shape returns the same
 * envelope: what was asked (`requested_mode`), what actually ran (`used_mode`), the semantic index
 * state, human-readable notes (fallbacks, truncation, timeouts) and `results`, best first, each
 * anchored by `session_id` + `message_id` with a `link` the desktop can open.
 */
import type { MessageRole } from '@recall/schema';
import type { Message, Session } from '@recall/store';
import type { SearchMode } from './arguments.js';
import type { ToolErrorCode } from './errors.js';
import type { SemanticCoverage, SemanticStatus } from './semantic-source.js';

export type Shape = 'discover' | 'browse' | 'read' | 'scroll';
export type UsedMode = SearchMode | 'direct' | 'none';
/** How a result was found: by keyword, by meaning, by both (fused), or read directly (browse/read/scroll). */
export type MatchSource = 'keyword' | 'semantic' | 'both' | 'direct';
/** Where a keyword match was: the conversation title or the message text. */
export type MatchField = 'title' | 'message';

export interface WindowMessage {
  message_id: number;
  role: MessageRole;
  text: string;
  date: string;
  is_anchor: boolean;
}

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
  window: WindowMessage[];
  /** Other matching messages of the same logical conversation (discover only). */
  other_message_ids?: number[];
  /** Session-level facts for browse results. */
  message_count?: number;
  is_current_session?: boolean;
  /** scroll: the message the window was requested around. */
  is_anchor?: boolean;
}

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
  /** read: more messages exist between head and tail; scroll: more before/after the window. */
  truncated: boolean;
  error?: { code: ToolErrorCode; message: string };
}

/** Snippets and window texts are cut to keep tool results small for the model's context. */
export const SNIPPET_CHARS = 300;
export const WINDOW_TEXT_CHARS = 400;

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

export function windowMessage(m: Message, anchorId: number): WindowMessage {
  return { message_id: m.id, role: m.role, text: clip(m.content, WINDOW_TEXT_CHARS), date: isoDate(m.createdAt), is_anchor: m.id === anchorId };
}

export function sessionFacts(session: Session): Pick<SearchResultItem, 'title' | 'session_date'> {
  return { title: session.title, session_date: isoDate(session.startedAt) };
}
