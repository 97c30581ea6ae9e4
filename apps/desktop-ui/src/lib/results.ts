/**
 * Pure helpers for rendering one search result: how it matched (`match_source`, and for keyword
 * matches `match_field`: the title or the message), which part of its surrounding `window` to show (the anchor ± `radius` messages when collapsed,
 * all of it when expanded), and the counts above the list: every distinct matching message —
 * anchors plus the `other_message_ids` each conversation reports — counted once, with the extra
 * ids that are not already an anchor (so none is shown twice, and every one can be opened).
 */
import type { SearchHit, SearchWindowMessage } from '@recall/rpc-contract';

export interface MatchInfo {
  /** keyword | semantic | both | direct, as the tool said. */
  source: SearchHit['match_source'];
  /** Where a keyword match was: the conversation title or the message text, when known. */
  field: 'title' | 'message' | null;
}

export function matchInfo(hit: Pick<SearchHit, 'match_source' | 'match_field'>): MatchInfo {
  return { source: hit.match_source, field: hit.match_field ?? null };
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

export interface MatchCounts {
  /** Distinct matching messages: anchors plus extra ids, each once. */
  messages: number;
  conversations: number;
  /** Per anchor (`session:message`): its extra matching ids that are not themselves an anchor. */
  extras: Map<string, number[]>;
}

export const hitKey = (h: Pick<SearchHit, 'session_id' | 'message_id'>): string => `${h.session_id}:${h.message_id}`;

export function matchCounts(results: readonly Pick<SearchHit, 'session_id' | 'message_id' | 'other_message_ids'>[]): MatchCounts {
  const seen = new Set(results.map(hitKey));
  const sessions = new Set(results.map((h) => h.session_id));
  const extras = new Map<string, number[]>();
  for (const h of results) {
    const own: number[] = [];
    for (const id of Array.isArray(h.other_message_ids) ? h.other_message_ids : []) {
      const key = `${h.session_id}:${id}`;
      if (!Number.isSafeInteger(id) || seen.has(key)) continue;
      seen.add(key);
      own.push(id);
    }
    extras.set(hitKey(h), own);
  }
  return { messages: seen.size, conversations: sessions.size, extras };
}

export function countText(c: Pick<MatchCounts, 'messages' | 'conversations'>, shown: number): string {
  const m = `${c.messages} matching ${c.messages === 1 ? 'message' : 'messages'}`;
  const conv = `${c.conversations} ${c.conversations === 1 ? 'conversation' : 'conversations'}`;
  return shown < c.messages ? `${m} in ${conv} (${shown} with context below)` : `${m} in ${conv}`;
}
