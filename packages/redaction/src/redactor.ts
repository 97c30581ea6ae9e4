/**
 * The redaction pass: runs every rule over a text, merges overlapping spans (a specific format wins
 * over a generic context rule at the same start; overlapping spans become one), drops allowed
 * ones, and writes each remaining span as its typed placeholder. Linear in the text length; memory
 * is the output text plus one entry per span.
 */
import { RedactionPatternError } from './errors.js';
import { placeholder, REDACTION_KINDS, type RedactionKind } from './kinds.js';
import { compileUserPattern, MAX_PATTERNS } from './patterns.js';
import { builtinRules, privateRule, privateSpans, regexRule, type RawSpan, type Rule } from './rules.js';

/** One redacted span of the input: its kind and UTF-16 offsets [start, end) in the ORIGINAL text. */
export interface RedactionSpan {
  kind: RedactionKind;
  start: number;
  end: number;
}

/** What {@link Redactor.redact} returns: the text with placeholders, the spans replaced, and counts per kind. */
export interface RedactionResult {
  /** The input with every span replaced by `[redacted:KIND]`; the input itself when nothing was found. */
  text: string;
  /** The replaced spans, in order, non-overlapping, offsets into the input. */
  spans: RedactionSpan[];
  /** Spans per kind (only kinds that occurred). */
  counts: Record<string, number>;
}

/**
 * An extra pattern from the configuration: `name` becomes the kind (`[redacted:NAME]`), `pattern`
 * is a JavaScript regular expression source. When the pattern has a named group `secret`, only that
 * group is replaced, else the whole match.
 */
export interface ExtraPattern {
  /** Lower-case letters, digits and `_`, 1-40 characters, not a built-in kind. */
  name: string;
  pattern: string;
  /** Extra flags among `i`, `m`, `s`, `u` (`g` and `d` are always added). */
  flags?: string;
}

/**
 * What a redactor finds besides the built-in rules, and what it must leave alone.
 * `allow`: a detected span whose text equals one of the strings, or fully matches one of the
 * RegExps (or `{ pattern }` sources), is kept as is. `ignoreChars`: characters that detection skips
 * over, e.g. the `«` `»` a search snippet puts around matched words, so `DB_«PASSWORD»=x` is still
 * a `KEY=value` line (they disappear inside a redacted span).
 */
export interface RedactorOptions {
  extraPatterns?: readonly ExtraPattern[];
  allow?: ReadonlyArray<string | RegExp | { pattern: string; flags?: string }>;
  ignoreChars?: string;
}

/**
 * A compiled redaction pass (see {@link createRedactor}). `redact()` returns text, spans and counts;
 * `redactText()` only the text; `redactValue()` rewrites every string inside a JSON-like value.
 */
export interface Redactor {
  redact(text: string): RedactionResult;
  redactText(text: string): string;
  /**
   * The text with every span overwritten IN PLACE, same length: the placeholder cut or padded with
   * spaces to the span's length (a span shorter than its placeholder becomes `*`s). Offsets into the
   * text stay valid, so any slice of the result is safe to send even when it cuts through a span —
   * what the semantic worker needs for chunks of a message whose secret spans a chunk boundary.
   */
  mask(text: string): { text: string; counts: Record<string, number> };
  /** A copy of `value` with every string (not object keys) redacted, and the counts over all of them. Depth is bounded (64); deeper values are returned as they are. */
  redactValue<T>(value: T): { value: T; counts: Record<string, number> };
}

const NAME_RE = /^[a-z][a-z0-9_]{0,39}$/;
const BUILTIN = new Set<string>(REDACTION_KINDS);
const MAX_DEPTH = 64;

interface Allowed {
  literals: Set<string>;
  patterns: RegExp[];
}

function compileAllow(allow: RedactorOptions['allow']): Allowed {
  const literals = new Set<string>();
  const patterns: RegExp[] = [];
  const list = allow ?? [];
  if (list.length > MAX_PATTERNS) throw new RedactionPatternError('allow', `At most ${MAX_PATTERNS} allow-list entries are accepted (got ${list.length}).`);
  for (const entry of list) {
    if (typeof entry === 'string') literals.add(entry);
    else if (entry instanceof RegExp) patterns.push(compileUserPattern(entry.source, `^(?:${entry.source})$`, entry.flags.replace(/[gdyv]/g, '')));
    else patterns.push(compileUserPattern(entry.pattern, `^(?:${entry.pattern})$`, entry.flags ?? ''));
  }
  return { literals, patterns };
}

function extraRules(extra: RedactorOptions['extraPatterns']): Rule[] {
  const list = extra ?? [];
  if (list.length > MAX_PATTERNS) throw new RedactionPatternError('extraPatterns', `At most ${MAX_PATTERNS} extra patterns are accepted (got ${list.length}).`);
  const seen = new Set<string>();
  return list.map((p) => {
    if (!NAME_RE.test(p.name)) throw new RedactionPatternError(String(p.name), `The extra pattern name ${JSON.stringify(p.name)} must be 1-40 lower-case letters, digits or "_", starting with a letter.`);
    if (BUILTIN.has(p.name)) throw new RedactionPatternError(p.name, `The extra pattern name "${p.name}" is a built-in kind; choose another name.`);
    if (seen.has(p.name)) throw new RedactionPatternError(p.name, `The extra pattern name "${p.name}" is used twice.`);
    seen.add(p.name);
    const re = compileUserPattern(p.name, p.pattern, p.flags ?? '');
    // A named group `secret` narrows the span; its index is found by a match-free probe of the source.
    const secretGroup = /\(\?<secret>/.test(p.pattern) ? groupIndex(p.pattern, 'secret') : undefined;
    return regexRule(p.name, re, 1, secretGroup === undefined ? {} : { groups: [secretGroup] });
  });
}

/** The capture-group number of a named group (counts unescaped '(' that capture, outside classes). */
function groupIndex(source: string, name: string): number | undefined {
  let n = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') {
      if (source[i + 1] !== '?') n++;
      else if (source[i + 2] === '<' && source[i + 3] !== '=' && source[i + 3] !== '!') {
        n++;
        if (source.startsWith(`(?<${name}>`, i)) return n;
      }
    }
  }
  return undefined;
}

/** Sorted, non-overlapping spans: ties at one start go to the lower priority, then the longer span; overlaps are merged into the first. */
function mergeSpans(raw: RawSpan[]): RawSpan[] {
  if (raw.length <= 1) return raw;
  raw.sort((a, b) => a.start - b.start || a.priority - b.priority || b.end - a.end);
  const out: RawSpan[] = [];
  for (const s of raw) {
    const last = out[out.length - 1];
    if (last && s.start < last.end) {
      if (s.end > last.end) last.end = s.end;
      continue;
    }
    out.push({ ...s });
  }
  return out;
}

/** Removes `ignore` characters; `map[i]` is the original index of clean character i (plus the end). */
function withoutIgnored(text: string, ignore: string): { clean: string; map: Int32Array } | null {
  let any = false;
  for (const ch of ignore) if (text.includes(ch)) any = true;
  if (!any) return null;
  const map = new Int32Array(text.length + 1);
  let clean = '';
  const parts: string[] = [];
  let n = 0;
  let runStart = 0;
  for (let i = 0; i < text.length; i++) {
    if (ignore.includes(text[i]!)) {
      if (i > runStart) parts.push(text.slice(runStart, i));
      runStart = i + 1;
      continue;
    }
    map[n++] = i;
  }
  if (runStart < text.length) parts.push(text.slice(runStart));
  map[n] = text.length;
  clean = parts.join('');
  return { clean, map: map.subarray(0, n + 1) };
}

class CompiledRedactor implements Redactor {
  readonly #rules: Rule[];
  readonly #allowed: Allowed;
  readonly #ignore: string;

  constructor(options: RedactorOptions, privateOnly = false) {
    this.#rules = privateOnly ? [privateRule] : [privateRule, ...builtinRules(), ...extraRules(options.extraPatterns)];
    this.#allowed = compileAllow(options.allow);
    this.#ignore = options.ignoreChars ?? '';
  }

  #detect(text: string): RawSpan[] {
    const raw: RawSpan[] = [];
    const emit = (span: RawSpan): void => {
      raw.push(span);
    };
    for (const rule of this.#rules) rule.find(text, emit);
    const merged = mergeSpans(raw);
    const { literals, patterns } = this.#allowed;
    if (literals.size === 0 && patterns.length === 0) return merged;
    return merged.filter((s) => {
      if (s.kind === 'private') return true; // <private> is never allow-listed
      const value = text.slice(s.start, s.end);
      if (literals.has(value)) return false;
      for (const re of patterns) {
        re.lastIndex = 0;
        if (re.test(value)) return false;
      }
      return true;
    });
  }

  redact(text: string): RedactionResult {
    if (typeof text !== 'string' || text.length === 0) return { text, spans: [], counts: {} };
    const stripped = this.#ignore === '' ? null : withoutIgnored(text, this.#ignore);
    let spans: RawSpan[];
    if (stripped) {
      spans = this.#detect(stripped.clean).map((s) => ({ ...s, start: stripped.map[s.start]!, end: stripped.map[s.end - 1]! + 1 }));
    } else {
      spans = this.#detect(text);
    }
    if (spans.length === 0) return { text, spans: [], counts: {} };
    const counts: Record<string, number> = {};
    const parts: string[] = [];
    let at = 0;
    const out: RedactionSpan[] = [];
    for (const s of spans) {
      parts.push(text.slice(at, s.start), placeholder(s.kind));
      at = s.end;
      counts[s.kind] = (counts[s.kind] ?? 0) + 1;
      out.push({ kind: s.kind, start: s.start, end: s.end });
    }
    parts.push(text.slice(at));
    return { text: parts.join(''), spans: out, counts };
  }

  redactText(text: string): string {
    return this.redact(text).text;
  }

  mask(text: string): { text: string; counts: Record<string, number> } {
    const r = this.redact(text);
    if (r.spans.length === 0) return { text, counts: {} };
    const parts: string[] = [];
    let at = 0;
    for (const s of r.spans) {
      const width = s.end - s.start;
      const label = placeholder(s.kind);
      parts.push(text.slice(at, s.start), width >= label.length ? label + ' '.repeat(width - label.length) : '*'.repeat(width));
      at = s.end;
    }
    parts.push(text.slice(at));
    return { text: parts.join(''), counts: r.counts };
  }

  redactValue<T>(value: T): { value: T; counts: Record<string, number> } {
    const counts: Record<string, number> = {};
    const walk = (v: unknown, depth: number): unknown => {
      if (typeof v === 'string') {
        const r = this.redact(v);
        for (const [k, n] of Object.entries(r.counts)) counts[k] = (counts[k] ?? 0) + n;
        return r.text;
      }
      if (depth >= MAX_DEPTH || v === null || typeof v !== 'object') return v;
      if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x, depth + 1);
      return out;
    };
    return { value: walk(value, 0) as T, counts };
  }
}

/**
 * Compiles a redaction pass: the built-in rules (every kind of `REDACTION_KINDS`) plus
 * `extraPatterns`, minus what `allow` lets through. Throws `RedactionPatternError`
 * (`invalid_redaction_pattern`) for a refused extra or allow-list pattern.
 */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  return new CompiledRedactor(options);
}

/** A pass that replaces only `<private>` spans (what a surface switched off still does). */
export function createPrivateOnlyRedactor(): Redactor {
  return new CompiledRedactor({}, true);
}

let defaultRedactor: Redactor | null = null;

/**
 * Redacts `text` with the built-in rules, or with a pass compiled from `options` (compile it once
 * with {@link createRedactor} when you redact many texts with the same options). Returns the text
 * with `[redacted:KIND]` placeholders, the spans replaced (offsets into `text`) and counts per kind.
 */
export function redact(text: string, options?: RedactorOptions): RedactionResult {
  if (options === undefined) return (defaultRedactor ??= createRedactor()).redact(text);
  return createRedactor(options).redact(text);
}

/**
 * `text` with every `<private>…</private>` span (tags included; an unclosed tag runs to the end, a
 * closing tag with no opening one covers everything before it)
 * replaced by spaces of the same length, so offsets into the text stay valid. For what is indexed
 * locally (the keyword index, semantic chunks): private text is never findable and never embedded,
 * while the stored message keeps it.
 */
export function blankPrivate(text: string): string {
  const spans = privateSpans(text);
  if (spans.length === 0) return text;
  const parts: string[] = [];
  let at = 0;
  for (const [start, end] of spans) {
    parts.push(text.slice(at, start), ' '.repeat(end - start));
    at = end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}

/** Whether `text` has a `<private>` or `</private>` tag (cheap; use it to skip work). */
export function hasPrivate(text: string): boolean {
  return /<\/?private>/i.test(text);
}
