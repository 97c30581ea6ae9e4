/**
 * Errors of @recall/redaction. Every error carries a stable string `code`; the only one is
 * `invalid_redaction_pattern`, thrown when an extra pattern or an allow-list pattern is refused.
 */

/** The stable codes of this package's errors. */
export const REDACTION_ERROR_CODES = ['invalid_redaction_pattern'] as const;

/** One of {@link REDACTION_ERROR_CODES}. */
export type RedactionErrorCode = (typeof REDACTION_ERROR_CODES)[number];

/**
 * An extra pattern (or an allow-list pattern) that cannot be used: not a valid regular expression,
 * too long, too many of them, a name that is not `a-z0-9_` or that names a built-in kind, or a
 * pattern that could backtrack catastrophically (nested quantifiers, backreferences, or slow on the
 * probe inputs). `code` is `invalid_redaction_pattern`; `pattern` names the offending entry.
 */
export class RedactionPatternError extends Error {
  /** Always `invalid_redaction_pattern`. */
  readonly code: RedactionErrorCode = 'invalid_redaction_pattern';
  /** The name (extra patterns) or the source (allow-list) of the refused entry. */
  readonly pattern: string;
  constructor(pattern: string, message: string) {
    super(message);
    this.name = 'RedactionPatternError';
    this.pattern = pattern;
  }
}
