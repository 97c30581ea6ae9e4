/**
 * The built-in detection rules. Every rule is linear in the length of the text:
 *
 * - regex rules start with a literal prefix (`ghp_`, `sk-ant-`, `AKIA`, `://`, …) guarded by a
 *   lookbehind that refuses a start inside a longer token, so a hostile run such as `sk-sk-sk-…` or
 *   `eyJeyJeyJ…` has at most one start; after the prefix every quantifier is either a single
 *   character class that cannot overlap what follows (no nested quantifiers, no ambiguous
 *   alternations) or bounded by a small constant, so a failing start costs O(bound);
 * - line rules (`KEY=value`) are anchored at line starts with bounded name and value lengths;
 * - PEM blocks and `<private>` spans are found by a scanner (indexOf-style searches that never look
 *   at the same text twice), not by a lazy `[\s\S]*?` that would rescan for every unclosed start.
 *
 * `test/hostile.test.ts` runs every rule over 1 MB inputs built to hit each rule's worst case.
 */
import type { BuiltinRedactionKind, RedactionKind } from './kinds.js';

/** A detected span: UTF-16 offsets [start, end) of the text that is replaced. */
export interface RawSpan {
  kind: RedactionKind;
  start: number;
  end: number;
  /** Lower wins when two spans start at the same place (specific formats before generic context rules). */
  priority: number;
}

/** A rule: calls `emit` for every span it finds in `text`. */
export interface Rule {
  kind: RedactionKind;
  find(text: string, emit: (span: RawSpan) => void): void;
}

/** How a regex rule turns a match into a span. */
export interface RegexRuleOptions {
  /** Capture groups that may hold the secret (the first that took part is the span); default: the whole match. Needs the `d` flag. */
  groups?: readonly number[];
  /** A last check in code (e.g. the name of a `KEY=value` line looks secret). */
  accept?: (m: RegExpExecArray) => boolean;
}

/** A regex rule: the whole match, or the first participating capture group of `groups`, is the span. */
export function regexRule(kind: RedactionKind, re: RegExp, priority: number, options: RegexRuleOptions = {}): Rule {
  if (!re.global) throw new Error(`rule ${kind}: the regex must be global`);
  const { groups, accept } = options;
  return {
    kind,
    find(text, emit) {
      re.lastIndex = 0;
      for (let m = re.exec(text); m !== null; m = re.exec(text)) {
        if (m[0].length === 0) {
          re.lastIndex++;
          continue;
        }
        if (accept && !accept(m)) continue;
        const span = groupSpan(m, groups);
        if (span) emit({ kind, start: span[0], end: span[1], priority });
      }
    },
  };
}

/** [start, end) of the first of `groups` that took part in the match, else of the whole match. */
function groupSpan(m: RegExpExecArray, groups: readonly number[] | undefined): [number, number] | null {
  if (groups === undefined || groups.length === 0) return [m.index, m.index + m[0].length];
  const indices = m.indices;
  if (!indices) return [m.index, m.index + m[0].length];
  for (const g of groups) {
    const range = indices[g];
    if (range) return range[1] > range[0] ? [range[0], range[1]] : null;
  }
  return null;
}

// --------------------------------------------------------------------------------------------
// Scanners

const PRIVATE_OPEN = /<private>/gi;
const PRIVATE_CLOSE = /<\/private>/gi;

/**
 * `<private>…</private>` spans, tags included. An opening tag without a closing one hides the rest
 * of the text, and a closing tag before any opening one hides everything before it: a piece cut out
 * of a longer text (a snippet, a trimmed window) that starts or ends inside a span stays hidden.
 * Nested tags are not counted: the first closing tag ends the span.
 */
export function privateSpans(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  if (text.length < 9 || !/<\/?private>/i.test(text)) return out;
  let at = 0;
  PRIVATE_OPEN.lastIndex = 0;
  const first = PRIVATE_OPEN.exec(text);
  PRIVATE_CLOSE.lastIndex = 0;
  const dangling = PRIVATE_CLOSE.exec(text);
  if (dangling && (!first || dangling.index < first.index)) {
    at = dangling.index + dangling[0].length;
    out.push([0, at]);
  }
  for (;;) {
    PRIVATE_OPEN.lastIndex = at;
    const open = PRIVATE_OPEN.exec(text);
    if (!open) break;
    PRIVATE_CLOSE.lastIndex = open.index + open[0].length;
    const close = PRIVATE_CLOSE.exec(text);
    if (!close) {
      out.push([open.index, text.length]);
      break;
    }
    const end = close.index + close[0].length;
    out.push([open.index, end]);
    at = end;
  }
  return out;
}

const PEM_BEGIN = /-----BEGIN (?:[A-Z0-9]{1,16} ){0,4}PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END = /-----END (?:[A-Z0-9]{1,16} ){0,4}PRIVATE KEY(?: BLOCK)?-----/g;
/** The body of a cut-off block: base64, whitespace and the `Proc-Type:`/`DEK-Info:` header characters (a '-' only when not the start of the next `-----`). */
const PEM_BODY = /(?:[A-Za-z0-9+/=\s:,]|-(?!-))*/y;

function pemSpans(text: string, emit: (span: RawSpan) => void): void {
  if (!text.includes('PRIVATE KEY')) return;
  let at = 0;
  let noEndFrom = Infinity; // once an END search fails from p, no END exists after p
  let cachedEnd: { index: number; length: number } | null = null; // the first END after the last search start
  for (;;) {
    PEM_BEGIN.lastIndex = at;
    const begin = PEM_BEGIN.exec(text);
    if (!begin) return;
    const bodyStart = begin.index + begin[0].length;
    let end = -1;
    if (bodyStart < noEndFrom) {
      // Starts only move forward, so an END found earlier is still the first one after this start.
      if (cachedEnd === null || cachedEnd.index < bodyStart) {
        PEM_END.lastIndex = bodyStart;
        const close = PEM_END.exec(text);
        cachedEnd = close ? { index: close.index, length: close[0].length } : null;
        if (!close) noEndFrom = bodyStart;
      }
      if (cachedEnd !== null) {
        // The END belongs to this BEGIN unless another BEGIN comes first (then this one is cut off).
        PEM_BEGIN.lastIndex = bodyStart;
        const next = PEM_BEGIN.exec(text);
        if (!next || next.index > cachedEnd.index) end = cachedEnd.index + cachedEnd.length;
      }
    }
    if (end < 0) {
      // Cut off (a snippet, a truncated paste): the header and the key material after it, up to the
      // next "-----" (each body is read once: the next BEGIN search starts after it).
      PEM_BODY.lastIndex = bodyStart;
      PEM_BODY.exec(text);
      end = PEM_BODY.lastIndex;
    }
    emit({ kind: 'pem_private_key', start: begin.index, end: Math.max(end, bodyStart), priority: 0 });
    at = Math.max(end, bodyStart);
  }
}

// --------------------------------------------------------------------------------------------
// Secret-looking names (KEY=value lines)

const STRONG_WORDS = new Set(['secret', 'secrets', 'password', 'passwd', 'passphrase', 'credential', 'credentials', 'apikey', 'privatekey', 'secretkey', 'accesskey']);
const LAST_WORDS = new Set(['key', 'token', 'pwd', 'pass', 'pw', 'auth', 'dsn', 'cookie']);
/** A lone `key` is too common a word (`sort_key`, `cacheKey`) unless the name is an UPPER_SNAKE env name or one of these precedes it. */
const KEY_QUALIFIERS = new Set(['api', 'access', 'secret', 'private', 'client', 'auth', 'master', 'encryption', 'signing', 'license', 'service', 'account', 'app', 'admin', 'webhook', 'session', 'deploy', 'ssh', 'gpg', 'crypto', 'jwt', 'hmac', 'openai', 'anthropic', 'stripe']);

/** Words of an identifier: split at `_ - .` and lower→upper case changes, lower-cased. */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_.-]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

/**
 * Whether a variable / setting name looks like it holds a secret: `PASSWORD`, `DB_PASSWORD`,
 * `GITHUB_TOKEN`, `OPENAI_API_KEY`, `STRIPE_KEY`, `SECRET_KEY_BASE`, `spring.datasource.password`,
 * `apiKey`, `client_secret`; not `MAX_TOKENS`, `sort_key`, `cacheKey`, `TOKEN_LIMIT`, `monkey`.
 */
export function isSecretName(name: string): boolean {
  const w = words(name);
  if (w.length === 0) return false;
  if (w.some((x) => STRONG_WORDS.has(x))) return true;
  const last = w[w.length - 1]!;
  if (!LAST_WORDS.has(last)) return false;
  if (last !== 'key') return true;
  if (w.length === 1) return false;
  const upperSnake = /^[A-Z0-9_]+$/.test(name) && name.includes('_');
  return upperSnake || KEY_QUALIFIERS.has(w[w.length - 2]!);
}

/** Values that name no secret: references to another variable, empty or obvious placeholders of a template. */
function isPlaceholderValue(value: string): boolean {
  return (
    /^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Za-z_][A-Za-z0-9_]*%|<.*|\{\{[^{}]*\}\}|\*+|x+|\.\.\.)$/i.test(value) ||
    /^(?:true|false|null|none|nil|undefined|yes|no|on|off)$/i.test(value)
  );
}

// `NAME=value` / `export NAME="value"` / `NAME: value` lines (.env, shell, YAML, properties).
// Groups: 1 name, 2 separator, 3 "double-quoted", 4 'single-quoted', 5 bare value.
const ASSIGN_LINE = /^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]{0,127})[ \t]*(=|:)[ \t]*(?:"([^"\r\n]{1,1024})"|'([^'\r\n]{1,1024})'|([^\s"'#]{1,1024}))/dgm;
// `… NAME=value` inside a line (a pasted command, `--password=x`, `export X=y; run`): '=' only, after a
// space, tab, ';', ',', '(' or '-'. A start scans at most to the next such character, so the rule stays linear.
// Groups: 1 name, 2 "double-quoted", 3 'single-quoted', 4 bare value.
const ASSIGN_INLINE = /(?<=[ \t;,(-])(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]{0,127})[ \t]*=[ \t]*(?:"([^"\r\n]{1,1024})"|'([^'\r\n]{1,1024})'|([^\s"'#;,)]{1,1024}))/dg;
// `… password: value` inside a line: what a snippet makes of a YAML block whose line breaks it folded.
// Only clearly secret names (password, secret, token, …) and a value of 6+ characters holding a
// digit, a symbol or a change of case after its first letter, so that prose ("my secret: I love cats")
// is left alone. Groups: 1 name, 2 value.
const ASSIGN_INLINE_COLON = /(?<=[ \t;,(-])([A-Za-z_][A-Za-z0-9_.-]{0,127})[ \t]*:[ \t]*([^\s"'#;,)]{6,1024})/dg;
const COLON_NAMES = /(?:password|passwd|passphrase|secret|token|pwd|credential|api_?key)$/i;
// `"name": "value"` (JSON, JS objects with quoted keys). Groups: 1 name, 2 value.
const ASSIGN_JSON = /"([A-Za-z_][A-Za-z0-9_.-]{0,127})"[ \t]*:[ \t]*"((?:[^"\\\r\n]|\\.){1,1024})"/dg;

function acceptLine(m: RegExpExecArray): boolean {
  const value = m[3] ?? m[4] ?? m[5] ?? '';
  if (!isSecretName(m[1]!) || isPlaceholderValue(value)) return false;
  if (m[2] === ':' && m[5] !== undefined) {
    // `Password: hunter2` — a YAML value is the whole rest of the line; `Key: the idea` is prose.
    // One match per line at most (the rule is anchored at line starts), so this look ahead is linear.
    const after = m.index + m[0].length;
    const newline = m.input.indexOf('\n', after);
    const rest = m.input.slice(after, Math.min(newline < 0 ? m.input.length : newline, after + 256));
    if (!/^[ \t]*(?:#.*)?\r?$/.test(rest)) return false;
  }
  return true;
}

function acceptInline(m: RegExpExecArray): boolean {
  return isSecretName(m[1]!) && !isPlaceholderValue(m[2] ?? m[3] ?? m[4] ?? '');
}

function acceptInlineColon(m: RegExpExecArray): boolean {
  const value = m[2]!;
  // A digit or a symbol, or letters whose case changes after the first one (`xKqPzRtWmNvB`): a
  // generated password without digits, which prose ("token: expired", "Password: Required") is not.
  const generated = /[0-9!@#$%^&*_+=/-]/.test(value) || (/[a-z]/.test(value) && /[A-Z]/.test(value.slice(1)));
  return COLON_NAMES.test(m[1]!) && isSecretName(m[1]!) && generated && !isPlaceholderValue(value);
}

function acceptJson(m: RegExpExecArray): boolean {
  return isSecretName(m[1]!) && !isPlaceholderValue(m[2]!);
}

// --------------------------------------------------------------------------------------------
// The rule table

/** Lookbehind: not inside a longer token of these characters. */
const NB = '(?<![A-Za-z0-9_-])';

const R = (kind: BuiltinRedactionKind, source: string, flags = 'g', priority = 1, options: RegexRuleOptions = {}): Rule =>
  regexRule(kind, new RegExp(source, flags), priority, options);

/** The built-in rules, most specific first (ties at one start go to the lower priority number). */
export function builtinRules(): Rule[] {
  return [
    { kind: 'pem_private_key', find: pemSpans },
    R('anthropic_key', `${NB}sk-ant-[A-Za-z0-9_-]{20,}`),
    R('openai_key', `${NB}sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{20,})`),
    R('github_token', `${NB}(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`),
    R('gitlab_token', `${NB}gl(?:pat|dt|rt|ptt|cbt|oas|ft|imt|soat)-[A-Za-z0-9_-]{20,}`),
    R('slack_token', `${NB}(?:xox[abposr]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,})`),
    R('slack_webhook', `https?://hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{10,}`),
    R('google_api_key', `${NB}AIza[0-9A-Za-z_-]{30,}`),
    R('aws_access_key_id', '(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])'),
    R('aws_secret_access_key', '\\baws[^\\n]{0,40}?secret[^\\n]{0,24}?[=:\\s][ \\t]*["\']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])', 'dgi', 1, { groups: [1] }),
    R('stripe_key', `${NB}(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9+/=]{20,})`),
    R('npm_token', `${NB}npm_[A-Za-z0-9]{36,}`),
    R('huggingface_token', `${NB}hf_[A-Za-z0-9]{30,}`),
    R('jwt', `${NB}eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}(?:\\.[A-Za-z0-9_-]+)?`),
    // Generic context rules: they redact only the credential, and lose to a specific format at the same start.
    R('authorization', '\\b(?:proxy-)?authorization["\']?[ \\t]*[:=][ \\t]*["\']?(?:bearer|basic|token|digest|bot|apikey|sso-key)[ \\t]+([A-Za-z0-9._~+/=:-]{6,4096})', 'dgi', 2, { groups: [1] }),
    R('authorization', '\\b(?:x-api-key|api-key|x-auth-token|x-access-token|private-token|x-goog-api-key)["\']?[ \\t]*:[ \\t]*["\']?([^\\s"\',;]{8,4096})', 'dgi', 2, { groups: [1] }),
    R('authorization', '\\bbearer[ \\t]+([A-Za-z0-9._~+/=-]{20,4096})', 'dgi', 2, { groups: [1] }),
    R('url_password', '://([^\\s:/?#@"\'<>]{1,256}):([^\\s/?#@"\'<>]{1,256})@', 'dg', 2, { groups: [2] }),
    R('secret_assignment', ASSIGN_LINE.source, 'dgm', 3, { groups: [3, 4, 5], accept: acceptLine }),
    R('secret_assignment', ASSIGN_INLINE.source, 'dg', 3, { groups: [2, 3, 4], accept: acceptInline }),
    R('secret_assignment', ASSIGN_INLINE_COLON.source, 'dg', 3, { groups: [2], accept: acceptInlineColon }),
    R('secret_assignment', ASSIGN_JSON.source, 'dg', 3, { groups: [2], accept: acceptJson }),
  ];
}

/** Private spans as a rule (priority 0: nothing inside them is reported separately). */
export const privateRule: Rule = {
  kind: 'private',
  find(text, emit) {
    for (const [start, end] of privateSpans(text)) emit({ kind: 'private', start, end, priority: 0 });
  },
};
