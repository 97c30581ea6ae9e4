/**
 * Text → token text for the keyword index, and the word-level helpers the query parser shares with
 * it. FTS5's `unicode61` tokenizer splits Latin text well but sees a run of Chinese/Japanese/Korean
 * characters as ONE token, so CJK runs are rewritten here before SQLite sees them: the `body` column
 * gets overlapping bigrams (a single-character run stays a unigram) and the `cjk` column gets every
 * CJK character as its own token. A CJK substring of two or more characters is then the FTS phrase
 * of its bigrams in `body`; a single character is a token in `cjk`. Latin text is passed through
 * (after NFKC, so full-width letters and digits match their ASCII forms) and tokenised by unicode61,
 * which also splits identifiers such as `busy_timeout` / `config.yaml` / `E_CONN_RESET` into parts
 * that the query side turns into adjacent-token phrases. The comparison with word segmentation
 * (`Intl.Segmenter`) and the `trigram` tokenizer that led to this choice is in docs/benchmarks.md.
 * `<private>…</private>` spans are blanked (same length) before anything is indexed: their words are
 * never findable, while the stored message keeps them (@recall/redaction's `blankPrivate`).
 */
import { blankPrivate, hasPrivate } from '@recall/redaction';

/**
 * Characters treated as CJK: Han, kana, Hangul, plus the iteration/prolonged-sound marks that are
 * not in those scripts. All of them are letters to unicode61, so without this rewrite a whole
 * sentence would be one token.
 */
export const CJK_CLASS = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u3005\\u3006\\u30fc\\u30fd\\u30fe';
const CJK_RUN_RE = new RegExp(`[${CJK_CLASS}]+`, 'gu');
const CJK_CHAR_RE = new RegExp(`[${CJK_CLASS}]`, 'u');
/** Latin-ish token characters, the same classes unicode61 keeps (letters, numbers, private use, marks), as a character class body. */
export const TOKEN_CLASS = '\\p{L}\\p{N}\\p{Co}\\p{M}';
const TOKEN_PART_RE = new RegExp(`[${TOKEN_CLASS}]+`, 'gu');

/**
 * Content longer than this (UTF-16 code units) is indexed only up to here: a megabyte of tool output
 * would otherwise cost a megabyte of bigrams plus unigrams per edit. Recall of the original text is
 * unaffected (it is read from `messages`); only words past the cap are not findable.
 */
export const MAX_INDEXED_CHARS = 200_000;

/** NFKC (full-width → ASCII, compatibility ideographs → unified) and lower case. */
export function normalizeForSearch(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

export function isCjkChar(ch: string): boolean {
  return CJK_CHAR_RE.test(ch);
}

export function hasCjk(text: string): boolean {
  return CJK_CHAR_RE.test(text);
}

/** Overlapping bigrams of a CJK run, space-joined; a one-character run is returned as is. */
export function cjkBigrams(run: string): string {
  const chars = Array.from(run);
  if (chars.length < 2) return run;
  const out = new Array<string>(chars.length - 1);
  for (let i = 0; i < chars.length - 1; i++) out[i] = chars[i]! + chars[i + 1]!;
  return out.join(' ');
}

/** The index columns of one message. Both strings are plain token text for unicode61. */
export interface IndexColumns {
  /** Latin text unchanged (NFKC) with every CJK run replaced by its bigrams. */
  body: string;
  /** Every CJK character, space-separated (unigrams), so one-character queries hit the index. */
  cjk: string;
}

/**
 * The part of a message's content that search may see: `<private>` spans blanked with spaces (same
 * length, so offsets stay valid). The keyword index and the literal/substring scans use it.
 */
export function searchableContent(content: string): string {
  return hasPrivate(content) ? blankPrivate(content) : content;
}

/**
 * Whether every LIKE needle of a literal/substring hit occurs in the searchable part of the content
 * (LIKE reads the stored text, so a match only inside a `<private>` span must not count).
 */
export function likeOutsidePrivate(content: string, needles: readonly string[]): boolean {
  if (!hasPrivate(content)) return true;
  const visible = blankPrivate(content).toLowerCase();
  return needles.every((n) => visible.includes(n.toLowerCase()));
}

/** The text indexColumns splits into columns: the indexed prefix, private spans blanked, NFKC. */
export function indexedText(content: string): string {
  return searchableContent(content.length > MAX_INDEXED_CHARS ? content.slice(0, MAX_INDEXED_CHARS) : content).normalize('NFKC');
}

export function indexColumns(content: string): IndexColumns {
  const text = indexedText(content);
  // Fast path: most English messages have no CJK at all.
  if (!CJK_CHAR_RE.test(text)) return { body: text, cjk: '' };
  const body: string[] = [];
  const uni: string[] = [];
  let last = 0;
  for (const m of text.matchAll(CJK_RUN_RE)) {
    const start = m.index;
    if (start > last) body.push(text.slice(last, start));
    const chars = Array.from(m[0]);
    // Spaces on both sides keep a CJK run from gluing onto adjacent Latin letters (`修复bug`).
    body.push(' ');
    if (chars.length < 2) body.push(m[0]);
    else for (let i = 0; i < chars.length - 1; i++) body.push(i === 0 ? chars[i]! + chars[i + 1]! : ' ' + chars[i]! + chars[i + 1]!);
    body.push(' ');
    for (const c of chars) uni.push(c);
    last = start + m[0].length;
  }
  if (last < text.length) body.push(text.slice(last));
  return { body: body.join(''), cjk: uni.join(' ') };
}

/** A piece of (normalised) query or content text: a CJK run or a non-CJK stretch. */
export interface TextRun {
  text: string;
  cjk: boolean;
}

/** Splits text into alternating CJK and non-CJK runs, in order. */
export function splitRuns(text: string): TextRun[] {
  const runs: TextRun[] = [];
  let last = 0;
  for (const m of text.matchAll(CJK_RUN_RE)) {
    if (m.index > last) runs.push({ text: text.slice(last, m.index), cjk: false });
    runs.push({ text: m[0], cjk: true });
    last = m.index + m[0].length;
  }
  if (last < text.length) runs.push({ text: text.slice(last), cjk: false });
  return runs;
}

/**
 * Identifier-aware Latin units: letters/digits joined by `. _ - / : @ # + '` stay one unit
 * (`config.yaml`, `foo-bar`, `e_conn_reset`, `v1.2.3`) and are matched as the phrase of their parts.
 */
const LATIN_UNIT_RE = /[\p{L}\p{N}\p{Co}\p{M}]+(?:[._\-/:@#+'\u2019][\p{L}\p{N}\p{Co}\p{M}]+)*/gu;

export interface LatinUnit {
  /** The unit as written (normalised), e.g. `busy_timeout`. */
  text: string;
  /** Its unicode61 tokens, e.g. `['busy', 'timeout']`. */
  parts: string[];
}

export function latinUnits(text: string): LatinUnit[] {
  const out: LatinUnit[] = [];
  for (const m of text.matchAll(LATIN_UNIT_RE)) {
    const parts = m[0].match(TOKEN_PART_RE) ?? [];
    if (parts.length > 0) out.push({ text: m[0], parts });
  }
  return out;
}

let segmenter: Intl.Segmenter | undefined;
/**
 * Dictionary word segmentation of a CJK run (ICU via `Intl.Segmenter`). Used on the query side only:
 * it decides which characters form a query word; the index stays bigram-based, so a segmentation
 * that differs between question and stored text (`蒸鱼` vs `鲈|鱼`) does not lose the match.
 */
export function segmentWords(run: string): string[] {
  segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' });
  const out: string[] = [];
  for (const s of segmenter.segment(run)) if (s.isWordLike) out.push(s.segment);
  return out;
}

/**
 * English stop-words: function words and the filler of recall questions ("what did we say about…").
 * Dropping them is what lets a natural question OR its useful terms instead of demanding every word.
 */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing done down during each few for from further had has have having he her here hers herself ' +
    'him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or ' +
    'other our ours ourselves out over own same she should so some such than that the their theirs them themselves then there ' +
    'these they this those through to too under until up very was we were what when where which while who whom why will with ' +
    'would you your yours yourself yourselves s t d ll m o re ve y ' +
    "let's lets us also ever any anything something get got tell told say said mention mentioned remember recall recalled " +
    'again last previously earlier ago talk talked discuss discussed please thing things one ones much many'
  ).split(/\s+/),
);

/**
 * Chinese stop-words (question particles, pronouns, copulas, recall filler such as 上次/之前/说过).
 * Single characters that carry meaning (蒸, 鱼, 山, 茶) are deliberately NOT here.
 */
export const CHINESE_STOPWORDS: ReadonlySet<string> = new Set(
  (
    '的 了 吗 呢 吧 啊 呀 嘛 哦 喔 么 之 地 得 着 过 把 被 给 让 对 从 到 向 跟 和 与 及 或 而 且 就 都 也 还 又 再 才 很 太 更 最 ' +
    '我 你 您 他 她 它 我们 你们 他们 她们 它们 咱们 自己 大家 人家 ' +
    '是 在 有 没 没有 不 不是 要 会 能 能够 可以 可能 应该 想 想要 需要 ' +
    '这 那 这个 那个 这些 那些 这样 那样 这里 那里 这么 那么 哪 哪个 哪些 哪里 哪儿 ' +
    '什么 怎么 怎样 怎么样 如何 为什么 为何 多少 几 几个 多久 多长 多长时间 是否 是不是 有没有 ' +
    '上次 上回 之前 以前 先前 刚才 曾经 那次 那天 当时 后来 ' +
    '说 说过 说的 讲 讲过 提到 提过 提起 告诉 问 问过 聊 聊过 聊到 谈 谈到 记得 一下 一点 ' +
    '一个 一些 一种 一样 个 些 种 次 道 件 位 ' +
    '但是 但 可是 因为 所以 如果 然后 而且 或者 还是 以及 关于 对于 还有 就是 其实 ' +
    '好 好的 行 对 嗯 吗 呢 吧 啊 呀'
  ).split(/\s+/),
);

/** Particles stripped from the ends of a segmented word (`说的` → `说`, `好吗` → `好`). */
const EDGE_PARTICLES = new Set(['的', '了', '吗', '呢', '吧', '啊', '呀', '嘛', '么', '着', '过']);

export function stripParticles(word: string): string {
  let chars = Array.from(word);
  while (chars.length > 1 && EDGE_PARTICLES.has(chars[chars.length - 1]!)) chars = chars.slice(0, -1);
  while (chars.length > 1 && EDGE_PARTICLES.has(chars[0]!)) chars = chars.slice(1);
  return chars.join('');
}

export function isStopword(word: string): boolean {
  return hasCjk(word) ? CHINESE_STOPWORDS.has(word) : ENGLISH_STOPWORDS.has(word);
}

// ---------------------------------------------------------------------------------------------
// Porter stemmer (M. F. Porter 1980, with the `bli`→`ble` and `logi`→`log` revisions), the
// algorithm of FTS5's `porter` tokenizer. The index stems inside SQLite; this copy only serves the
// JS side that marks matches in snippets and decides `matchedTerms`, so `decided` in a message is
// marked for the query `decide` exactly when FTS5 matched it. Like FTS5, tokens shorter than 3 or
// longer than 64 characters are left alone.

function isCons(w: string, i: number): boolean {
  const c = w[i];
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return false;
  if (c === 'y') return i === 0 ? true : !isCons(w, i - 1);
  return true;
}

/** m() of the stem w[0..end): the number of vowel-consonant sequences. */
function measure(w: string, end: number): number {
  let n = 0;
  let i = 0;
  while (i < end && isCons(w, i)) i++;
  while (i < end) {
    while (i < end && !isCons(w, i)) i++;
    if (i >= end) break;
    n++;
    while (i < end && isCons(w, i)) i++;
  }
  return n;
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (!isCons(w, i)) return true;
  return false;
}

function endsDoubleCons(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && isCons(w, n - 1);
}

/** *o: the stem ends consonant-vowel-consonant and the last consonant is not w, x or y. */
function cvc(w: string, end: number): boolean {
  if (end < 3 || !isCons(w, end - 1) || isCons(w, end - 2) || !isCons(w, end - 3)) return false;
  const c = w[end - 1];
  return c !== 'w' && c !== 'x' && c !== 'y';
}

/** Replaces `suffix` by `repl` when the remaining stem has m() > min; returns null if no suffix. */
function replaceIf(w: string, rules: ReadonlyArray<readonly [string, string]>, min: number): string | null {
  for (const [suffix, repl] of rules) {
    if (w.endsWith(suffix)) {
      const stem = w.length - suffix.length;
      return measure(w, stem) > min ? w.slice(0, stem) + repl : w;
    }
  }
  return null;
}

const STEP2: ReadonlyArray<readonly [string, string]> = [
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'], ['bli', 'ble'],
  ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'], ['ization', 'ize'], ['ation', 'ate'],
  ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous'], ['aliti', 'al'],
  ['iviti', 'ive'], ['biliti', 'ble'], ['logi', 'log'],
];
const STEP3: ReadonlyArray<readonly [string, string]> = [
  ['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', ''],
];
const STEP4 = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'];

/** Longest-suffix-first order matters for step 4 (`ement` before `ment` before `ent`). */
const STEP4_SORTED = [...STEP4].sort((a, b) => b.length - a.length);

export function porterStem(word: string): string {
  if (word.length < 3 || word.length > 64 || !/^[a-z0-9]+$/.test(word)) return word;
  let w = word;
  // Step 1a
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (!w.endsWith('ss') && w.endsWith('s')) w = w.slice(0, -1);
  // Step 1b
  let extra = false;
  if (w.endsWith('eed')) {
    if (measure(w, w.length - 3) > 0) w = w.slice(0, -1);
  } else if (w.endsWith('ed') && hasVowel(w, w.length - 2)) {
    w = w.slice(0, -2);
    extra = true;
  } else if (w.endsWith('ing') && hasVowel(w, w.length - 3)) {
    w = w.slice(0, -3);
    extra = true;
  }
  if (extra) {
    if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
    else if (endsDoubleCons(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
    else if (measure(w, w.length) === 1 && cvc(w, w.length)) w += 'e';
  }
  // Step 1c
  if (w.endsWith('y') && hasVowel(w, w.length - 1)) w = w.slice(0, -1) + 'i';
  // Steps 2 and 3
  w = replaceIf(w, STEP2, 0) ?? w;
  w = replaceIf(w, STEP3, 0) ?? w;
  // Step 4
  for (const suffix of STEP4_SORTED) {
    if (w.endsWith(suffix)) {
      const stem = w.length - suffix.length;
      if (measure(w, stem) > 1 && (suffix !== 'ion' || /[st]$/.test(w.slice(0, stem)))) w = w.slice(0, stem);
      break;
    }
  }
  // Step 5a
  if (w.endsWith('e')) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !cvc(w, w.length - 1))) w = w.slice(0, -1);
  }
  // Step 5b
  if (measure(w, w.length) > 1 && endsDoubleCons(w) && w.endsWith('l')) w = w.slice(0, -1);
  return w;
}
