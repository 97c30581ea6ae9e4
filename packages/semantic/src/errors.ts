/**
 * Typed errors of the semantic layer. Each class carries a stable string `code` (only gateway-rpc
 * maps codes to numeric JSON-RPC errors) and `details` that never contain an API key, a request
 * body or message text: provider errors are built from status codes and server messages that pass
 * through `redactSecret()` first.
 */
export class SemanticError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown>;
  constructor(code: string, message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

/** The `semantic` section of config.json is invalid. */
export class SemanticConfigError extends SemanticError {
  constructor(message: string, issues: string[] = []) {
    super('invalid_semantic_config', message, { issues });
  }
}

/** Semantic indexing is not configured (no `semantic` section, or `enabled: false`). */
export class SemanticDisabledError extends SemanticError {
  constructor(message = 'Semantic indexing is not configured for this profile (config.json "semantic" section).') {
    super('semantic_disabled', message);
  }
}

/** The provider returned vectors of another length than configured: never stored, never compared. */
export class EmbeddingDimensionError extends SemanticError {
  constructor(expected: number, actual: number) {
    super('embedding_dimension_mismatch', `The embedding endpoint returned ${actual}-dimensional vectors; the configuration expects ${expected}.`, { expected, actual });
  }
}

/** One input is larger than the endpoint accepts even on its own (splitting cannot help). */
export class EmbeddingInputTooLargeError extends SemanticError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('embedding_input_too_large', message, details);
  }
}

/** The endpoint cannot be reached, timed out, or kept failing after the bounded retries. */
export class EmbeddingUnavailableError extends SemanticError {
  constructor(message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super('embedding_unavailable', message, details, options);
  }
}

/** The endpoint answered, but not with something we can use (auth, unknown model, malformed body). */
export class EmbeddingRequestError extends SemanticError {
  constructor(message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super('embedding_request_failed', message, details, options);
  }
}

/** The caller aborted the request (worker stopping, query deadline). */
export class EmbeddingAbortedError extends SemanticError {
  constructor() {
    super('embedding_aborted', 'The embedding request was aborted.');
  }
}

/** The provider was closed; no further calls are accepted. */
export class ProviderClosedError extends SemanticError {
  constructor() {
    super('embedding_provider_closed', 'The embedding provider was closed.');
  }
}

/** The reranker cannot be reached, timed out, or answered 429/5xx. */
export class RerankUnavailableError extends SemanticError {
  constructor(message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super('rerank_unavailable', message, details, options);
  }
}

/** The reranker answered, but not with something usable (auth, unknown model, malformed or oversized body). */
export class RerankRequestError extends SemanticError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('rerank_request_failed', message, details);
  }
}

/** The caller aborted the rerank request (the search call's deadline). */
export class RerankAbortedError extends SemanticError {
  constructor() {
    super('rerank_aborted', 'The rerank request was aborted.');
  }
}

/** A project-scoped request named a project that does not exist in this profile. */
export class SemanticProjectNotFoundError extends SemanticError {
  constructor(projectId: string) {
    super('project_not_found', `No project ${JSON.stringify(projectId)} in this profile.`, { projectId });
  }
}

/** Replaces every occurrence of `secret` (an API key) in `text`; used on every server-provided message. */
export function redactSecret(text: string, secret: string | null | undefined): string {
  if (!secret) return text;
  return text.split(secret).join('[redacted]');
}

/** A semantic search could not run for this call (no provider, no vectors yet, deadline passed). */
export class SemanticSearchUnavailableError extends SemanticError {
  constructor(message: string) {
    super('semantic_search_unavailable', message);
    this.name = 'SemanticSearchUnavailableError';
  }
}
