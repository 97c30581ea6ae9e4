/**
 * BM25 for the PostgreSQL keyword path, computed in TypeScript over the candidates the GIN query
 * returns: the formula of SQLite FTS5's `bm25()` (k1 = 1.2, b = 0.75, one score per query phrase,
 * summed; a column's hits weighted by BM25_WEIGHTS: weight A = `body`, weight B = `cjk`), with the
 * document frequency of each phrase and the number of messages counted in the caller's scope
 * (never across projects). PostgreSQL has no BM25 of its own, and `ts_rank` has no IDF: a common
 * word counted as much as a rare one, which is what made the two backends rank differently.
 */
import { bm25Score, type Bm25Stats } from '@recall/store/portable';
import type { QueryLeaf } from '../keyword-text.js';

/** BM25's scope statistics and the bound of keyword-window.ts: the SQLite path's, shared (@recall/store/portable). */
export { bm25UpperBound, type Bm25Stats } from '@recall/store/portable';

/** A message's tsvector as positions per lexeme and weight. */
export interface ParsedDocument {
  /** lexeme → weight letter → positions (ascending). */
  readonly positions: ReadonlyMap<string, { A: number[]; B: number[] }>;
  /** Token count (positions over every lexeme), BM25's document length. */
  readonly length: number;
}

/** Parses PostgreSQL's text output of a tsvector (`'lex':1A,2B 'x''y':3`); positions without a letter are weight D and ignored. */
export function parseTsvector(text: string): ParsedDocument {
  const positions = new Map<string, { A: number[]; B: number[] }>();
  let length = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (i < n && text[i] === ' ') i++;
    if (i >= n || text[i] !== "'") break;
    i++;
    let lex = '';
    for (;;) {
      const ch = text[i];
      if (ch === undefined) break;
      if (ch === "'") {
        if (text[i + 1] === "'") {
          lex += "'";
          i += 2;
          continue;
        }
        i++;
        break;
      }
      if (ch === '\\') {
        lex += text[i + 1] ?? '';
        i += 2;
        continue;
      }
      lex += ch;
      i++;
    }
    const entry = { A: [] as number[], B: [] as number[] };
    if (text[i] === ':') {
      i++;
      while (i < n && text[i] !== ' ') {
        let num = 0;
        while (i < n && text[i]! >= '0' && text[i]! <= '9') num = num * 10 + (text.charCodeAt(i++) - 48);
        const w = text[i];
        if (w === 'A' || w === 'B' || w === 'C' || w === 'D') i++;
        if (w === 'A') entry.A.push(num);
        else if (w === 'B') entry.B.push(num);
        length++;
        if (text[i] === ',') i++;
      }
    }
    positions.set(lex, entry);
  }
  return { positions, length };
}

/** How often `leaf` (a lexeme, or a phrase of lexemes at consecutive positions) occurs in its weight. */
export function leafFrequency(doc: ParsedDocument, leaf: QueryLeaf): number {
  const lists = leaf.lexemes.map((l) => doc.positions.get(l)?.[leaf.weight]);
  if (lists.some((l) => l === undefined || l.length === 0)) return 0;
  if (lists.length === 1) return lists[0]!.length;
  const rest = lists.slice(1).map((l) => new Set(l));
  let count = 0;
  for (const p of lists[0]!) if (rest.every((set, k) => set.has(p + k + 1))) count++;
  return count;
}

/**
 * Tokens the SQLite index adds to the length of a message of a project: FTS5's `bm25()` takes a
 * row's length over all its columns, and the third column, `scope`, holds the project's token
 * (packages/store fts-index.ts `scopeToken`, weight 0, one token; none for a project-less session).
 * The tsvector has no such lexeme, so the length is counted here as FTS5 counts it: a document of
 * n tokens in a project is n + 1 long, and the scope's mean length grows by the share of its
 * messages that belong to a project (all of them in a project scope).
 */
export const SCOPE_TOKEN_LENGTH = 1;

/** FTS5's bm25() (positive: higher is better) of one document for `leaves` (each scored `count` times, as FTS5 scores each occurrence of a phrase); `inProject`: the message's session has a project (its SQLite row holds a scope token). The formula is the SQLite path's (@recall/store/portable bm25Score). */
export function bm25(doc: ParsedDocument, leaves: readonly QueryLeaf[], stats: Bm25Stats, inProject = false): number {
  return bm25Score(
    leaves.map((leaf) => leafFrequency(doc, leaf)),
    doc.length + (inProject ? SCOPE_TOKEN_LENGTH : 0),
    leaves,
    stats,
  );
}
