/**
 * BM25 with the searched scope's own statistics on SQLite. FTS5's `bm25()` takes the message
 * count, the mean length and each phrase's document frequency over the whole `messages_fts`
 * table — every project of the profile — so the order of two messages of project A changed with
 * what project B held (and revealed something of it). The ranked queries of keyword-rank.ts still
 * let FTS5 order the candidates (fast, in C); their best rows are then scored again here with the
 * scope's statistics, by the formula FTS5 uses (keyword-bm25.ts, the one PostgreSQL uses too):
 *
 * - messages and total length of a project: `keyword_scope_totals` (migration 0008, kept by
 *   fts-index.ts in the index's own transactions); of a project-less conversation's own history:
 *   summed from FTS5's per-row sizes of its messages;
 * - each phrase's document frequency in a project: what the connection keeps (keyword-kept.ts: the
 *   phrase's rows tested against a bitmap of the project's rows, or FTS5's `scope token AND phrase`
 *   count for a phrase with many rows; brought up to date by new rows and logged moves), or, where
 *   that is not available, an FTS5 count joined to the project; for a list of sessions, joined to
 *   their messages;
 * - a candidate's term frequencies: its stored text through the index's own tokenisation
 *   (keyword-tokens.ts), its length from FTS5's per-row size.
 *
 * keyword-rank.ts reads more candidates until bm25ScopedBound proves that no unread match can
 * score above the last kept hit, so the answer is the full scoped ranking, not an approximation
 * of it. Nothing here reads another project's rows except through whole-table counts that only
 * bound the candidate window (never a score, a row or a count shown to anyone).
 */
import type { RecallDatabase } from '@recall/schema';
import { decodeDocsize, decodeVarints, FTS_TABLE, projectTotals, scopeTokensClean, scopeTotalsReady } from './fts-index.js';
import { bm25ScopedBound, bm25Scorer, type Bm25Stats } from './keyword-bm25.js';
import { INDEX_TOP_SQL, keptFrequencies, type IndexState } from './keyword-kept.js';
import { keptCandidate, keptTokens, leafFrequencies } from './keyword-kept-tokens.js';
import { loadDetails, stmt, type MessageDetails, type ScopeParams } from './keyword-sql.js';
import { frequencies, matchLeaves, type MatchLeaf } from './keyword-tokens.js';

/** A search's per-scope BM25: the leaves, the scope's statistics, and (lazily) the whole table's for the window bound. */
export interface ScopedRanking {
  readonly leaves: readonly MatchLeaf[];
  readonly scoped: Bm25Stats;
  /**
   * Each leaf's document frequency in the whole index where this search already counted it (the
   * window bound's statistics), else null. With `scoped.documentFrequency` it tells keyword-rank.ts
   * how many rows a match can have without counting them (matchBounds).
   */
  readonly wholeFrequency: readonly number[] | null;
  /**
   * The project's index rows as a bitmap by rowid (1 = the project's) as this search read them, where
   * the connection keeps it (a project search while no moved session awaits its token rewrite), else
   * null. Only narrows candidates: the statements' gate stays authoritative for the scope.
   */
  readonly projectRows: Uint8Array | null;
  /** Per-scope scores (higher is better) of these indexed messages, in their order (0 for a message not indexed). */
  score(ids: readonly number[]): Float64Array;
  /** The most a match scoring at most `wholeScore` by FTS5's bm25() can score in the scope. */
  bound(wholeScore: number): number;
}

const DF_SQL = `SELECT count(*) FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH @match`;
const DF_PROJECT_JOIN_SQL = `SELECT count(*) FROM ${FTS_TABLE}
  CROSS JOIN messages AS m ON m.id = ${FTS_TABLE}.rowid
  CROSS JOIN sessions AS s ON s.id = m.session_id
  WHERE ${FTS_TABLE} MATCH @match AND s.project_id = @projectId`;
const DF_SESSIONS_SQL = `SELECT count(*) FROM ${FTS_TABLE}
  CROSS JOIN messages AS m ON m.id = ${FTS_TABLE}.rowid
  WHERE ${FTS_TABLE} MATCH @match AND ${FTS_TABLE}.rowid BETWEEN @minId AND @maxId
    AND m.session_id IN (SELECT value FROM json_each(@sessions))`;
const SESSIONS_SIZES_SQL = `SELECT x.sz FROM messages AS m CROSS JOIN ${FTS_TABLE}_docsize AS x ON x.id = m.id
  WHERE m.session_id IN (SELECT value FROM json_each(@sessions))`;
const SIZES_SQL = `SELECT id, sz FROM ${FTS_TABLE}_docsize WHERE id IN (SELECT value FROM json_each(?))`;
const AVERAGES_SQL = `SELECT block FROM ${FTS_TABLE}_data WHERE id = 1`;
/**
 * The scope's BM25 for `match`, or null where the scope's totals are not available (a read-only
 * connection to a database whose totals were never filled: FTS5's whole-table ranking is kept).
 */
export function scopedRanking(db: RecallDatabase, sp: ScopeParams, match: string, details?: Map<number, MessageDetails>): ScopedRanking | null {
  const leaves = matchLeaves(match);
  const into = details ?? new Map<number, MessageDetails>();
  let messages: number;
  let tokensTotal: number;
  let documentFrequency: number[];
  let wholeFrequency: number[] | null = null;
  let state: IndexState | null = null;
  let projectRows: Uint8Array | null = null;
  if (sp.kind === 'project') {
    if (!scopeTotalsReady(db.raw)) return null;
    const projectId = sp.params['projectId'] as string;
    const totals = projectTotals(db.raw, projectId);
    messages = totals.messages;
    tokensTotal = totals.tokens;
    // The scope token's rows are the project's only while no moved session awaits its rewrite
    // (never drained here: a search writes only where it needs the token's speed, keyword-rank.ts).
    // Read before the project's rows, so that their set holds every project row up to it.
    const upTo = stmt(db, INDEX_TOP_SQL).pluck().get() as number;
    const kept = keptFrequencies(db, projectId, totals, leaves, upTo, scopeTokensClean(db.raw));
    state = kept.state;
    projectRows = kept.rows;
    if (kept.scoped) {
      documentFrequency = kept.scoped;
      wholeFrequency = kept.whole;
    } else documentFrequency = leaves.map((l) => stmt(db, DF_PROJECT_JOIN_SQL).pluck().get({ match: l.phrase, projectId }) as number);
  } else {
    const p = sp.params;
    messages = 0;
    tokensTotal = 0;
    for (const sz of stmt(db, SESSIONS_SIZES_SQL).pluck().all({ sessions: p['sessions'] }) as Buffer[]) {
      messages++;
      tokensTotal += decodeDocsize(sz);
    }
    documentFrequency = leaves.map((l) => stmt(db, DF_SESSIONS_SQL).pluck().get({ match: l.phrase, minId: p['minId'], maxId: p['maxId'], sessions: p['sessions'] }) as number);
  }
  const scoped: Bm25Stats = { messages: Math.max(messages, 1), averageLength: messages > 0 ? tokensTotal / messages : 1, documentFrequency };
  let whole: Bm25Stats | null = null;
  const wholeStats = (): Bm25Stats => {
    if (whole) return whole;
    const block = stmt(db, AVERAGES_SQL).pluck().get() as Buffer | undefined;
    const [rows, ...columns] = block ? decodeVarints(block) : [0];
    const total = columns.reduce((a, b) => a + b, 0);
    whole = {
      messages: Math.max(rows ?? 0, 1),
      averageLength: (rows ?? 0) > 0 ? total / rows! : 1,
      documentFrequency: wholeFrequency ?? leaves.map((l) => stmt(db, DF_SQL).pluck().get({ match: l.phrase }) as number),
    };
    return whole;
  };
  const cache = new Map<number, number>();
  const scorer = bm25Scorer(leaves, scoped);
  const freq = new Float64Array(leaves.length);
  // Without a kept state (a list of sessions) a row is counted on its text.
  const count = state ? null : frequencies(leaves);
  const keptOf = () => (state ? keptTokens(db, state) : null);
  return {
    leaves,
    scoped,
    wholeFrequency,
    projectRows,
    score(ids) {
      const missing = ids.filter((id) => !cache.has(id));
      if (missing.length > 0) {
        // A project search keeps its candidates' text (and tokens once needed) on the connection (keyword-kept-tokens.ts).
        const kept = keptOf();
        const unknown = kept ? missing.filter((id) => kept.get(id) === undefined) : missing;
        const sizes = new Map<number, number>();
        if (unknown.length > 0) {
          for (const r of stmt(db, SIZES_SQL).all(JSON.stringify(unknown)) as { id: number; sz: Buffer }[]) sizes.set(r.id, decodeDocsize(r.sz));
          // The rows' text, read with everything keywordSearch shows of a hit, so a candidate that
          // makes the answer is not read again (loadDetails).
          loadDetails(db, unknown, into);
        }
        for (const id of missing) {
          let t = kept?.get(id);
          if (t) {
            leafFrequencies(t, leaves, freq);
            cache.set(id, scorer(freq, t.length));
            continue;
          }
          const content = into.get(id)?.content ?? '';
          const length = sizes.get(id);
          if (!kept) {
            cache.set(id, scorer(count!(content), length ?? 0));
            continue;
          }
          t = keptCandidate(content, length ?? 0);
          // Only indexed rows (with a size) are kept; FTS5 returns no other.
          if (length !== undefined) kept.keep(id, t);
          leafFrequencies(t, leaves, freq);
          cache.set(id, scorer(freq, t.length));
        }
      }
      const out = new Float64Array(ids.length);
      for (let i = 0; i < ids.length; i++) out[i] = cache.get(ids[i]!) ?? 0;
      return out;
    },
    bound(wholeScore) {
      return bm25ScopedBound(leaves, wholeStats(), scoped, wholeScore);
    },
  };
}
