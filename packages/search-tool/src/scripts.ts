/**
 * Which writing systems a text uses, for the semantic script gate of discover.ts. A model that
 * declares the scripts it reads (SemanticSource `scripts`, e.g. the built-in USE-lite: Latin only)
 * still gives every text a vector; for a query written only in scripts it does not read (番茄炒蛋
 * for USE-lite) that vector mostly says "unknown tokens", and the nearest chunks of an English
 * project clear the similarity floor by accident. Between two texts of the same unread script the
 * vectors do carry signal (on MemoryBank, all Chinese, USE-lite lifts hybrid paraphrase R@10), so
 * the gate keeps a semantic hit of such a query only when its chunk is mostly written in the
 * query's scripts (SCRIPT_SHARE_MIN). Queries with a word of a script the model reads (English,
 * mixed 番茄 rust) are not gated.
 */
import { WRITING_SCRIPTS, type WritingScript } from '@recall/rpc-contract';

type ListedScript = Exclude<WritingScript, 'other'>;

/** Unicode Script property value of each listed script. */
const UNICODE_NAME: Record<ListedScript, string> = {
  latin: 'Latin',
  greek: 'Greek',
  cyrillic: 'Cyrillic',
  armenian: 'Armenian',
  hebrew: 'Hebrew',
  arabic: 'Arabic',
  devanagari: 'Devanagari',
  bengali: 'Bengali',
  thai: 'Thai',
  georgian: 'Georgian',
  hangul: 'Hangul',
  hiragana: 'Hiragana',
  katakana: 'Katakana',
  han: 'Han',
};

const LISTED = WRITING_SCRIPTS.filter((s): s is ListedScript => s !== 'other');

/**
 * One regular expression per script: does the text contain a letter of it (`other`: a letter of no
 * listed script)? Script_Extensions, so the kana length mark ー (Script=Common) counts as kana.
 */
const CONTAINS: Record<WritingScript, RegExp> = {
  ...(Object.fromEntries(LISTED.map((s) => [s, new RegExp(`(?=\\p{L})\\p{scx=${UNICODE_NAME[s]}}`, 'u')])) as Record<ListedScript, RegExp>),
  other: new RegExp(`[^\\P{L}${LISTED.map((s) => `\\p{scx=${UNICODE_NAME[s]}}`).join('')}]`, 'u'),
};

/** The scripts a text's letters are written in (digits, punctuation, emoji and spaces have none), in WRITING_SCRIPTS order. */
export function scriptsOf(text: string): WritingScript[] {
  return WRITING_SCRIPTS.filter((s) => CONTAINS[s].test(text));
}

/** Scripts written without spaces between words: each character counts as one word. */
const CHARACTER_SCRIPTS: readonly WritingScript[] = ['han', 'hiragana', 'katakana', 'hangul'];
const CHARACTER_CLASS = CHARACTER_SCRIPTS.map((s) => `\\p{scx=${UNICODE_NAME[s as ListedScript]}}`).join('');
/** One word: a character of a script written without spaces, or a run of other letters. */
const WORD = new RegExp(`(?=\\p{L})[${CHARACTER_CLASS}]|[^\\P{L}${CHARACTER_CLASS}]+`, 'gu');

/** Japanese mixes Han and kana: a passage in one of them is read as sharing the others' writing. */
function family(scripts: readonly WritingScript[]): WritingScript[] {
  const out = new Set(scripts);
  if (scripts.some((s) => s === 'han' || s === 'hiragana' || s === 'katakana')) for (const s of ['han', 'hiragana', 'katakana'] as const) out.add(s);
  return [...out];
}

/**
 * The share of a text's words written in `scripts` (or their family: Han and kana go together), 0
 * for a text without letters. A word is a character of Han, kana or Hangul, or a run of other
 * letters (an English word, a Cyrillic word), so "Should I use memchr? 另外 mmap 值得用吗？" is 6
 * Han words of 11.
 */
export function scriptShare(text: string, scripts: readonly WritingScript[]): number {
  const wanted = family(scripts).map((s) => CONTAINS[s]);
  let words = 0;
  let inScripts = 0;
  for (const [word] of text.matchAll(WORD)) {
    words++;
    if (wanted.some((re) => re.test(word))) inScripts++;
  }
  return words === 0 ? 0 : inScripts / words;
}

/**
 * The share of a chunk's words that must be in the query's scripts for a semantic hit of a query
 * the model cannot read to be kept: the chunk is mostly written the way the query is. On the
 * eval's MemoryBank (Chinese) every message is at least 0.71 Han; the one Chinese clause of an
 * English message in the demo's Rust project makes it 0.2 (6 of 30 words).
 */
export const SCRIPT_SHARE_MIN = 0.5;

/**
 * The scripts a semantic hit's chunk must be written in, or null when the query needs no gate: the
 * model reads every script (`reads` absent), the query has no letters, or at least one of its
 * scripts is one the model reads.
 */
export function unreadQueryScripts(query: string, reads: readonly WritingScript[] | undefined): WritingScript[] | null {
  if (reads === undefined) return null;
  const scripts = scriptsOf(query);
  if (scripts.length === 0 || scripts.some((s) => reads.includes(s))) return null;
  return scripts;
}

/** How the scripts are named to people (notes). */
const PEOPLE_NAME: Record<WritingScript, string> = {
  latin: 'Latin-script text such as English',
  greek: 'Greek',
  cyrillic: 'Cyrillic',
  armenian: 'Armenian',
  hebrew: 'Hebrew',
  arabic: 'Arabic',
  devanagari: 'Devanagari',
  bengali: 'Bengali',
  thai: 'Thai',
  georgian: 'Georgian',
  hangul: 'Korean',
  hiragana: 'Japanese',
  katakana: 'Japanese',
  han: 'Chinese characters',
  other: 'this writing system',
};

/** A list of script names for people: "Chinese characters", "Japanese or Chinese characters". */
export function scriptNames(scripts: readonly WritingScript[]): string {
  const names = [...new Set(scripts.map((s) => PEOPLE_NAME[s]))];
  if (names.length <= 1) return names[0] ?? '';
  return `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}
