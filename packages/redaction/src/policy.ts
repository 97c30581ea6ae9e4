/**
 * Where redaction applies and what it did: one {@link RedactionPolicy} per process, built from the
 * configuration (`privacy.redact` in config.json), hands each outgoing surface its text function
 * and counts the spans it replaced per surface and kind since the process started.
 */
import { createPrivateOnlyRedactor, createRedactor, type Redactor, type RedactorOptions } from './redactor.js';

/**
 * The surfaces through which text leaves the machine: `embedding` (texts sent to an embedding
 * endpoint: chunks and queries), `chat` (messages and tool results sent to a chat model),
 * `search_results` (`session_search` results returned to a model over MCP or in chat).
 */
export const REDACTION_SURFACES = ['embedding', 'chat', 'search_results'] as const;

/** One of {@link REDACTION_SURFACES}. */
export type RedactionSurface = (typeof REDACTION_SURFACES)[number];

/**
 * A redactor's options plus per-surface switches (every surface is on unless set to `false`).
 * `ignoreChars` defaults to `«»`, the highlight marks of search snippets.
 */
export interface RedactionPolicyOptions extends RedactorOptions {
  surfaces?: Partial<Record<RedactionSurface, boolean>>;
}

/** What a policy did since it was built: per surface, whether it is on, and spans replaced (total and per kind). */
export interface RedactionStats {
  surfaces: Record<RedactionSurface, { enabled: boolean; redactions: number; byKind: Record<string, number> }>;
}

/**
 * The redaction policy of a process. `text(surface)` gives the function a surface applies to every
 * text it sends, `value(surface, v)` the same for a JSON-like value (a search result). A surface
 * switched off still replaces `<private>…</private>` spans: they never leave the machine.
 * `stats()` reports the counts. Throws `RedactionPatternError` for refused extra/allow patterns.
 */
export class RedactionPolicy {
  readonly #full: Redactor;
  readonly #privateOnly: Redactor;
  readonly #enabled: Record<RedactionSurface, boolean>;
  readonly #counts: Record<RedactionSurface, Map<string, number>>;

  constructor(options: RedactionPolicyOptions = {}) {
    const { surfaces, ...redactorOptions } = options;
    this.#full = createRedactor({ ignoreChars: '«»', ...redactorOptions });
    this.#privateOnly = createPrivateOnlyRedactor();
    this.#enabled = { embedding: surfaces?.embedding !== false, chat: surfaces?.chat !== false, search_results: surfaces?.search_results !== false };
    this.#counts = { embedding: new Map(), chat: new Map(), search_results: new Map() };
  }

  /** Whether the full pass runs on `surface` (when false, only `<private>` spans are replaced). */
  enabled(surface: RedactionSurface): boolean {
    return this.#enabled[surface];
  }

  #count(surface: RedactionSurface, counts: Record<string, number>): void {
    const map = this.#counts[surface];
    for (const [kind, n] of Object.entries(counts)) map.set(kind, (map.get(kind) ?? 0) + n);
  }

  #redactor(surface: RedactionSurface): Redactor {
    return this.#enabled[surface] ? this.#full : this.#privateOnly;
  }

  /** The text function of `surface`: returns the text with placeholders and counts what it replaced. */
  text(surface: RedactionSurface): (text: string) => string {
    return (text) => {
      const redactor = this.#redactor(surface);
      if (redactor === this.#privateOnly && !/<\/?private>/i.test(text)) return text;
      const result = redactor.redact(text);
      if (result.spans.length > 0) this.#count(surface, result.counts);
      return result.text;
    };
  }

  /**
   * The same-length masking function of `surface` (see `Redactor.mask`): offsets stay valid, so a
   * slice of its output (a chunk) never holds part of a secret. Counts what it replaced.
   */
  mask(surface: RedactionSurface): (text: string) => string {
    return (text) => {
      const redactor = this.#redactor(surface);
      if (redactor === this.#privateOnly && !/<\/?private>/i.test(text)) return text;
      const result = redactor.mask(text);
      this.#count(surface, result.counts);
      return result.text;
    };
  }

  /** A copy of a JSON-like value with every string redacted for `surface` (counted). */
  value<T>(surface: RedactionSurface, value: T): T {
    const result = this.#redactor(surface).redactValue(value);
    this.#count(surface, result.counts);
    return result.value;
  }

  /** Counts since this policy was built. */
  stats(): RedactionStats {
    const one = (s: RedactionSurface) => {
      const byKind = Object.fromEntries([...this.#counts[s].entries()].sort(([a], [b]) => a.localeCompare(b)));
      return { enabled: this.#enabled[s], redactions: Object.values(byKind).reduce((a, b) => a + b, 0), byKind };
    };
    return { surfaces: { embedding: one('embedding'), chat: one('chat'), search_results: one('search_results') } };
  }
}
