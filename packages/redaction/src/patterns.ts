/**
 * Checks for user-supplied patterns (`privacy.redact.extraPatterns` and `allow` in config.json).
 * JavaScript regular expressions backtrack, so a pattern such as `(a+)+$` can take exponential time
 * on a hostile text, and no RE2 engine is bundled. A pattern is therefore accepted only when:
 *
 * 1. its source is at most {@link MAX_PATTERN_LENGTH} characters and it compiles;
 * 2. it has no backreference (`\1`, `\k<name>`) and no quantified group that itself contains a
 *    quantifier or an alternation (`(a+)+`, `(a|ab)*`, `(?:x*y)*`) — the shapes behind catastrophic
 *    backtracking;
 * 3. it runs over a few 20,000-character probe texts (long runs of one character with a mismatch
 *    at the end) within {@link PROBE_BUDGET_MS} in total.
 *
 * This is a heuristic, not a proof: a polynomial (quadratic) pattern can pass it. The residual risk
 * is documented (packages/redaction/README.md): extra patterns are the user's own, a slow one slows
 * that user's redaction pass only, and its cost is bounded by the text sizes the surfaces send.
 */
import { RedactionPatternError } from './errors.js';

/** Longest accepted pattern source, in characters. */
export const MAX_PATTERN_LENGTH = 512;
/** Most extra patterns (and, separately, most allow-list entries). */
export const MAX_PATTERNS = 32;
/** Time all probe runs of one pattern may take together, in ms. */
export const PROBE_BUDGET_MS = 250;

const PROBE_LENGTH = 20_000;

/** Whether a quantifier follows position i (`*`, `+`, `?` or `{n,m}`). */
function quantifierAt(source: string, i: number): boolean {
  const c = source[i];
  if (c === '*' || c === '+' || c === '?') return true;
  return c === '{' && /^\{\d+(,\d*)?\}/.test(source.slice(i, i + 24));
}

/** The static part of the check (see the module header); returns a reason, or null when the pattern is acceptable. */
export function unsafePatternReason(source: string): string | null {
  if (/\\[1-9]|\\k</.test(source)) return 'it uses a backreference';
  // Walk groups with a stack; for each group remember whether it contains a quantifier or a '|'.
  const stack: { quantified: boolean; alternation: boolean }[] = [];
  const top = (): { quantified: boolean; alternation: boolean } | undefined => stack[stack.length - 1];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      i++; // the escaped character; a quantifier after it is seen at the next step
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      continue;
    }
    if (c === '(') {
      stack.push({ quantified: false, alternation: false });
      // Group modifiers are not quantifiers: (?: (?= (?! (?<= (?<! (?<name>
      if (source[i + 1] === '?') {
        const named = /^\?<[A-Za-z_$][\w$]*>/.exec(source.slice(i + 1, i + 40));
        i += named ? named[0].length : source[i + 2] === '<' ? 3 : 2;
      }
      continue;
    }
    if (c === '|') {
      const group = top();
      if (group) group.alternation = true;
      continue;
    }
    if (c === ')') {
      const group = stack.pop();
      if (!group) continue;
      if (quantifierAt(source, i + 1) && (group.quantified || group.alternation)) return 'a repeated group contains a repetition or an alternative (catastrophic backtracking)';
      const parent = top();
      if (parent && group.quantified) parent.quantified = true;
      continue;
    }
    if (quantifierAt(source, i)) {
      const group = top();
      if (group) group.quantified = true;
    }
  }
  return null;
}

function probes(): string[] {
  const out: string[] = [];
  for (const ch of ['a', '0', ' ', '-', 'A', '_', '/', '.']) out.push(ch.repeat(PROBE_LENGTH) + '!');
  out.push('ab'.repeat(PROBE_LENGTH / 2) + '\n', 'a1-'.repeat(PROBE_LENGTH / 3) + '\u0000');
  return out;
}

/**
 * Compiles a user pattern for the redaction pass (flags `g` and `d` are added; `flags` may add
 * `i`, `m`, `s`, `u`). Throws {@link RedactionPatternError} when it is refused (see the module header).
 */
export function compileUserPattern(label: string, source: string, flags = ''): RegExp {
  if (typeof source !== 'string' || source.length === 0) throw new RedactionPatternError(label, `The pattern "${label}" is empty.`);
  if (source.length > MAX_PATTERN_LENGTH) throw new RedactionPatternError(label, `The pattern "${label}" is longer than ${MAX_PATTERN_LENGTH} characters.`);
  if (!/^[imsu]*$/.test(flags)) throw new RedactionPatternError(label, `The pattern "${label}" may only use the flags i, m, s and u.`);
  let re: RegExp;
  try {
    re = new RegExp(source, `${[...new Set(flags)].join('')}dg`);
  } catch (error) {
    throw new RedactionPatternError(label, `The pattern "${label}" is not a valid regular expression: ${(error as Error).message}`);
  }
  const reason = unsafePatternReason(source);
  if (reason) throw new RedactionPatternError(label, `The pattern "${label}" is refused because ${reason}.`);
  re.lastIndex = 0;
  if (re.test('')) throw new RedactionPatternError(label, `The pattern "${label}" matches the empty text.`);
  const started = Date.now();
  for (const probe of probes()) {
    re.lastIndex = 0;
    for (let m = re.exec(probe); m !== null; m = re.exec(probe)) {
      if (m[0].length === 0) re.lastIndex++;
      if (Date.now() - started > PROBE_BUDGET_MS) break;
    }
    if (Date.now() - started > PROBE_BUDGET_MS) throw new RedactionPatternError(label, `The pattern "${label}" is refused because it is too slow on long texts (over ${PROBE_BUDGET_MS} ms on the probe inputs).`);
  }
  re.lastIndex = 0;
  return re;
}
