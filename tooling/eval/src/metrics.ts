/**
 * Retrieval metrics of the eval, as pure functions over one question's ranked results (so they can
 * be checked against hand-computed tables). A result is a conversation-level hit of session_search:
 * its anchor message plus `other_message_ids` (other matching messages of the same conversation).
 * Evidence counts per unit (a LoCoMo turn, a MemoryBank query/response pair):
 * - recall@k: share of the question's units found in the first k results (anchor or other ids;
 *   `anchorOnly` counts anchors only — session_search de-duplicates per conversation, so the two
 *   differ a lot when evidence sits in the same conversation);
 * - anchor recall@k: the same counting anchors only (is the result's anchor the evidence message?);
 * - conversation recall@k: share of units whose conversation is one of the first k results, whatever
 *   the anchor (is the conversation right?) — the gap to anchor recall is a wrong anchor;
 * - reciprocal rank: 1 / rank of the first result holding any unit (0 when none);
 * - all found@k: every unit found in the first k.
 * Latency percentiles use the nearest-rank definition.
 */

export interface RankedResult {
  /** Evidence units hit by the result's anchor (at most one). */
  anchorUnits: readonly string[];
  /** Evidence units hit by its other_message_ids. */
  otherUnits: readonly string[];
  /** Evidence units that lie anywhere in the result's conversation (anchor or not); absent = anchor + other units. */
  conversationUnits?: readonly string[];
}

export interface QuestionOutcome {
  questionId: string;
  category: string;
  split: 'dev' | 'test';
  /** Distinct evidence units of the question (empty = not scored). */
  units: readonly string[];
  results: readonly RankedResult[];
  latencyMs: number;
  /** Results (anchors or other ids) whose conversation is not in the asking project. */
  leaks: number;
  /** Number of results returned. */
  returned: number;
  /** Foreign questions: results from the project that holds the answer (expected 0). */
  foreignHits: number;
  /** Foreign questions: what came back instead (the top results' snippets, clipped). */
  returnedSnippets?: string[];
  error?: string;
}

function foundUnits(results: readonly RankedResult[], k: number, anchorOnly: boolean): Set<string> {
  const found = new Set<string>();
  for (const r of results.slice(0, k)) {
    for (const u of r.anchorUnits) found.add(u);
    if (!anchorOnly) for (const u of r.otherUnits) found.add(u);
  }
  return found;
}

/** Share of `units` lying in the conversations of the first k results (see the module header). */
export function conversationRecallAtK(units: readonly string[], results: readonly RankedResult[], k: number): number {
  if (units.length === 0) return NaN;
  const found = new Set<string>();
  for (const r of results.slice(0, k)) for (const u of r.conversationUnits ?? [...r.anchorUnits, ...r.otherUnits]) found.add(u);
  return units.filter((u) => found.has(u)).length / units.length;
}

export function recallAtK(units: readonly string[], results: readonly RankedResult[], k: number, anchorOnly = false): number {
  if (units.length === 0) return NaN;
  const found = foundUnits(results, k, anchorOnly);
  return units.filter((u) => found.has(u)).length / units.length;
}

/**
 * Anchor hit@k: 1 when one of the first k results' anchors is an evidence message of the question,
 * else 0 — "is the anchor the evidence message?" per question, so a question labelled with two
 * turns is not capped at 0.5 as in anchor recall@k (an anchor is one message).
 */
export function anchorHitAtK(units: readonly string[], results: readonly RankedResult[], k: number): number {
  if (units.length === 0) return NaN;
  const wanted = new Set(units);
  return results.slice(0, k).some((r) => r.anchorUnits.some((u) => wanted.has(u))) ? 1 : 0;
}

export function allFoundAtK(units: readonly string[], results: readonly RankedResult[], k: number, anchorOnly = false): boolean {
  return units.length > 0 && recallAtK(units, results, k, anchorOnly) === 1;
}

export function reciprocalRank(units: readonly string[], results: readonly RankedResult[], anchorOnly = false): number {
  const wanted = new Set(units);
  for (let i = 0; i < results.length; i++) {
    const r = results[i]!;
    const hit = r.anchorUnits.some((u) => wanted.has(u)) || (!anchorOnly && r.otherUnits.some((u) => wanted.has(u)));
    if (hit) return 1 / (i + 1);
  }
  return 0;
}

/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN when empty. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export const KS = [1, 5, 10] as const;

export interface Aggregate {
  /** Questions asked (including unscored ones). */
  asked: number;
  /** Questions with evidence (scored). */
  scored: number;
  recall: Record<(typeof KS)[number], number>;
  recallAnchor: Record<(typeof KS)[number], number>;
  /** Share of questions whose first k anchors include an evidence message (anchorHitAtK). */
  hitAnchor: Record<(typeof KS)[number], number>;
  /** Conversation-level recall@k (conversationRecallAtK). */
  recallConversation: Record<(typeof KS)[number], number>;
  mrr: number;
  mrrAnchor: number;
  allFound10: number;
  p50Ms: number;
  p95Ms: number;
  leaks: number;
  errors: number;
}

const mean = (xs: readonly number[]): number => (xs.length === 0 ? NaN : xs.reduce((s, x) => s + x, 0) / xs.length);

export function aggregate(outcomes: readonly QuestionOutcome[]): Aggregate {
  const scored = outcomes.filter((o) => o.units.length > 0 && o.error === undefined);
  const rec = (k: number, anchorOnly: boolean) => mean(scored.map((o) => recallAtK(o.units, o.results, k, anchorOnly)));
  const hit = (k: number) => mean(scored.map((o) => anchorHitAtK(o.units, o.results, k)));
  const conv = (k: number) => mean(scored.map((o) => conversationRecallAtK(o.units, o.results, k)));
  const lat = outcomes.filter((o) => o.error === undefined).map((o) => o.latencyMs);
  return {
    asked: outcomes.length,
    scored: scored.length,
    recall: { 1: rec(1, false), 5: rec(5, false), 10: rec(10, false) },
    recallAnchor: { 1: rec(1, true), 5: rec(5, true), 10: rec(10, true) },
    hitAnchor: { 1: hit(1), 5: hit(5), 10: hit(10) },
    recallConversation: { 1: conv(1), 5: conv(5), 10: conv(10) },
    mrr: mean(scored.map((o) => reciprocalRank(o.units, o.results))),
    mrrAnchor: mean(scored.map((o) => reciprocalRank(o.units, o.results, true))),
    allFound10: mean(scored.map((o) => (allFoundAtK(o.units, o.results, 10) ? 1 : 0))),
    p50Ms: percentile(lat, 50),
    p95Ms: percentile(lat, 95),
    leaks: outcomes.reduce((s, o) => s + o.leaks, 0),
    errors: outcomes.filter((o) => o.error !== undefined).length,
  };
}
