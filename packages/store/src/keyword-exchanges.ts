/**
 * Which message of a question/reply exchange anchors a CJK keyword search (issue 22: exact-term
 * anchors). The coverage re-rank (keyword-coverage.ts) scores each candidate on its own text, but a
 * conversation's facts are often split over two messages: the assistant asks "你们组的小组成员人数多吗？"
 * and the user answers "八个人左右" — the query's words sit in the question, the fact in the reply; or
 * the assistant gives a recipe and the user echoes "我会尝试做糖醋排骨的" — the query's words sit in
 * both, the fact in the first. The rules below decide, applied to the candidates the search already
 * loaded (no SQL, no further rows, so nothing outside the scope is ever read; a pair is two hits that
 * are directly adjacent in one session, of the two conversational roles):
 *
 * 1. **A reply is read with the question it answers.** When A ends with a question and its reply B
 *    matches the query itself, B is scored on A's closing question sentence(s) plus its own text;
 *    when that covers at least what A covers (the question holds the query's words, the reply the
 *    answer), B takes A's place, above it by EXCHANGE_REPLY_SHARE of B's own score. When A's own
 *    statements match more than its question and the reply together, A stays first.
 * 2. **After a follow-up question, the reply may pass the statement before it** (S → A → B, S and B
 *    of the same speaker): when A's question asks for query words S lacks, B matches at least
 *    CHAIN_REPLY_SHARE of what S matches, and S, the question and B together cover more than S. A
 *    statement that itself took its question's place by rule 1 is not passed this way.
 * 3. **An echo never passes what it echoes.** When A does not end with a question and B matches no
 *    unit of the query that A lacks, B (an acknowledgement, "thanks, I'll try X") ranks right after
 *    A, however short it is (BM25's length normalisation favours the short echo).
 *
 * A reply that does not contain the whole query never passes, by these rules, a third hit that does
 * (the original query's exact matches keep priority); its own question it may pass. The rules only
 * choose the order inside a session: each session keeps the places (and scores) the coverage blend
 * and the question → reply credit gave it, so which conversations rank where does not change.
 */
import { COVERAGE_BM25_SHARE, coverage, type CoverageUnit } from './keyword-coverage.js';
import { creditReplies, endsWithQuestion, REPLY_CREDIT_COVERAGE } from './keyword-pairs.js';

/** What rankExchanges reads of a candidate (BM25 `score`, larger is better; `text` normalised as for coverage). */
export interface ExchangeCandidate {
  messageId: number;
  sessionId: string;
  role: string;
  score: number;
  text: string;
  automated: boolean;
}

const CONVERSATIONAL = new Set(['user', 'assistant']);
const SENTENCE_END = /[.!?。！？…\n]/u;

/**
 * The closing question of `text`: its trailing sentences that end with a question mark (ASCII or
 * full-width), e.g. "你觉得哪个景点是你最喜欢的呢？" of "厦门很漂亮。你觉得哪个景点是你最喜欢的呢？";
 * empty when the text does not end with a question.
 */
export function closingQuestion(text: string): string {
  if (!endsWithQuestion(text)) return '';
  let start = text.length;
  // Walk back over trailing question sentences: stop at the first sentence end that is not '?'.
  let i = text.length - 1;
  // Skip the final question mark run and anything after it (quotes, emoji, spaces).
  while (i >= 0 && text[i] !== '?' && text[i] !== '？') i--;
  for (; i >= 0; i--) {
    const ch = text[i]!;
    if (SENTENCE_END.test(ch) && ch !== '?' && ch !== '？') break;
    start = i;
  }
  return text.slice(start);
}

/** Which rule moved a candidate (rules 1 and 2 are both 'reply-reads-question'; for tests and diagnostics). */
export type ExchangeRule = 'reply-reads-question' | 'echo-follows-source';

const EPS = 1e-9;
/**
 * A reply takes the place of the statement before its question only when it matches at least this
 * share of what the statement matches (a one-word reply to a follow-up question does not displace a
 * statement that holds the query). Chosen on the three MemoryBank dev sets (docs/benchmarks.md).
 */
export const CHAIN_REPLY_SHARE = 0.4;
/**
 * When a reply takes a place (rule 1), it ranks above it by this share of its own blended score, so
 * a question/reply pair that both match counts for more than either message alone (0 = just above:
 * one dev set worse; 0.5: passes third messages; 0.25 chosen on the three MemoryBank dev sets).
 */
export const EXCHANGE_REPLY_SHARE = 0.25;

/**
 * Re-orders BM25 candidates (best first) for a CJK query: the coverage blend of keyword-coverage.ts
 * and the question → reply credit of keyword-pairs.ts (REPLY_CREDIT_COVERAGE) decide where each
 * session's hits rank, exactly as without this module; the exchange rules above then decide which of
 * a session's hits fills each of its places (its best place is the conversation's anchor). Returns
 * new objects with the score of the place they fill (and `rule` when an exchange rule moved the
 * hit), best first. `units` empty, or fewer than two rows: BM25's order, unchanged.
 */
export function rankExchanges<T extends ExchangeCandidate>(rows: readonly T[], units: readonly CoverageUnit[]): (T & { rule?: ExchangeRule })[] {
  if (units.length === 0 || rows.length < 2) return rows.map((r) => ({ ...r }));
  const best = Math.max(...rows.map((r) => r.score));
  const blend = (b: number, c: number) => COVERAGE_BM25_SHARE * b + (1 - COVERAGE_BM25_SHARE) * c;
  const cov = new Map(rows.map((r) => [r.messageId, coverage(r.text, units)]));
  const whole = (r: T) => cov.get(r.messageId)! >= 1 - EPS;
  // The coverage re-rank's order (keyword-coverage.ts: blended score, ties in input order): the
  // credit below keeps its input order when no reply is credited, so it must get them sorted.
  const blended = rows
    .map((r, i) => ({ r: { ...r, score: blend(best > 0 ? r.score / best : 0, cov.get(r.messageId)!) }, i }))
    .sort((a, b) => b.r.score - a.r.score || a.i - b.i)
    .map(({ r }) => r);
  const s0 = new Map(blended.map((r) => [r.messageId, r.score]));
  // The places: coverage + the plain credit (a reply adds a share of its question's score).
  const places = creditReplies(blended, { textOf: (r) => r.text, credit: REPLY_CREDIT_COVERAGE, whole });
  const s1 = new Map(places.map((r) => [r.messageId, r.score]));
  const byId = new Map(rows.map((r) => [r.messageId, r]));
  const isPair = (a: T, b: T) => a.sessionId === b.sessionId && a.role !== b.role && CONVERSATIONAL.has(a.role) && CONVERSATIONAL.has(b.role) && a.score > 0 && b.score > 0;
  // The order inside a session: the credited score, changed by the rules.
  const order = new Map(s1);
  const rule = new Map<number, ExchangeRule>();
  // Rule 1, in message order. Targets are the credited scores (not those this rule raised: no
  // chains); a statement that itself took its question's place is not passed by the reply to the
  // next question.
  const promoted = new Set<number>();
  for (const r of [...rows].sort((a, b) => a.messageId - b.messageId)) {
    const q = byId.get(r.messageId - 1);
    if (!q || !isPair(q, r) || !(cov.get(r.messageId)! > 0)) continue;
    const question = closingQuestion(q.text);
    if (!question) continue;
    const cq = cov.get(q.messageId)!;
    const st = byId.get(r.messageId - 2);
    let target = -Infinity;
    if (st && st.role === r.role && isPair(st, q) && !promoted.has(st.messageId)) {
      // The statement before the question: the reply takes its place when the question asks for
      // something of the query the statement lacks, the reply matches a fair share of what the
      // statement matches, and the three read together cover more than the statement.
      const cs = cov.get(st.messageId)!;
      const asks = coverage(`${st.text}\n${question}`, units) > cs + EPS;
      const answers = cov.get(r.messageId)! >= CHAIN_REPLY_SHARE * cs;
      const c = coverage(`${st.text}\n${question}\n${r.text}`, units);
      if (asks && answers && c > cs + EPS && c >= cq - EPS) target = Math.max(s1.get(st.messageId)!, s1.get(q.messageId)!);
    }
    // The question alone: all it matches is in its closing question and the reply.
    if (target === -Infinity && coverage(`${question}\n${r.text}`, units) >= cq - EPS) target = s1.get(q.messageId)!;
    if (target === -Infinity) continue;
    const own = s1.get(r.messageId)!;
    let s = Math.max(own, target + Math.max(EPS, EXCHANGE_REPLY_SHARE * s0.get(r.messageId)!));
    if (!whole(r)) {
      // Never past a third hit holding the whole query: the lowest such hit above the reply's own score caps it.
      let cap = Infinity;
      for (const y of rows) {
        const ys = order.get(y.messageId)!;
        if (y !== q && y !== r && whole(y) && ys > own) cap = Math.min(cap, ys);
      }
      if (s >= cap) s = Math.max(own, cap - EPS);
    }
    if (s > own) {
      order.set(r.messageId, s);
      rule.set(r.messageId, 'reply-reads-question');
      promoted.add(r.messageId);
    }
  }
  // Rule 2: an echo right after a statement it repeats.
  const afterRule1 = new Map(order);
  for (const r of rows) {
    const a = byId.get(r.messageId - 1);
    if (!a || !isPair(a, r) || endsWithQuestion(a.text)) continue;
    const src = afterRule1.get(a.messageId)!;
    if (order.get(r.messageId)! <= src) continue;
    if (units.some((u) => r.text.includes(u.text) && !a.text.includes(u.text))) continue;
    order.set(r.messageId, src - EPS);
    rule.set(r.messageId, 'echo-follows-source');
  }
  // Each session's places (in the credited ranking) are refilled with its hits in their new order,
  // so which conversations rank where stays exactly what coverage and credit gave.
  const index = new Map(places.map((r, i) => [r.messageId, i]));
  const bySession = new Map<string, T[]>();
  for (const p of places) {
    let list = bySession.get(p.sessionId);
    if (!list) bySession.set(p.sessionId, (list = []));
    list.push(byId.get(p.messageId)!);
  }
  for (const list of bySession.values()) list.sort((a, b) => order.get(b.messageId)! - order.get(a.messageId)! || index.get(a.messageId)! - index.get(b.messageId)!);
  const next = new Map<string, number>();
  return places.map((place) => {
    const k = next.get(place.sessionId) ?? 0;
    next.set(place.sessionId, k + 1);
    const r = bySession.get(place.sessionId)![k]!;
    const moved = rule.get(r.messageId);
    return moved ? { ...r, score: place.score, rule: moved } : { ...r, score: place.score };
  });
}
