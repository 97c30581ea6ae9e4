/**
 * A small match ranked in JavaScript, without FTS5's bm25(): where a project's search matches few
 * rows, every matching row of the project is scored with the scope's own BM25 (keyword-scope-stats.ts)
 * and the best `limit` kept — the same answer as the ranked JOIN of keyword-rank.ts, which first
 * lets FTS5 rank every match by the whole index's statistics and then scores its best rows again.
 * On a small profile most of a search's time was that statement: FTS5's IDF pass and per-row
 * bm25() (~0.5 ms of a 5k-message profile's 1.5 ms), then the JOIN that tests every match of every
 * project against `messages` and `sessions` (~0.9 ms) — and the re-scoring came on top. Here:
 *
 * 1. the match's rowids from FTS5 alone (matching only, no ranking function);
 * 2. narrowed to the project's rows by the bitmap the connection keeps (ScopedRanking.projectRows);
 * 3. every one of them scored (its text kept on the connection, keyword-kept-tokens.ts);
 * 4. the gate (messageGateSql: visibility, roles, hidden sessions, the project, the excluded live
 *    messages, the date range) tested on them best first, a batch per statement, until `limit`
 *    interactive rows pass — authoritative for the scope whatever the bitmap says, so a stale bit
 *    can hide a row from one search but never show another project's — and the survivors sorted by
 *    the one order keyword-rank.ts uses (compareRanked: interactive first, then score, then newest).
 *
 * Taken only where the phrase counts bound the work before anything is read (matchBounds): at most
 * SMALL_MATCH_ROWS rowids in the whole index and, in the project, at most SMALL_SCORE_ROWS rows to
 * score; otherwise keyword-rank.ts ranks as before.
 */
import type { RecallDatabase } from '@recall/schema';
import { FTS_TABLE } from './fts-index.js';
import { compareRanked, type RankedCandidate } from './keyword-rules.js';
import { candidateGateSql, stmt } from './keyword-sql.js';
import type { ScopedRanking } from './keyword-scope-stats.js';
import { testKnob } from './test-knob.js';

/** Rowids of the whole index a small match may read at most (its phrases' document frequencies summed). */
export const SMALL_MATCH_ROWS = 4_000;
/** Rows of the project a small match may score at most (they are all scored). */
export const SMALL_SCORE_ROWS = 300;
/** Rows gated per statement at least (twice the limit otherwise). */
const GATE_BATCH_MIN = 16;
const smallScoreMax = testKnob<number>();

/**
 * Test knob: the most project rows the small-match path scores (0: never taken, so keyword-rank.ts
 * ranks every match; null: SMALL_SCORE_ROWS again). Returns the previous setting. Never changes an
 * answer, only how it is found.
 */
export function setSmallScoreMax(max: number | null): number | null {
  return smallScoreMax.set(max);
}

const ROWIDS_SQL = `SELECT rowid FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH @match`;
const GATE_SQL = candidateGateSql('project');
const GATE_DATED_SQL = candidateGateSql('project', true);

/**
 * The best `limit` rows of a project search for `match` (unscoped: no scope-token wrapper), when
 * the match is small enough to score whole (see the module header), else null. `base` holds the
 * gate's parameters (keyword-search.ts); `bounds` are matchBounds of the match over the whole
 * index's and the project's phrase counts.
 */
export function smallRanked(
  db: RecallDatabase,
  base: Record<string, unknown>,
  match: string,
  limit: number,
  ranking: ScopedRanking,
  bounds: { whole: { atMost: number }; scoped: { atLeast: number; atMost: number } },
): RankedCandidate[] | null {
  const max = smallScoreMax.get() ?? SMALL_SCORE_ROWS;
  const rows = ranking.projectRows;
  if (!rows || max <= 0 || bounds.whole.atMost > SMALL_MATCH_ROWS || bounds.scoped.atLeast > max) return null;
  const ids: number[] = [];
  for (const id of stmt(db, ROWIDS_SQL).pluck().all({ match }) as number[]) if (rows[id] === 1) ids.push(id);
  if (ids.length > max) return null;
  if (ids.length === 0) return [];
  const dated = base['since'] != null || base['until'] != null;
  // Scored first, then gated best first in batches until `limit` interactive rows pass: every row
  // not gated scores below each one gated, so it cannot reach the answer (automated rows rank after
  // every interactive one, and ties fall to the newer message, as in compareRanked).
  const scores = ranking.score(ids);
  const order = ids.map((id, i) => ({ id, score: scores[i]! })).sort((a, b) => b.score - a.score || b.id - a.id);
  const batch = Math.max(2 * limit, GATE_BATCH_MIN);
  const out: RankedCandidate[] = [];
  let interactive = 0;
  for (let i = 0; i < order.length && interactive < limit; i += batch) {
    const part = order.slice(i, i + batch);
    const scoreOf = new Map(part.map((r) => [r.id, r.score]));
    for (const r of stmt(db, dated ? GATE_DATED_SQL : GATE_SQL).all({ ...base, ids: JSON.stringify(part.map((r) => r.id)) }) as { id: number; automated: number }[]) {
      out.push({ id: r.id, rank: -scoreOf.get(r.id)!, automated: r.automated });
      if (r.automated === 0) interactive++;
    }
  }
  return out.sort(compareRanked).slice(0, limit);
}
