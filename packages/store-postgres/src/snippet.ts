/**
 * A short excerpt of a message around its matched terms, marked with « »: the SQLite search's own
 * snippet rule (@recall/store/portable `matchSnippet`: the densest cluster of matches, cut from the
 * stored spelling through a position map), so both backends show the same excerpt.
 */
import { matchSnippet, type QueryTerm } from '@recall/store/portable';

/** The excerpt of `content` for `terms`, about `size` characters. */
export function keywordSnippet(content: string, terms: readonly QueryTerm[], size: number): string {
  return matchSnippet(content, terms, size).snippet;
}
