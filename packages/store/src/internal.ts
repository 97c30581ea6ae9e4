/**
 * `@recall/store/internal`: the keyword index's text-processing steps, for the repository's own
 * tooling (the keyword and CJK benches in tooling/bench compare them with their alternatives).
 * Not a stable API: these follow the index's needs and may change with KEYWORD_INDEX_VERSION.
 */

/** Overlapping CJK bigrams of a run of CJK characters, as the index stores them. */
export { cjkBigrams } from './search-text.js';
/** Whether a word is on the keyword search's stop-word list. */
export { isStopword } from './search-text.js';
/** The Latin/number units of a text, as the index tokenises them. */
export { latinUnits } from './search-text.js';
/** Dictionary words of a CJK run (`Intl.Segmenter`). */
export { segmentWords } from './search-text.js';
/** A text split into its CJK and non-CJK runs. */
export { splitRuns } from './search-text.js';
/** A CJK word without its leading/trailing grammatical particles. */
export { stripParticles } from './search-text.js';
/** One run of splitRuns and one unit of latinUnits. */
export type { TextRun, LatinUnit } from './search-text.js';
