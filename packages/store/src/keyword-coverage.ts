/**
 * Coverage re-ranking of CJK keyword hits (issue 22, item 2). FTS5's BM25 over the query's words OR
 * their characters finds the right conversation for most Chinese paraphrases, but its order among
 * the candidates is driven by single rare characters: a message sharing one unusual character with
 * the question outranks the one sharing most of its words. This module re-scores the candidates
 * BM25 already returned (never more rows, so no extra SQL and no change of scope) by how much of the
 * question they contain: the question's CJK characters and overlapping bigrams (bigrams across
 * stop-word-free neighbours too, so `上屉蒸` still credits `蒸` and `屉蒸`), and its Latin words,
 * each weighted (characters common in the index less), blended
 * with BM25 normalised to the best candidate. Chosen on the tuning set
 * packages/store/test/fixtures/cjk-dev-queries.json only (docs/benchmarks.md, "Chinese paraphrases").
 */
import { hasCjk, isStopword, latinUnits, normalizeForSearch, segmentWords, splitRuns, stripParticles } from './search-text.js';

/** Weight of a query bigram found in a message (a character weighs 1; 2 and 3 were worse on the tuning set). */
export const COVERAGE_BIGRAM_WEIGHT = 1;
/** Weight of a character that is common in the index (keyword-rank.ts commonCharacters; 0–1 made no difference on the tuning set). */
export const COVERAGE_COMMON_CHAR_WEIGHT = 0.25;
/** Share of the blended score given to BM25 (normalised to the best candidate); the rest is coverage (0–0.2 best on the tuning set, 0.5+ no gain). */
export const COVERAGE_BM25_SHARE = 0.2;

export interface CoverageUnit {
  text: string;
  weight: number;
  /** Latin words match as tokens; CJK units as substrings. */
  latin: boolean;
}

/**
 * The units of a question whose presence a candidate is scored on, or an empty list when the
 * question has no CJK text (English questions keep BM25's order untouched).
 */
export function coverageUnits(query: string, common: ReadonlySet<string>): CoverageUnit[] {
  const text = normalizeForSearch(query);
  if (!hasCjk(text)) return [];
  const units = new Map<string, CoverageUnit>();
  const add = (u: string, weight: number, latin: boolean) => {
    if (!units.has(u)) units.set(u, { text: u, weight, latin });
  };
  for (const run of splitRuns(text)) {
    if (!run.cjk) {
      for (const unit of latinUnits(run.text)) if (!(unit.parts.length === 1 && isStopword(unit.parts[0]!))) add(unit.parts.join(' '), COVERAGE_BIGRAM_WEIGHT, true);
      continue;
    }
    // Stop-words split the run into content stretches; bigrams are taken inside each stretch.
    const stretches: string[] = [];
    let current = '';
    for (const seg of segmentWords(run.text)) {
      const word = stripParticles(seg);
      if (isStopword(word) || isStopword(seg)) {
        if (current) stretches.push(current);
        current = '';
      } else current += word;
    }
    if (current) stretches.push(current);
    for (const s of stretches) {
      const chars = Array.from(s);
      for (const c of chars) if (!isStopword(c)) add(c, common.has(c) ? COVERAGE_COMMON_CHAR_WEIGHT : 1, false);
      for (let i = 0; i + 1 < chars.length; i++) add(chars[i]! + chars[i + 1]!, COVERAGE_BIGRAM_WEIGHT, false);
    }
  }
  return [...units.values()];
}

/** Weighted share (0..1) of `units` present in normalised `text`. */
export function coverage(text: string, units: readonly CoverageUnit[]): number {
  let total = 0;
  let found = 0;
  for (const u of units) {
    total += u.weight;
    if (text.includes(u.text)) found += u.weight;
  }
  return total > 0 ? found / total : 0;
}

/**
 * Re-orders `rows` (BM25 best first; `score` larger = better) by the blend of coverage and
 * normalised BM25. Stable for ties (BM25 order). Returns new objects with the blended score.
 */
export function rerankByCoverage<T extends { score: number; text: string }>(rows: readonly T[], units: readonly CoverageUnit[]): T[] {
  if (units.length === 0 || rows.length < 2) return [...rows];
  const best = Math.max(...rows.map((r) => r.score));
  const scored = rows.map((r, i) => {
    const bm = best > 0 ? r.score / best : 0;
    return { r, i, s: COVERAGE_BM25_SHARE * bm + (1 - COVERAGE_BM25_SHARE) * coverage(r.text, units) };
  });
  scored.sort((a, b) => b.s - a.s || a.i - b.i);
  return scored.map(({ r, s }) => ({ ...r, score: s }));
}
