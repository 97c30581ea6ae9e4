/**
 * @recall/redaction: finds secrets in text and replaces them with typed placeholders
 * (`[redacted:github_token]`) before the text leaves the machine — to an embedding endpoint, a chat
 * model, or a model reading `session_search` results. No dependencies; every rule runs in linear time.
 */
export { REDACTION_KINDS, placeholder, type BuiltinRedactionKind, type RedactionKind } from './kinds.js';
export {
  blankPrivate,
  createRedactor,
  hasPrivate,
  redact,
  type ExtraPattern,
  type RedactionResult,
  type RedactionSpan,
  type Redactor,
  type RedactorOptions,
} from './redactor.js';
export { REDACTION_SURFACES, RedactionPolicy, type RedactionPolicyOptions, type RedactionStats, type RedactionSurface } from './policy.js';
export { compileUserPattern, MAX_PATTERN_LENGTH, MAX_PATTERNS, PROBE_BUDGET_MS, unsafePatternReason } from './patterns.js';
export { isSecretName } from './rules.js';
export { REDACTION_ERROR_CODES, RedactionPatternError, type RedactionErrorCode } from './errors.js';
