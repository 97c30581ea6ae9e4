/**
 * Question → reply credit among keyword hits (issue 22: exact-term anchors). When a question is
 * asked in one message and answered in the next, the question often repeats the words of a later
 * search ("你打算花多长时间旅行？", "how long are you staying in Spain?") while the reply holds the
 * fact ("我计划在西班牙待两周左右"): BM25 and coverage put the question first, and the anchor of the
 * conversation is the question. Here a reply that matches the query itself adds a share of the
 * score of the question directly before it. It works only on the candidates the search already
 * loaded (no SQL, no further rows, so nothing outside the scope is ever read), the question must be
 * in the same session, and a reply that matches nothing of the query ("yes") is not a candidate, so
 * it never takes the question's place. A hit that contains the whole query is never passed on credit
 * (the original query's exact matches keep priority). Chosen on the tuning data (docs/benchmarks.md,
 * "Question → reply credit"). For CJK queries keyword-exchanges.ts builds on it: the credit decides
 * where each session ranks, the exchange rules which of the session's hits anchors.
 */

/** Share of the question's score a reply adds when scores are the CJK coverage blend (0–1; keyword-coverage.ts). 0.25 / 0.75 / 1 were worse on the tuning sets. */
export const REPLY_CREDIT_COVERAGE = 0.5;
/** Share of the question's score a reply adds when scores are BM25 (non-CJK queries). 0.5 cost LoCoMo dev open-domain R@10, 1 its R@1. */
export const REPLY_CREDIT_BM25 = 0.25;

/** What creditReplies reads of a hit. */
export interface PairCandidate {
  messageId: number;
  sessionId: string;
  role: string;
  /** Larger is better, > 0 for a scored hit. */
  score: number;
  automated: boolean;
}

export interface ReplyCreditOptions<T> {
  /** The hit's message text (for the question test). */
  textOf: (hit: T) => string;
  /** Share of the question's score added to its reply's. */
  credit: number;
  /** Whether the hit contains the whole query: such a hit is never passed by a reply on credit. */
  whole?: (hit: T) => boolean;
}

const CONVERSATIONAL = new Set(['user', 'assistant']);
const SENTENCE_END = new Set(['.', '!', '。', '！', '…']);

/**
 * Whether `text` ends by asking something: its last sentence mark (ASCII or full-width; trailing
 * quotes, brackets, emoji and spaces are skipped) is a question mark.
 */
export function endsWithQuestion(text: string): boolean {
  for (let i = text.length - 1; i >= 0; i--) {
    const ch = text[i]!;
    if (ch === '?' || ch === '？') return true;
    if (SENTENCE_END.has(ch) || /[\p{L}\p{N}]/u.test(ch)) return false;
  }
  return false;
}

/**
 * Re-scores `hits`: hit B adds `credit ×` the score of hit A when A is the message directly before
 * B in the same session (`B.messageId === A.messageId + 1`, so no other message lies between them),
 * one is a user and the other an assistant message, and A ends with a question. The credit never
 * lifts B, when B does not contain the whole query, to or above a hit that does. Scores of
 * questions and of every other hit stay as they are (no chains).
 *
 * Order contract: the result is always best first — by score, ties in input order, and when every
 * automated hit came after the interactive ones in the input, that stays so (automated last, each
 * part by score). The callers pass their ranking order (`compareRanked`, or the coverage blend's
 * score order), which already is that order: then, when nothing is credited, the input comes back
 * as it is after one linear check (no sort on the hot path). Input in any other order is no
 * longer returned as it came (it used to be, when nothing was credited): it is sorted too.
 */
export function creditReplies<T extends PairCandidate>(hits: readonly T[], options: ReplyCreditOptions<T>): T[] {
  const { credit, textOf } = options;
  if (hits.length < 2) return [...hits];
  const byId = new Map(hits.map((h) => [h.messageId, h]));
  const wholeCache = new Map<T, boolean>();
  const whole = (h: T) => {
    if (!options.whole) return false;
    let w = wholeCache.get(h);
    if (w === undefined) wholeCache.set(h, (w = options.whole(h)));
    return w;
  };
  let changed = false;
  const scored = hits.map((b, i) => {
    const a = credit > 0 ? byId.get(b.messageId - 1) : undefined;
    let s = b.score;
    if (
      a &&
      a.sessionId === b.sessionId &&
      a.role !== b.role &&
      CONVERSATIONAL.has(a.role) &&
      CONVERSATIONAL.has(b.role) &&
      a.score > 0 &&
      b.score > 0 &&
      endsWithQuestion(textOf(a))
    ) {
      s = b.score + credit * a.score;
      if (options.whole && !whole(b)) {
        let cap = Infinity;
        for (const h of hits) if (h.score > b.score && h.score < cap && whole(h)) cap = h.score;
        if (s >= cap) s = Math.max(b.score, cap - 1e-9 * Math.abs(cap));
      }
      if (s !== b.score) changed = true;
    }
    return { h: b, i, s };
  });
  const partitioned = hits.every((h, i) => i === 0 || !hits[i - 1]!.automated || h.automated);
  const order = (x: { h: T; i: number; s: number }, y: { h: T; i: number; s: number }) => (partitioned ? Number(x.h.automated) - Number(y.h.automated) : 0) || y.s - x.s || x.i - y.i;
  // Nothing credited and already best first (the callers' order): the input as it is, no sort.
  if (!changed && scored.every((x, k) => k === 0 || order(scored[k - 1]!, x) < 0)) return [...hits];
  scored.sort(order);
  return scored.map(({ h, s }) => (s === h.score ? h : { ...h, score: s }));
}
