/**
 * What a connection keeps of the candidates it scored (keyword-scope-stats.ts), so that the next
 * search that meets them counts their query phrases without reading and tokenising them again:
 * each message's indexed text and FTS5 length, and — built the first time a phrase needs them —
 * its columns' tokens with their counts. A CJK phrase is counted as a substring of the text
 * (keyword-tokens.ts, MatchLeaf.needle): tokenising a Chinese message costs 30–100 times that.
 * Kept while the index changes only by new messages and logged moves between two projects
 * (keyword-kept.ts); dropped by anything else.
 */
import type { RecallDatabase } from '@recall/schema';
import { onlyMovesSince, type IndexState } from './keyword-kept.js';
import { columnTokensOfText, hasRunGap, needleFrequency, phraseFrequency, type MatchLeaf } from './keyword-tokens.js';
import { indexedText } from './search-text.js';

/** A message's columns as the index's tokens, with how often each token occurs in each. */
export interface KeptColumns {
  readonly body: readonly string[];
  readonly cjk: readonly string[];
  /** How often each token occurs in `body` / `cjk` (a one-token phrase's frequency without a scan). */
  readonly bodyCounts: ReadonlyMap<string, number>;
  readonly cjkCounts: ReadonlyMap<string, number>;
}

/** A candidate as a connection keeps it: its indexed text, its FTS5 length (scope token included) and, once needed, its columns' tokens. */
export interface KeptTokens {
  /** The message's indexed text (indexedText): CJK phrases are counted in it as substrings. */
  readonly text: string;
  readonly length: number;
  /** The columns' tokens, built by keptColumns the first time a phrase without a needle is counted. */
  columns: KeptColumns | undefined;
  /** hasRunGap of the text, taken the first time a bigram chain is counted. */
  gap: boolean | undefined;
}

/**
 * What a connection keeps at most, in units of two per character of kept text (then it starts
 * again): about 500,000 characters, a few tens of MB with the columns built for them — the whole
 * text of a 3,000-message project.
 */
const KEPT_UNITS_MAX = 1_000_000;
const tokenCache = new WeakMap<object, { revisionSum: number; moveSeq: number; units: number; byId: Map<number, KeptTokens> }>();

/**
 * The candidates this connection keeps, as of `state`: kept while the index changed only by new
 * messages and logged moves between two projects (a message's text and length stay as they were; a
 * move to or from no project changes its length by its scope token), dropped otherwise.
 * Candidates repeat across a conversation's searches.
 */
export function keptTokens(db: RecallDatabase, state: IndexState): { get(id: number): KeptTokens | undefined; keep(id: number, t: KeptTokens): void } {
  let kept = tokenCache.get(db.raw);
  if (kept && (kept.revisionSum !== state.revisionSum || kept.moveSeq !== state.moveSeq)) {
    const moves = onlyMovesSince(db, kept, state);
    const onlyMoves = moves !== null && moves.every((m) => m.fromProject !== null && m.toProject !== null);
    if (!onlyMoves) kept = undefined;
    else {
      kept.revisionSum = state.revisionSum;
      kept.moveSeq = state.moveSeq;
    }
  }
  if (!kept) tokenCache.set(db.raw, (kept = { revisionSum: state.revisionSum, moveSeq: state.moveSeq, units: 0, byId: new Map() }));
  const entry = kept;
  return {
    get: (id) => entry.byId.get(id),
    keep(id, t) {
      if (entry.units > KEPT_UNITS_MAX) {
        entry.byId.clear();
        entry.units = 0;
      }
      entry.byId.set(id, t);
      // Columns built later are at most a few tokens per character: counted as twice the text.
      entry.units += 2 * t.text.length + 1;
    },
  };
}

/**
 * A message as keptTokens keeps it: its indexed text and FTS5 length; columns are built when a
 * phrase needs them. Every field is there from the start (undefined until built), so every kept
 * candidate has one object shape and the counting functions stay optimised for it (fields added
 * later gave four shapes and repeated deoptimisation in leafFrequencies).
 */
export function keptCandidate(content: string, length: number): KeptTokens {
  return { text: indexedText(content), length, columns: undefined, gap: undefined };
}

function countTokens(column: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of column) out.set(t, (out.get(t) ?? 0) + 1);
  return out;
}

/** The kept message's columns as the index's tokens, built once. */
export function keptColumns(t: KeptTokens): KeptColumns {
  if (!t.columns) {
    const { body, cjk } = columnTokensOfText(t.text);
    t.columns = { body, cjk, bodyCounts: countTokens(body), cjkCounts: countTokens(cjk) };
  }
  return t.columns;
}

/** How often each leaf occurs in a kept message's columns, into `out` (keptFrequency of every leaf, without an array per message). */
export function leafFrequencies(t: KeptTokens, leaves: readonly MatchLeaf[], out: Float64Array): void {
  for (let i = 0; i < leaves.length; i++) out[i] = keptFrequency(t, leaves[i]!);
}

/** How often `leaf` occurs in a kept message's column (the index's own phrase matching). */
export function keptFrequency(t: KeptTokens, leaf: MatchLeaf): number {
  const byNeedle = needleFrequency(t.text, leaf, () => (t.gap ??= hasRunGap(t.text)));
  if (byNeedle !== null) return byNeedle;
  const c = keptColumns(t);
  const counts = leaf.weight === 'A' ? c.bodyCounts : c.cjkCounts;
  if (leaf.tokens.length === 1) return counts.get(leaf.tokens[0]!) ?? 0;
  // A phrase occurs at most as often as its rarest token: most messages lack one of its tokens,
  // and the column is scanned only when every token is there.
  for (const token of leaf.tokens) if (!counts.has(token)) return 0;
  return phraseFrequency(leaf.weight === 'A' ? c.body : c.cjk, leaf.tokens);
}
