/**
 * Per-project consent. Semantic indexing is switched on per project by an explicit action that
 * names the endpoint receiving the text; text of a project is sent only while it is enabled AND
 * the consented endpoint equals the active fingerprint's endpoint (a model moved to another server
 * needs a new consent). The consent also records the reranker (`semantic.rerank`) it was given
 * for: search-time reranking sends a project's text only while its consent names the configured
 * rerank endpoint too, so a reranker added or moved later asks again (migration 0006). Switching off stops sending at once and deletes nothing. The triggers of
 * migration 0003 queue the project's sessions when it is switched on. The rows live in each
 * adapter (sqlite/consent.ts; PostgreSQL: ChunkStore.setConsent / consentRecord).
 */
import type { TransferredConsent } from '@recall/storage-ports';

/**
 * A project's consent row: whether its text may be embedded, and for which endpoint (times in ms
 * since epoch). The storage ports' TransferredConsent (the same row, as `recall migrate` copies it).
 */
export type ProjectConsent = TransferredConsent;
