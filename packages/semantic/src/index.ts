/**
 * Stage B (semantic recall) entry point. Nothing is implemented yet: the package exists so the
 * layering (schema ← store ← semantic ← search-tool ← gateway-rpc) is enforced from the start.
 */
export const SEMANTIC_STAGE = 'not-implemented' as const;
