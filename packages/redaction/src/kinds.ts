/**
 * The kinds of secret the built-in rules find, and the placeholder each redacted span becomes.
 */

/**
 * Every built-in kind, in the order the rules run. A placeholder names its kind
 * (`[redacted:github_token]`), so a model still knows something was there and what it was.
 * Extra patterns from the configuration add kinds of their own name.
 */
export const REDACTION_KINDS = [
  'private',
  'pem_private_key',
  'anthropic_key',
  'openai_key',
  'github_token',
  'gitlab_token',
  'slack_token',
  'slack_webhook',
  'google_api_key',
  'aws_access_key_id',
  'aws_secret_access_key',
  'stripe_key',
  'npm_token',
  'huggingface_token',
  'jwt',
  'authorization',
  'url_password',
  'secret_assignment',
] as const;

/** One of {@link REDACTION_KINDS}. */
export type BuiltinRedactionKind = (typeof REDACTION_KINDS)[number];

/**
 * A kind as it appears in spans, counts and placeholders: a built-in kind or the `name` of an extra
 * pattern (lower-case letters, digits and `_`).
 */
export type RedactionKind = BuiltinRedactionKind | (string & {});

/** The text that replaces a redacted span: `[redacted:KIND]`. */
export function placeholder(kind: RedactionKind): string {
  return `[redacted:${kind}]`;
}
