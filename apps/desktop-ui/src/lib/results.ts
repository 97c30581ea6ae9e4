/**
 * Pure helpers for rendering one search result: how it matched (old tools say `match_source:
 * "title"`, newer ones `match_source: "keyword"` + `match_field: "title"` — both read the same),
 * and which part of its surrounding `window` to show (the anchor ± `radius` messages when
 * collapsed, all of it when expanded).
 */
import type { SearchHit, SearchWindowMessage } from '../types';

export interface MatchInfo {
  /** keyword | semantic | both | direct | … as the tool said (title → keyword), or null. */
  source: string | null;
  /** Where a keyword match was: the conversation title or the message text, when known. */
  field: 'title' | 'message' | null;
}

export function matchInfo(hit: Pick<SearchHit, 'match_source' | 'match_field'>): MatchInfo {
  const raw = typeof hit.match_source === 'string' && hit.match_source ? hit.match_source : null;
  const fieldRaw = typeof hit.match_field === 'string' ? hit.match_field : null;
  if (raw === 'title') return { source: 'keyword', field: 'title' };
  return { source: raw, field: fieldRaw === 'title' || fieldRaw === 'message' ? fieldRaw : null };
}

export interface WindowView {
  shown: SearchWindowMessage[];
  /** Messages of the window left out before / after what is shown. */
  hiddenBefore: number;
  hiddenAfter: number;
  /** Index in `shown` of the anchor, or -1 if the window does not contain it. */
  anchorIndex: number;
}

/** The anchor's position: `is_anchor`, else the message with the hit's id. */
function anchorAt(window: readonly SearchWindowMessage[], anchorId: number): number {
  const flagged = window.findIndex((w) => w.is_anchor === true);
  return flagged >= 0 ? flagged : window.findIndex((w) => w.message_id === anchorId);
}

export function visibleWindow(window: readonly SearchWindowMessage[] | undefined, anchorId: number, expanded: boolean, radius = 1): WindowView {
  const all = Array.isArray(window) ? window : [];
  const at = anchorAt(all, anchorId);
  if (expanded || all.length === 0) return { shown: [...all], hiddenBefore: 0, hiddenAfter: 0, anchorIndex: at };
  if (at < 0) {
    const shown = all.slice(0, radius * 2 + 1);
    return { shown, hiddenBefore: 0, hiddenAfter: all.length - shown.length, anchorIndex: -1 };
  }
  const from = Math.max(0, at - radius);
  const to = Math.min(all.length, at + radius + 1);
  return { shown: all.slice(from, to), hiddenBefore: from, hiddenAfter: all.length - to, anchorIndex: at - from };
}
